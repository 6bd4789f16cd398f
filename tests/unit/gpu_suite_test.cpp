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

class OpenClSuite : public ::testing::TestWithParam<std::string> {};

// The three input sets run in one worker, so that the device is set up and the program built once
// (PoCL's start and build were most of a test's time, four times over).
TEST_P(OpenClSuite, DefaultScheduleMatchesTheReferenceOnTheDevice) {
  Task t = test::load_suite_task(GetParam());
  const Program& p = *t.program;
  DeviceProfile dev = find_device("opencl-any");
  std::string src = codegen::print_for_backend(lower_with(p, dev.target(), choose_schedule(p, dev.target(), "default")));
  std::vector<ReferenceResult> refs;
  std::vector<std::vector<TensorData>> inputs;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    refs.push_back(reference_outputs(p, seed));
    inputs.push_back(refs.back().inputs);
  }
  SingleRunSets r = run_isolated_sets(p, src, false, inputs, dev.threads, &dev);
  if (r.outcome == Outcome::unavailable) {  // skipped only where a probe finds no device either
    GpuProbe probe = probe_gpu(dev);
    if (!probe.ok) GTEST_SKIP() << "no OpenCL device: " << probe.why;
    FAIL() << "the device is here, but the run was refused: " << r.message;
  }
  ASSERT_EQ(r.outcome, Outcome::ok) << r.message << "\n" << r.compile_log;
  ASSERT_EQ(r.outputs.size(), refs.size());
  for (size_t i = 0; i < refs.size(); ++i)
    for (const auto& c : compare_outputs(p, r.outputs[i], refs[i].outputs))
      EXPECT_TRUE(c.pass) << "seed " << i + 1 << ", " << c.name << ": max rel error " << c.max_rel_error << " at "
                          << c.worst_index << " (got " << c.worst_got << ", want " << c.worst_want << ")";
}

std::vector<std::string> task_names() { return test::sampled_workloads(); }

INSTANTIATE_TEST_SUITE_P(Suite, OpenClSuite, ::testing::ValuesIn(task_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace ekb
