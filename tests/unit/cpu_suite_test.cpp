// Every suite workload compiles with its default (baseline) schedule on the cpu backend and matches
// the float64 reference; plain loops (no schedule) too, for a subset.
#include "cpu_test_util.h"
#include "suite/figures.h"
#include "suite/suite.h"

namespace ekb::test {
namespace {

const Suite& suite() {
  static Suite s = Suite::load(std::string(EKB_SOURCE_DIR) + "/suite");
  return s;
}

class CpuSuite : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuSuite, DefaultScheduleMatchesReference) {
  const Task* t = suite().find(GetParam());
  ASSERT_TRUE(t);
  CpuCheck c = check_on_cpu(*t->program, "default");
  EXPECT_TRUE(c.pass) << GetParam() << ": " << c.report;
}

std::vector<std::string> task_names() {
  std::vector<std::string> v;
  for (const auto& t : suite().tasks()) v.push_back(t.name);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Suite, CpuSuite, ::testing::ValuesIn(task_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

TEST(CpuSuitePlainLoops, SmallTasksMatchWithoutASchedule) {
  int checked = 0;
  for (const auto& t : suite().tasks()) {
    if (compute_figures(*t.program).flops > 5e6) continue;
    CpuCheck c = check_on_cpu(*t.program, "none");
    EXPECT_TRUE(c.pass) << t.name << ": " << c.report;
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

}  // namespace
}  // namespace ekb::test
