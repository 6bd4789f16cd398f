// Metrics (harness/metrics.h): the pass@k estimator against hand-computed values, Fast@p's strict
// threshold and zero for failures, the geometric mean, and the failure breakdown.
#include <gtest/gtest.h>

#include <cmath>

#include "harness/metrics.h"

namespace ekb {
namespace {

TEST(Metrics, PassAtKMatchesTheCombinatorialDefinition) {
  EXPECT_DOUBLE_EQ(pass_at_k(1, 1, 1), 1.0);
  EXPECT_DOUBLE_EQ(pass_at_k(1, 0, 1), 0.0);
  EXPECT_NEAR(pass_at_k(5, 2, 1), 0.4, 1e-12);               // c / n for k = 1
  EXPECT_NEAR(pass_at_k(5, 2, 2), 1.0 - 3.0 / 10.0, 1e-12);  // 1 - C(3,2)/C(5,2)
  EXPECT_NEAR(pass_at_k(10, 3, 5), 1.0 - 21.0 / 252.0, 1e-12);
  EXPECT_DOUBLE_EQ(pass_at_k(4, 3, 2), 1.0);  // fewer than k failures: always one pass
}

TEST(Metrics, FastIsStrictAndFailuresCountZero) {
  std::vector<SampleOutcome> s = {
      {"a", Outcome::ok, 1.0, 1.0},    // exactly 1.0: not Fast@1.0
      {"b", Outcome::ok, 2.5, 2.0},
      {"c", Outcome::wrong, 0, 0},
      {"d", Outcome::compile, 0, 0},
  };
  Metrics m = compute_metrics(s);
  EXPECT_EQ(m.tasks, 4);
  EXPECT_DOUBLE_EQ(m.compile_at_k, 0.75);
  EXPECT_DOUBLE_EQ(m.correct_at_k, 0.5);
  EXPECT_DOUBLE_EQ(m.fast.at("0.0"), 0.5);
  EXPECT_DOUBLE_EQ(m.fast.at("1.0"), 0.25);
  EXPECT_DOUBLE_EQ(m.fast.at("2.0"), 0.25);
  EXPECT_NEAR(m.geomean_speedup, std::sqrt(2.5), 1e-12);
  EXPECT_EQ(m.failures.at("wrong"), 1);
  EXPECT_EQ(m.failures.at("compile"), 1);
  EXPECT_EQ(m.failures.count("ok"), 0u);
}

TEST(Metrics, SamplesOfOneTaskAverageBeforeTasksDo) {
  // Task x: 1 of 2 samples correct and fast; task y: both fail. Correct@1 = (0.5 + 0) / 2.
  std::vector<SampleOutcome> s = {{"x", Outcome::ok, 3.0, 2.8}, {"x", Outcome::timeout, 0, 0},
                                  {"y", Outcome::wrong, 0, 0}, {"y", Outcome::wrong, 0, 0}};
  Metrics m = compute_metrics(s);
  EXPECT_DOUBLE_EQ(m.correct_at_k, 0.25);
  EXPECT_DOUBLE_EQ(m.fast.at("1.5"), 0.25);
  EXPECT_DOUBLE_EQ(compute_metrics(s, 2).correct_at_k, 0.5);  // task x: one of two samples passes
}

TEST(Metrics, SignificantFastNeedsTheIntervalAboveTheThreshold) {
  // Both correct with a point estimate above 1; only one's interval lies above 1. Noisy samples count.
  std::vector<SampleOutcome> s = {{"a", Outcome::ok, 1.10, 0.97, true}, {"b", Outcome::ok, 1.30, 1.21, false}};
  Metrics m = compute_metrics(s);
  EXPECT_DOUBLE_EQ(m.fast.at("1.0"), 1.0);
  EXPECT_DOUBLE_EQ(m.fast_significant.at("1.0"), 0.5);
  EXPECT_DOUBLE_EQ(m.fast_significant.at("1.5"), 0.0);
  EXPECT_EQ(m.noisy, 1);
}

TEST(Metrics, EmptyInputGivesZeros) {
  Metrics m = compute_metrics({});
  EXPECT_EQ(m.tasks, 0);
  EXPECT_EQ(m.fast.size(), 6u);
  EXPECT_EQ(m.fast_significant.size(), 6u);
  EXPECT_EQ(m.geomean_speedup, 0.0);
}

}  // namespace
}  // namespace ekb
