// The speedup's interval (harness/speedup_interval.h): the point estimate is the ratio of medians,
// the interval contains it, covers 1 for identical distributions, excludes 1 for a clear difference,
// narrows with more rounds, is the same for the same times, and keeps its coverage on a machine whose
// slow spells last many rounds.
#include <gtest/gtest.h>

#include <cmath>
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

// A shared machine's spells: rounds in which another tenant slows the candidate (a two-thread
// kernel) by 30% and not the baseline, entered with probability 2% per round and left with 8% (a
// fifth of the time, 12 rounds at a time). Over many such evaluations of 150 rounds, the interval
// drawn in blocks covers the true speedup (that of a very long run) far more often than the one
// drawn round by round (measured: 125 and 103 of 150; neither reaches the nominal 95% in so harsh a
// case). On rounds without spells both keep their coverage.
struct Coverage {
  int blocks = 0, rounds = 0;
};
Coverage coverage(double enter, double leave, int runs, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> jitter(0.0, 0.05);
  std::uniform_real_distribution<double> u(0, 1);
  bool spell = false;
  auto evaluation = [&](size_t n, std::vector<double>& base, std::vector<double>& cand) {
    base.clear();
    cand.clear();
    for (size_t i = 0; i < n; ++i) {
      spell = spell ? u(rng) > leave : u(rng) < enter;
      base.push_back(1.0 * jitter(rng));
      cand.push_back((spell ? 1.3 : 1.0) * 0.8 * jitter(rng));
    }
  };
  std::vector<double> base, cand;
  evaluation(200000, base, cand);
  double truth = bootstrap_speedup(base, cand, 0.95, 0).speedup;  // (no resamples: the point estimate)
  Coverage c;
  for (int k = 0; k < runs; ++k) {
    evaluation(150, base, cand);
    SpeedupInterval blocks = bootstrap_speedup(base, cand, 0.95, 400, static_cast<uint64_t>(k));
    SpeedupInterval rounds = bootstrap_speedup(base, cand, 0.95, 400, static_cast<uint64_t>(k), 1);
    c.blocks += blocks.lo <= truth && truth <= blocks.hi;
    c.rounds += rounds.lo <= truth && truth <= rounds.hi;
  }
  return c;
}

TEST(SpeedupInterval, BlocksOfRoundsKeepMoreCoverageWhenTheMachineHasSpells) {
  Coverage spells = coverage(0.02, 0.08, 150, 11);
  EXPECT_GE(spells.blocks, 150 * 80 / 100) << "rounds one by one: " << spells.rounds;
  EXPECT_LE(spells.rounds + 150 / 10, spells.blocks);
  Coverage none = coverage(0.0, 1.0, 150, 12);
  EXPECT_GE(none.blocks, 150 * 90 / 100);
  EXPECT_GE(none.rounds, 150 * 90 / 100);
}

TEST(SpeedupInterval, BlocksAreTheSquareRootOfTheRounds) {
  EXPECT_EQ(bootstrap_block_rounds(1), 1u);
  EXPECT_EQ(bootstrap_block_rounds(150), 12u);
  EXPECT_EQ(bootstrap_block_rounds(300), 17u);
}

// Identical programs timed in two pairs of workers: each pair's layout shifts every round of one
// side by the same factor, which the rounds' interval cannot see; joined with the spread between
// pairs, the interval covers 1 for about 95% of pairs, where the rounds' own covered far fewer.
TEST(SpeedupInterval, TheSpreadBetweenWorkerPairsWidensItToCoverIdenticalPrograms) {
  const double spread = 0.016;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> layout(0.0, spread / std::sqrt(2.0));  // each side's share of the pair's spread
  int covered_rounds = 0, covered_joined = 0;
  const int pairs = 200;
  for (int k = 0; k < pairs; ++k) {
    double fb = std::exp(layout(rng)), fc = std::exp(layout(rng));
    auto base = noisy(1.0 * fb, 300, 0.03, 100 + 2 * k), cand = noisy(1.0 * fc, 300, 0.03, 101 + 2 * k);
    SpeedupInterval rounds = bootstrap_speedup(base, cand);
    SpeedupInterval joined = across_processes(rounds, spread);
    EXPECT_DOUBLE_EQ(joined.speedup, rounds.speedup);
    EXPECT_LE(joined.lo, rounds.lo);
    EXPECT_GE(joined.hi, rounds.hi);
    covered_rounds += rounds.lo <= 1.0 && rounds.hi >= 1.0;
    covered_joined += joined.lo <= 1.0 && joined.hi >= 1.0;
  }
  EXPECT_LT(covered_rounds, pairs * 3 / 4) << "the rounds' interval alone misses the pairs' layout";
  EXPECT_GE(covered_joined, pairs * 90 / 100);
  // A clear gain stays clear; no spread leaves the interval as it was.
  SpeedupInterval gain = across_processes(bootstrap_speedup(noisy(1.0, 200, 0.04, 1), noisy(0.8, 200, 0.03, 2)), spread);
  EXPECT_GT(gain.lo, 1.15);
  SpeedupInterval same = bootstrap_speedup(noisy(1.0, 50, 0.04, 3), noisy(1.0, 50, 0.04, 4));
  SpeedupInterval none = across_processes(same, 0.0);
  EXPECT_EQ(none.lo, same.lo);
  EXPECT_EQ(none.hi, same.hi);
}

TEST(SpeedupInterval, UnequalRoundCountsAreAnError) {
  EXPECT_THROW(bootstrap_speedup({1, 2}, {1}), std::invalid_argument);
}

}  // namespace
}  // namespace ekb
