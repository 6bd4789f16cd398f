// The CUDA dialect of the one printer: every suite task's default GPU schedule lowers, prints as CUDA
// C with one kernel per root loop nest and launch sizes from its bound loops, and compiles with NVRTC
// for sm_90 (where NVRTC is installed; skipped with the reason elsewhere). Running the kernels needs a
// GPU: scripts/gpu-machine.sh on the H200 machine.
#include <gtest/gtest.h>

#include "codegen/c_printer.h"
#include "codegen/dialect.h"
#include "ir/check.h"
#include "runtime/gpu/nvrtc.h"
#include "lower/schedule_choice.h"
#include "suite/suite.h"
#include "util/source.h"

namespace ekb {
namespace {

const Suite& suite() {
  static Suite s = Suite::load(std::string(EKB_SOURCE_DIR) + "/suite");
  return s;
}

codegen::GpuProgram cuda_program(const Program& p) {
  return codegen::print_gpu(lower_with(p, default_target(Backend::cuda), choose_schedule(p, default_target(Backend::cuda), "default")), codegen::cuda_dialect());
}

TEST(CudaCodegen, TwoStagesBecomeTwoLaunchesWithAScratchBuffer) {
  auto p = load_program(std::make_shared<SourceFile>("sm.ekb", R"(kernel sm
  dim M = 64, N = 100
  in X : f32[M, N]
  out Y : f32[M, N]
  S[m] = sum(n) exp(X[m, n])
  Y[m, n] = exp(X[m, n]) / S[m]
)"));
  codegen::GpuProgram g = cuda_program(*p);
  ASSERT_EQ(g.contract.launches.size(), 2u);
  EXPECT_EQ(g.contract.launches[0].grid[0], 1u);   // S: 64 rows, one block of 64 threads
  EXPECT_EQ(g.contract.launches[0].block[0], 64u);
  EXPECT_EQ(g.contract.launches[1].grid[0], 25u);  // Y: 6400 points in blocks of 256
  EXPECT_EQ(g.contract.launches[1].block[0], 256u);
  ASSERT_EQ(g.contract.scratch.size(), 1u);
  EXPECT_EQ(g.contract.scratch[0].name, "S");
  EXPECT_EQ(g.contract.scratch[0].bytes, 64u * 4);
  EXPECT_NE(g.source.find("extern \"C\" __global__ void ekb_k1(const float* __restrict__ X, float* __restrict__ Y, "
                          "float* __restrict__ S)"),
            std::string::npos)
      << g.source;
  EXPECT_NE(g.source.find("(int64_t)blockIdx.x"), std::string::npos);
  EXPECT_EQ(g.source.find("#pragma omp"), std::string::npos);
}

class CudaSuite : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaSuite, DefaultScheduleCompilesWithNvrtc) {
  const Task* t = suite().find(GetParam());
  ASSERT_TRUE(t);
  codegen::GpuProgram g = cuda_program(*t->program);
  ASSERT_FALSE(g.contract.launches.empty());
  for (const auto& l : g.contract.launches) EXPECT_LE(l.threads_per_block(), 1024u) << l.kernel;
  std::string why;
  if (!gpu::nvrtc_available(&why)) GTEST_SKIP() << why;
  gpu::NvrtcResult r = gpu::nvrtc_compile(g.source, t->name + ".cu", "sm_90");
  EXPECT_TRUE(r.ok) << r.log << "\n" << g.source.substr(0, 6000);
}

std::vector<std::string> task_names() {
  std::vector<std::string> v;
  for (const auto& t : suite().tasks()) v.push_back(t.name);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Suite, CudaSuite, ::testing::ValuesIn(task_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace ekb
