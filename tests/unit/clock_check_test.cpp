// The worker's clock against the harness's (harness/clock_check.h): the same time outside the kernel
// in both workers passes, noise included; a candidate whose worker reports calls shorter than the
// harness saw them (more time outside than the baseline's) is caught, beyond the allowance only.
#include <gtest/gtest.h>

#include <random>

#include "harness/clock_check.h"

namespace ekb {
namespace {

std::vector<double> around(double center_ms, double spread_ms, uint64_t seed, size_t n = 300) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(center_ms, spread_ms);
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) v.push_back(std::max(0.0, d(rng)));
  return v;
}

TEST(ClockCheck, TheSameTimeOutsideTheKernelPassesWhateverItsNoise) {
  // As measured on the 2-core VM: 80-100 us per request outside the kernel, quartiles 30 us apart.
  OutsideTimes t = outside_medians(around(0.085, 0.02, 1), around(0.09, 0.02, 2));
  EXPECT_NEAR(t.candidate_ms, 0.085, 0.005);
  EXPECT_NEAR(t.baseline_ms, 0.09, 0.005);
  EXPECT_FALSE(clock_disagreement(t, 0.005).has_value());  // a 5 us kernel
  EXPECT_FALSE(clock_disagreement(t, 4.0).has_value());
}

TEST(ClockCheck, AClockMovedByTheKernelIsCaught) {
  // The kernel takes 0.2 ms but moves its worker's clock on by 0.1 ms: the harness sees 0.1 ms more
  // outside each call than in the baseline's worker.
  OutsideTimes t = outside_medians(around(0.19, 0.02, 3), around(0.09, 0.02, 4));
  auto problem = clock_disagreement(t, 0.1);
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("clock was moved"), std::string::npos) << *problem;
}

TEST(ClockCheck, TheAllowanceIsTwentyMicrosecondsOrATenthOfTheCall) {
  EXPECT_FALSE(clock_disagreement({0.119, 0.1}, 0.01).has_value());
  EXPECT_TRUE(clock_disagreement({0.121, 0.1}, 0.01).has_value());
  EXPECT_FALSE(clock_disagreement({0.29, 0.1}, 2.0).has_value());  // 0.2 ms allowed beside a 2 ms call
  EXPECT_TRUE(clock_disagreement({0.31, 0.1}, 2.0).has_value());
  EXPECT_FALSE(clock_disagreement({}, 1.0).has_value());  // nothing measured (a GPU, or no timed round)
}

TEST(ClockCheck, TimeMovedBetweenCallsBackToBackIsCaughtWithTheSameAllowance) {
  // Warm turns: the worker's own time between its calls (the renewals), per call, against the
  // baseline worker's doing the same work.
  EXPECT_FALSE(between_calls_disagreement({0.019, 0.005}, 0.05).has_value());
  auto problem = between_calls_disagreement({0.03, 0.005}, 0.05);
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("between its calls"), std::string::npos) << *problem;
  EXPECT_FALSE(between_calls_disagreement({}, 1.0).has_value());  // cold: nothing measured
}

}  // namespace
}  // namespace ekb
