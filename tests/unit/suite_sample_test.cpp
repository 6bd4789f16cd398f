// The part of the suite the per-workload tests run (suite_sample.h): every pattern at least once,
// the strata disjoint and together the whole suite, `all` the whole suite; a task loaded from its
// file alone is the suite's.
#include <gtest/gtest.h>

#include <set>

#include "suite/suite.h"
#include "suite_sample.h"

namespace ekb::test {
namespace {

const Suite& suite() {
  static Suite s = Suite::load(source_suite_dir());
  return s;
}

TEST(SuiteSample, TakesEveryPatternAndTheStrataCoverTheSuiteOnce) {
  std::set<std::string> patterns;
  for (const auto& t : suite().tasks()) patterns.insert(t.pattern.empty() ? t.name : t.pattern);
  std::vector<ManifestEntry> rows = manifest_rows();
  ASSERT_EQ(rows.size(), suite().tasks().size());
  std::set<std::string> union_of_strata;
  size_t smallest = rows.size();
  for (unsigned s = 0; s < kSuiteStrata; ++s) {
    std::vector<std::string> v = sampled_workloads(rows, s);
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
  EXPECT_EQ(union_of_strata.size(), rows.size());
  EXPECT_LT(smallest, rows.size()) << "a stratum is the whole suite: the split does nothing";
  EXPECT_EQ(sampled_workloads(rows, kSuiteStrata).size(), rows.size());
}

TEST(SuiteSample, EveryStratumHoldsWorkloads) {
  std::set<unsigned> strata;
  for (const auto& t : suite().tasks()) strata.insert(stratum_of(t.name));
  EXPECT_EQ(strata.size(), kSuiteStrata) << "some stratum is empty";
}

TEST(SuiteSample, ATaskLoadedFromItsFileAloneIsTheSuites) {
  for (const char* name : {"cumsum_inclusive_topp_llama2_4x32000", "dscnn_kws_mlperf_s_49x10_c64", "gru_cell_kws_1x40x128"}) {
    Task t = load_suite_task(name);
    const Task* whole = suite().find(name);
    ASSERT_TRUE(whole) << name;
    EXPECT_EQ(t.text, whole->text) << name;
    EXPECT_EQ(t.pattern, whole->pattern) << name;
  }
  EXPECT_THROW(load_suite_task("no_such_workload"), std::runtime_error);
}

}  // namespace
}  // namespace ekb::test
