// Suite workloads' default GPU schedules (every pattern once and a stratified part of the rest:
// suite_sample.h; the whole suite: bench/suite/verify.sh pocl-cpu), run for real on the OpenCL
// device this machine has (PoCL on the CPU in CI; NVIDIA's OpenCL on the GPU machine) in a GPU
// worker, and their outputs compared with the float64 reference on all three input sets. Skipped,
// with the reason, where there is no OpenCL device at all. (The CUDA side of the suite, where a GPU
// is: bench/suite/verify.sh h200-cuda.)
#include <gtest/gtest.h>

#include "codegen/c_printer.h"
#include "harness/compare.h"
#include "harness/gpu_probe.h"
#include "harness/single_run.h"
#include "interp/reference.h"
#include "lower/schedule_choice.h"
#include "suite/suite.h"
#include "suite_sample.h"

namespace ekb {
namespace {

const GpuProbe& opencl() {
  static GpuProbe p = probe_gpu(find_device("opencl-any"));
  return p;
}

class OpenClSuite : public ::testing::TestWithParam<std::string> {};

TEST_P(OpenClSuite, DefaultScheduleMatchesTheReferenceOnTheDevice) {
  if (!opencl().ok) GTEST_SKIP() << "no OpenCL device: " << opencl().why;
  Task t = test::load_suite_task(GetParam());
  const Program& p = *t.program;
  DeviceProfile dev = find_device("opencl-any");
  std::string src = codegen::print_for_backend(lower_with(p, dev.target(), choose_schedule(p, dev.target(), "default")));
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    ReferenceResult ref = reference_outputs(p, seed);
    SingleRun r = run_isolated(p, src, false, ref.inputs, dev.threads, false, 0, 0, &dev);
    ASSERT_EQ(r.outcome, Outcome::ok) << "seed " << seed << ": " << r.message << "\n" << r.compile_log;
    for (const auto& c : compare_outputs(p, r.outputs, ref.outputs))
      EXPECT_TRUE(c.pass) << "seed " << seed << ", " << c.name << ": max rel error " << c.max_rel_error << " at "
                          << c.worst_index << " (got " << c.worst_got << ", want " << c.worst_want << ")";
  }
}

std::vector<std::string> task_names() { return test::sampled_workloads(); }

INSTANTIATE_TEST_SUITE_P(Suite, OpenClSuite, ::testing::ValuesIn(task_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace ekb
