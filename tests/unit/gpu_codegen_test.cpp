// The CUDA dialect of the one printer: suite tasks' default GPU schedules (every pattern once and a
// quarter of the other workloads: suite_sample.h) lower, print as CUDA
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
#include "suite_sample.h"
#include "util/source.h"

namespace ekb {
namespace {

codegen::GpuProgram cuda_program(const Program& p) {
  return codegen::print_gpu(lower_with(p, default_target(Backend::cuda), choose_schedule(p, default_target(Backend::cuda), "default")), codegen::cuda_dialect());
}

// Column sums read by every row: not a row group (default_gpu_rows.h), so two kernels, the sums in a
// scratch buffer between them.
TEST(CudaCodegen, TwoStagesBecomeTwoLaunchesWithAScratchBuffer) {
  auto p = load_program(std::make_shared<SourceFile>("sm.ekb", R"(kernel sm
  dim M = 64, N = 100
  in X : f32[M, N]
  out Y : f32[M, N]
  S[n] = sum(m) exp(X[m, n])
  Y[m, n] = exp(X[m, n]) / S[n]
)"));
  codegen::GpuProgram g = cuda_program(*p);
  ASSERT_EQ(g.contract.launches.size(), 2u);
  EXPECT_EQ(g.contract.launches[0].grid[0], 2u);   // S: 100 columns, a thread each, in blocks of 64 (few points)
  EXPECT_EQ(g.contract.launches[0].block[0], 64u);
  EXPECT_EQ(g.contract.launches[1].grid[0], 100u);  // Y: 6400 points in blocks of 64
  EXPECT_EQ(g.contract.launches[1].block[0], 64u);
  ASSERT_EQ(g.contract.scratch.size(), 1u);
  EXPECT_EQ(g.contract.scratch[0].name, "S");
  EXPECT_EQ(g.contract.scratch[0].bytes, 128u * 4);  // the points of its two blocks of 64 threads
  // (Each kernel promises its block's size: the compiler keeps its registers within what it allows.)
  EXPECT_NE(g.source.find("extern \"C\" __global__ void __launch_bounds__(64) ekb_k1(const float* __restrict__ X, float* __restrict__ Y, "
                          "float* __restrict__ S)"),
            std::string::npos)
      << g.source;
  EXPECT_NE(g.source.find("(int)blockIdx.x"), std::string::npos);
  EXPECT_EQ(g.source.find("#pragma omp"), std::string::npos);
}

// A kernel that reads a buffer it writes (here a recurrence over t) has no restrict-qualified
// parameters in OpenCL C: NVIDIA's OpenCL compiler (driver 580) read the recurrence's previous step
// through the non-coherent cache otherwise, and pcen's output came out 0 (Dialect::
// restrict_when_reading_written). The program's other kernels keep restrict, and CUDA keeps it
// everywhere (NVRTC compiles the same kernel correctly).
TEST(GpuCodegen, AKernelReadingWhatItWritesHasNoRestrictInOpenCl) {
  auto p = load_program(std::make_shared<SourceFile>("ema.ekb", R"(kernel ema
  dim T = 64, F = 8
  in E : f32[T, F]
  out Y : f32[T, F]
  M[t, f] = scan(t) 0.5 * select(t >= 1, M[t - 1, f], E[0, f]) + 0.5 * E[t, f]
  Y[t, f] = sqrt(M[t, f] + 1.0)
)"));
  Target t = default_target(Backend::opencl);
  auto lowered = lower_with(*p, t, choose_schedule(*p, t, "default"));
  codegen::GpuProgram cl = codegen::print_gpu(lowered, codegen::opencl_dialect());
  ASSERT_EQ(cl.contract.launches.size(), 2u) << cl.source;
  EXPECT_NE(cl.source.find("__kernel void ekb_k0(__global const float* E, __global float* Y, __global float* M)"),
            std::string::npos)
      << cl.source;
  EXPECT_NE(cl.source.find("__kernel void ekb_k1(__global const float* restrict E, __global float* restrict Y, "
                           "__global float* restrict M)"),
            std::string::npos)
      << cl.source;
  codegen::GpuProgram cu = cuda_program(*p);
  EXPECT_NE(cu.source.find(" ekb_k0(const float* __restrict__ E, float* __restrict__ Y, float* __restrict__ M)"),
            std::string::npos)
      << cu.source;
}

// Index arithmetic is 32-bit where every value provably fits (64-bit integer arithmetic costs a GPU
// two instructions or more), and 64-bit where it may not: a buffer of 2^32 elements is addressed in
// 64 bits, its loop variables stay 32-bit.
TEST(CudaCodegen, IndicesAre32BitWhereTheyProvablyFit) {
  auto small = load_program(std::make_shared<SourceFile>("small.ekb", R"(kernel small
  dim M = 64, N = 100
  in X : f32[M, N]
  out Y : f32[M, N]
  Y[m, n] = X[m, n] * 2.0
)"));
  std::string s = cuda_program(*small).source;
  s = s.substr(s.find("__global__"));  // the kernel, after the prelude's helpers
  EXPECT_NE(s.find("const int v_Y_"), std::string::npos) << s;
  EXPECT_EQ(s.find("const int64_t v_"), std::string::npos) << s;
  EXPECT_EQ(s.find("(int64_t)"), std::string::npos) << s;
  // The fused point index is split by / and % (non-negative over a positive constant), not the floor helpers.
  EXPECT_EQ(s.find("ekb_fdiv(v_"), std::string::npos) << s;
  EXPECT_EQ(s.find("ekb_fmod(v_"), std::string::npos) << s;

  auto big = load_program(std::make_shared<SourceFile>("big.ekb", R"(kernel big
  dim M = 65536, N = 65536
  in X : f32[M, N]
  out Y : f32[M]
  Y[m] = X[m, 0] + X[m, N - 1]
)"));
  std::string b = cuda_program(*big).source;
  b = b.substr(b.find("__global__"));
  EXPECT_NE(b.find("X[(int64_t)"), std::string::npos) << b;
  EXPECT_EQ(b.find("const int64_t v_"), std::string::npos) << b;  // m < 65536 still fits
}

class CudaSuite : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaSuite, DefaultScheduleCompilesWithNvrtc) {
  Task task = test::load_suite_task(GetParam());
  const Task* t = &task;
  codegen::GpuProgram g = cuda_program(*t->program);
  ASSERT_FALSE(g.contract.launches.empty());
  for (const auto& l : g.contract.launches) EXPECT_LE(l.threads_per_block(), 1024u) << l.kernel;
  std::string why;
  if (!gpu::nvrtc_available(&why)) GTEST_SKIP() << why;
  gpu::NvrtcResult r = gpu::nvrtc_compile(g.source, t->name + ".cu", "sm_90");
  EXPECT_TRUE(r.ok) << r.log << "\n" << g.source.substr(0, 6000);
}

std::vector<std::string> task_names() { return test::sampled_workloads(); }

INSTANTIATE_TEST_SUITE_P(Suite, CudaSuite, ::testing::ValuesIn(task_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace ekb
