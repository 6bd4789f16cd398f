// The part of the suite the per-workload tests run (suite_sample.h): every pattern at least once,
// the strata disjoint and together the whole suite, `all` the whole suite.
#include <gtest/gtest.h>

#include <set>

#include "suite/suite.h"
#include "suite_sample.h"

namespace ekb::test {
namespace {

const Suite& suite() {
  static Suite s = Suite::load(std::string(EKB_SOURCE_DIR) + "/suite");
  return s;
}

TEST(SuiteSample, TakesEveryPatternAndTheStrataCoverTheSuiteOnce) {
  std::set<std::string> patterns;
  for (const auto& t : suite().tasks()) patterns.insert(t.pattern.empty() ? t.name : t.pattern);
  std::set<std::string> union_of_strata;
  size_t smallest = suite().tasks().size();
  for (unsigned s = 0; s < kSuiteStrata; ++s) {
    std::vector<std::string> v = sampled_workloads(suite(), s);
    std::set<std::string> covered;
    for (const auto& name : v) {
      const Task* t = suite().find(name);
      ASSERT_TRUE(t) << name;
      covered.insert(t->pattern.empty() ? t->name : t->pattern);
    }
    EXPECT_EQ(covered, patterns) << "stratum " << s << " misses a pattern";
    EXPECT_EQ(std::set<std::string>(v.begin(), v.end()).size(), v.size()) << "stratum " << s << " names a workload twice";
    union_of_strata.insert(v.begin(), v.end());
    smallest = std::min(smallest, v.size());
  }
  EXPECT_EQ(union_of_strata.size(), suite().tasks().size());
  EXPECT_LT(smallest, suite().tasks().size()) << "a stratum is the whole suite: the split does nothing";
  EXPECT_EQ(sampled_workloads(suite(), kSuiteStrata).size(), suite().tasks().size());
}

TEST(SuiteSample, EveryStratumHoldsWorkloads) {
  std::set<unsigned> strata;
  for (const auto& t : suite().tasks()) strata.insert(stratum_of(t.name));
  EXPECT_EQ(strata.size(), kSuiteStrata) << "some stratum is empty";
}

}  // namespace
}  // namespace ekb::test
