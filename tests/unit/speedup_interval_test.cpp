// The speedup's interval (harness/speedup_interval.h): the point estimate is the ratio of medians,
// the interval contains it, covers 1 for identical distributions, excludes 1 for a clear difference,
// narrows with more rounds, and is the same for the same times.
#include <gtest/gtest.h>

#include <random>

#include "harness/speedup_interval.h"

namespace ekb {
namespace {

std::vector<double> noisy(double center, size_t n, double spread, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(center, spread);
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) v.push_back(std::max(0.01, d(rng)));
  return v;
}

TEST(SpeedupInterval, RatioOfMediansInsideItsInterval) {
  std::vector<double> base = {2, 2, 2, 4, 100}, cand = {1, 1, 1, 1, 50};
  SpeedupInterval s = bootstrap_speedup(base, cand);
  EXPECT_DOUBLE_EQ(s.speedup, 2.0);
  EXPECT_LE(s.lo, s.speedup);
  EXPECT_GE(s.hi, s.speedup);
}

TEST(SpeedupInterval, IdenticalDistributionsCoverOneAndAClearGainDoesNot) {
  auto a = noisy(1.0, 200, 0.05, 1), b = noisy(1.0, 200, 0.05, 2);
  SpeedupInterval same = bootstrap_speedup(a, b);
  EXPECT_LE(same.lo, 1.0);
  EXPECT_GE(same.hi, 1.0);
  auto fast = noisy(0.8, 200, 0.04, 3);
  SpeedupInterval gain = bootstrap_speedup(a, fast);
  EXPECT_GT(gain.lo, 1.1);
  EXPECT_NEAR(gain.speedup, 1.25, 0.03);
}

TEST(SpeedupInterval, MoreRoundsNarrowItAndTheSameTimesGiveTheSameInterval) {
  auto b20 = noisy(1.0, 20, 0.1, 4), c20 = noisy(0.9, 20, 0.1, 5);
  auto b400 = noisy(1.0, 400, 0.1, 4), c400 = noisy(0.9, 400, 0.1, 5);
  EXPECT_GT(bootstrap_speedup(b20, c20).relative_half_width(), bootstrap_speedup(b400, c400).relative_half_width());
  SpeedupInterval x = bootstrap_speedup(b400, c400), y = bootstrap_speedup(b400, c400);
  EXPECT_EQ(x.lo, y.lo);
  EXPECT_EQ(x.hi, y.hi);
}

TEST(SpeedupInterval, UnequalRoundCountsAreAnError) {
  EXPECT_THROW(bootstrap_speedup({1, 2}, {1}), std::invalid_argument);
}

}  // namespace
}  // namespace ekb
