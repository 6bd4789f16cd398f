// Suite workloads compile with their default (baseline) schedule on the cpu backend and match the
// float64 reference: every pattern once and a stratified part of the rest (suite_sample.h; the whole
// suite: bench/suite/verify.sh host); plain loops (no schedule) too, for the small ones of those.
#include "cpu_test_util.h"
#include "suite/figures.h"
#include "suite/suite.h"
#include "suite_sample.h"

namespace ekb::test {
namespace {

class CpuSuite : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuSuite, DefaultScheduleMatchesReference) {
  Task t = load_suite_task(GetParam());
  CpuCheck c = check_on_cpu(*t.program, "default");
  EXPECT_TRUE(c.pass) << GetParam() << ": " << c.report;
}

std::vector<std::string> task_names() { return sampled_workloads(); }

INSTANTIATE_TEST_SUITE_P(Suite, CpuSuite, ::testing::ValuesIn(task_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

TEST(CpuSuitePlainLoops, SmallTasksMatchWithoutASchedule) {
  int checked = 0;
  Suite suite = Suite::load(source_suite_dir());
  for (const auto& name : task_names()) {
    const Task& t = *suite.find(name);
    if (compute_figures(*t.program).flops > 5e6) continue;
    CpuCheck c = check_on_cpu(*t.program, "none");
    EXPECT_TRUE(c.pass) << t.name << ": " << c.report;
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

}  // namespace
}  // namespace ekb::test
