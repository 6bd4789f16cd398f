// The default GPU schedule's rules (src/schedule/default_gpu.cpp, docs/baseline.md), pinned on small
// kernels: row chains (softmax, layer norm, an L2 norm) fused into one launch with their reductions
// shared by each row's threads (reductions inside expressions hoisted into stages first), a warp per short row and several rows per block, a thread per very
// short row, row sums at the root shared by threads, several elements per thread for a large
// streaming stage, and every suite workload's default within the stricter profiles' limits
// (jetson-orin-cuda, mali-g57-opencl). Compile-only: running them is the suite tests' job.
#include <gtest/gtest.h>

#include "codegen/c_printer.h"
#include "codegen/dialect.h"
#include "harness/device_profiles.h"
#include "ir/check.h"
#include "lower/schedule_choice.h"
#include "schedule/default_schedule.h"
#include "suite_sample.h"
#include "util/source.h"

namespace ekb {
namespace {

std::shared_ptr<Program> load(const std::string& text) { return load_program(std::make_shared<SourceFile>("t.ekb", text)); }

codegen::GpuProgram program_for(const Program& p, const Target& t) {
  return codegen::print_gpu(lower_with(p, t, choose_schedule(p, t, "default")), codegen::dialect_for(t.backend));
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const char* kSoftmax = R"(kernel softmax_rows
  dim R = 8, C = 1024
  in X : f32[R, C]
  out Y : f32[R, C]
  M[r] = max(c) X[r, c]
  E[r, c] = exp(X[r, c] - M[r])
  S[r] = sum(c) E[r, c]
  Y[r, c] = E[r, c] / S[r]
)";

TEST(GpuDefaultSchedule, ARowSoftmaxIsOneLaunchWithItsReductionsSharedByTheRowsThreads) {
  auto p = load(kSoftmax);
  Target t = default_target(Backend::cuda);
  std::string s = default_schedule_text(*p, t);
  EXPECT_TRUE(has(s, "E: inline")) << s;  // exp recomputed by both readers, not stored
  EXPECT_TRUE(has(s, "M: compute_at Y r")) << s;
  EXPECT_TRUE(has(s, "S: compute_at Y r")) << s;
  EXPECT_TRUE(has(s, "Y: split c 128 -> c_o c_t; reorder c_t c_o; bind c_t thread.x; bind r block.x")) << s;
  EXPECT_TRUE(has(s, "M: split c 128 -> c_o c_t; reorder c_t c_o; bind c_t thread.x")) << s;
  codegen::GpuProgram g = program_for(*p, t);
  ASSERT_EQ(g.contract.launches.size(), 1u) << s;
  EXPECT_EQ(g.contract.launches[0].grid[0], 8u);  // a block per row
  EXPECT_EQ(g.contract.launches[0].block[0], 128u);  // 1024 columns, about 8 per thread
  EXPECT_TRUE(g.contract.scratch.empty());
  EXPECT_TRUE(has(g.source, "__shfl_down_sync")) << g.source;
  // The same on OpenCL, and the same whatever the GPU's size (the rules read only per-block limits).
  std::string cl = default_schedule_text(*p, default_target(Backend::opencl));
  EXPECT_TRUE(has(cl, "schedule opencl") && has(cl, "M: compute_at Y r")) << cl;
  EXPECT_EQ(default_schedule_text(*p, find_device("h200-cuda").target()), s);
  EXPECT_EQ(default_schedule_text(*p, t), s);  // deterministic
}

// The bench's layer norm (bench/gpu/layernorm_8192.ekb at a small size): the two row sums are stages
// of their own; the mean and the reciprocal deviation, per row, are inlined; one launch.
TEST(GpuDefaultSchedule, ALayerNormIsOneLaunch) {
  auto p = load(R"(kernel ln
  dim T = 64, D = 768
  const eps = 1e-5
  in X : f32[T, D]
  in G : f32[D]
  in B : f32[D]
  out Y : f32[T, D]
  S1[t] = sum(d) X[t, d]
  Mu[t] = S1[t] / D
  S2[t] = sum(d) (X[t, d] - Mu[t]) * (X[t, d] - Mu[t])
  R[t] = rsqrt(S2[t] / D + eps)
  Y[t, d] = (X[t, d] - Mu[t]) * R[t] * G[d] + B[d]
)");
  Target t = default_target(Backend::cuda);
  std::string s = default_schedule_text(*p, t);
  EXPECT_TRUE(has(s, "S1: compute_at Y t") && has(s, "S2: compute_at Y t")) << s;
  codegen::GpuProgram g = program_for(*p, t);
  ASSERT_EQ(g.contract.launches.size(), 1u) << s;
  EXPECT_EQ(g.contract.launches[0].grid[0], 64u);
  EXPECT_EQ(g.contract.launches[0].block[0], 128u);  // 768 columns: 96 threads of 8, rounded up to a power of two
}

// The suite's form of layer norm: the mean and the variance are reductions inside expressions. Each is
// hoisted into a stage of its own (hoist_reduction), which then joins the row group: one launch.
TEST(GpuDefaultSchedule, ReductionsInsideExpressionsAreHoistedIntoTheRowGroup) {
  auto p = load(R"(kernel ln
  dim T = 64, D = 128
  const eps = 1e-5
  in X : f32[T, D]
  out Y : f32[T, D]
  Mu[t] = (sum(d) X[t, d]) / D
  Var[t] = (sum(d) (X[t, d] - Mu[t]) * (X[t, d] - Mu[t])) / D
  Y[t, d] = (X[t, d] - Mu[t]) * rsqrt(Var[t] + eps)
)");
  Target t = default_target(Backend::cuda);
  std::string s = default_schedule_text(*p, t);
  EXPECT_TRUE(has(s, "Mu: hoist_reduction -> Mu_sum") && has(s, "Var: hoist_reduction -> Var_sum")) << s;
  EXPECT_TRUE(has(s, "Mu_sum: split d 32 -> d_o d_t; reorder d_t d_o; bind d_t thread.x")) << s;
  EXPECT_TRUE(has(s, "Mu_sum: compute_at Y t_t") && has(s, "Mu: hoist_reduction -> Mu_sum; compute_at Y t_t")) << s;
  codegen::GpuProgram g = program_for(*p, t);
  ASSERT_EQ(g.contract.launches.size(), 1u) << s;
  EXPECT_EQ(g.contract.launches[0].block[0], 32u);  // a warp per row of 128, 8 rows per block
  EXPECT_EQ(g.contract.launches[0].block[1], 8u);
  // A reduction inside an expression that no group reads per row stays where it is.
  auto alone = load(R"(kernel msq
  dim N = 64, D = 128
  in X : f32[N, D]
  out Y : f32[N]
  Y[n] = (sum(d) X[n, d] * X[n, d]) / D
)");
  EXPECT_FALSE(has(default_schedule_text(*alone, t), "hoist_reduction"));
}

// Short rows: a warp per row (32 threads for 29 columns), 8 rows per block (a divisor of the 400
// rows, so no guarded tail surrounds the reductions).
TEST(GpuDefaultSchedule, ShortRowsGetAWarpEachAndShareBlocks) {
  auto p = load(R"(kernel ls
  dim R = 400, C = 29
  in X : f32[R, C]
  out Y : f32[R, C]
  M[r] = max(c) X[r, c]
  S[r] = sum(c) exp(X[r, c] - M[r])
  Y[r, c] = X[r, c] - M[r] - log(S[r])
)");
  Target t = default_target(Backend::cuda);
  std::string s = default_schedule_text(*p, t);
  EXPECT_TRUE(has(s, "split r 8 -> r_b r_t; bind r_b block.x; bind r_t thread.y")) << s;
  EXPECT_TRUE(has(s, "M: compute_at Y r_t")) << s;
  codegen::GpuProgram g = program_for(*p, t);
  ASSERT_EQ(g.contract.launches.size(), 1u) << s;
  EXPECT_EQ(g.contract.launches[0].grid[0], 50u);
  EXPECT_EQ(g.contract.launches[0].block[0], 32u);
  EXPECT_EQ(g.contract.launches[0].block[1], 8u);
}

// Rows of fewer than 8 elements: a thread per row, its reductions serial in the thread; still one launch.
TEST(GpuDefaultSchedule, VeryShortRowsGetAThreadEach) {
  auto p = load(R"(kernel tiny
  dim R = 1000, C = 4
  in X : f32[R, C]
  out Y : f32[R, C]
  S[r] = sum(c) X[r, c] * X[r, c]
  Y[r, c] = X[r, c] / sqrt(S[r] + 1.0)
)");
  Target t = default_target(Backend::cuda);
  std::string s = default_schedule_text(*p, t);
  EXPECT_TRUE(has(s, "S: compute_at Y r_t")) << s;
  EXPECT_FALSE(has(s, "S: split")) << s;
  codegen::GpuProgram g = program_for(*p, t);
  ASSERT_EQ(g.contract.launches.size(), 1u) << s;
  EXPECT_EQ(g.contract.launches[0].block[0], 64u);  // 1000 rows: blocks of 64 threads, 16 blocks
}

// An element-wise stage that only the row chain reads, once per element and reader (a mask's select,
// kept out of the readers by the shared rule because it is read inside a reduction), is recomputed there.
TEST(GpuDefaultSchedule, AMaskedStageReadByTheRowChainIsRecomputed) {
  auto p = load(R"(kernel l2n
  dim R = 32, D = 384
  const eps = 1e-12
  in X : f32[R, D]
  in Valid : bool[R]
  out Y : f32[R, D]
  Xv[r, d] = select(Valid[r], X[r, d], 0.0)
  Nrm[r] = sum(d) Xv[r, d] * Xv[r, d]
  Y[r, d] = Xv[r, d] / max(sqrt(Nrm[r]), eps)
)");
  Target t = default_target(Backend::cuda);
  std::string s = default_schedule_text(*p, t);
  EXPECT_TRUE(has(s, "Xv: inline")) << s;
  EXPECT_TRUE(has(s, "Nrm: compute_at Y r")) << s;
  EXPECT_EQ(program_for(*p, t).contract.launches.size(), 1u) << s;
}

// Column sums are not per row of their reader: they keep a kernel of their own, a thread per column
// (consecutive threads read consecutive columns; a few columns only would share each column's sum
// among a block's threads instead).
TEST(GpuDefaultSchedule, ColumnSumsAreNotARowGroup) {
  auto p = load(R"(kernel cols
  dim M = 512, N = 4096
  in X : f32[M, N]
  out Y : f32[M, N]
  S[n] = sum(m) X[m, n]
  Y[m, n] = X[m, n] - S[n] / M
)");
  Target t = default_target(Backend::cuda);
  std::string s = default_schedule_text(*p, t);
  EXPECT_FALSE(has(s, "compute_at")) << s;
  EXPECT_TRUE(has(s, "S: split n 64 -> n_b n_t")) << s;
  EXPECT_EQ(program_for(*p, t).contract.launches.size(), 2u);
}

// A reduction at the root read along its length (each output a row's sum): a warp per row, rows
// sharing blocks; a long one into few points: a block per point; a matrix product: a thread per point.
TEST(GpuDefaultSchedule, RowSumsAtTheRootAreSharedByThreads) {
  auto p = load(R"(kernel rows
  dim R = 100000, C = 64
  in X : f32[R, C]
  out Y : f32[R]
  Y[r] = sum(c) X[r, c]
)");
  Target t = default_target(Backend::cuda);
  codegen::GpuProgram g = program_for(*p, t);
  ASSERT_EQ(g.contract.launches.size(), 1u);
  EXPECT_EQ(g.contract.launches[0].block[0], 32u);
  EXPECT_EQ(g.contract.launches[0].block[1], 8u);
  EXPECT_EQ(g.contract.launches[0].grid[0], 12500u);
  auto total = load(R"(kernel total
  dim N = 1048576
  in X : f32[N]
  out Y : f32[1]
  Y[z] = sum(i) X[i]
)");
  g = program_for(*total, t);
  ASSERT_EQ(g.contract.launches.size(), 1u);
  EXPECT_EQ(g.contract.launches[0].block[0], 512u);
  // A matrix product reads B along its points' columns: a thread per point reads it coalesced (and A
  // the same for neighbouring threads), so its reduction stays in the thread.
  auto mm = load(R"(kernel mm
  dim M = 256, N = 256, K = 256
  in A : f32[M, K]
  in B : f32[K, N]
  out C : f32[M, N]
  C[m, n] = sum(k) A[m, k] * B[k, n]
)");
  std::string s = default_schedule_text(*mm, t);
  EXPECT_FALSE(has(s, "thread.y") || has(s, "k_t")) << s;
  EXPECT_TRUE(has(s, "C: fuse m n -> m_n; split m_n 256 -> m_n_b m_n_t")) << s;
}

// A large streaming element-wise stage: 4 elements per thread, a block's width apart, 256 threads; a
// small one: one per thread, in smaller blocks so that the grid still has 128 of them.
TEST(GpuDefaultSchedule, LargeStreamingStagesTakeSeveralElementsPerThread) {
  Target t = default_target(Backend::cuda);
  auto big = load(R"(kernel big
  dim N = 4194304
  in X : f32[N]
  out Y : f32[N]
  Y[i] = X[i] * 1.5 + 0.25
)");
  std::string s = default_schedule_text(*big, t);
  EXPECT_TRUE(has(s, "Y: split i 1024 -> i_b i_r; split i_r 256 -> i_u i_t; reorder i_t i_u; bind i_b block.x; bind i_t thread.x; unroll i_u"))
      << s;
  codegen::GpuProgram g = program_for(*big, t);
  EXPECT_EQ(g.contract.launches[0].grid[0], 4096u);
  EXPECT_EQ(g.contract.launches[0].block[0], 256u);
  auto small = load(R"(kernel small
  dim N = 8192
  in X : f32[N]
  out Y : f32[N]
  Y[i] = X[i] * 1.5 + 0.25
)");
  g = program_for(*small, t);
  EXPECT_EQ(g.contract.launches[0].grid[0], 128u);
  EXPECT_EQ(g.contract.launches[0].block[0], 64u);
}

// The stricter profiles: a Mali-G57-class OpenCL device (384 work-items and 32 KiB of local memory per
// work-group) and a Jetson Orin-class CUDA one (1024 threads, 48 KiB). Lowering checks the shared
// memory and the barriers; every launch's threads must fit the profile too.
TEST(GpuDefaultSchedule, RowChainsFitTheStricterProfiles) {
  auto p = load(kSoftmax);
  for (const char* profile : {"mali-g57-opencl", "jetson-orin-cuda"}) {
    Target t = find_device(profile).target();
    codegen::GpuProgram g = program_for(*p, t);
    ASSERT_EQ(g.contract.launches.size(), 1u) << profile;
    EXPECT_LE(g.contract.launches[0].threads_per_block(), static_cast<uint64_t>(t.max_threads_per_block)) << profile;
  }
  // 8192 columns: 512 threads per row on a GPU that allows them, 256 on one that allows 384.
  auto wide = load(R"(kernel wide
  dim R = 4, C = 8192
  in X : f32[R, C]
  out Y : f32[R, C]
  M[r] = max(c) X[r, c]
  Y[r, c] = exp(X[r, c] - M[r])
)");
  EXPECT_EQ(program_for(*wide, find_device("jetson-orin-cuda").target()).contract.launches[0].block[0], 512u);
  EXPECT_EQ(program_for(*wide, find_device("mali-g57-opencl").target()).contract.launches[0].block[0], 256u);
}

class StrictProfileSuite : public ::testing::TestWithParam<std::string> {};

TEST_P(StrictProfileSuite, TheDefaultScheduleFitsJetsonAndMaliLimits) {
  Task task = test::load_suite_task(GetParam());
  for (const char* profile : {"mali-g57-opencl", "jetson-orin-cuda"}) {
    Target t = find_device(profile).target();
    codegen::GpuProgram g;
    try {
      g = program_for(*task.program, t);  // lowering refuses a block beyond the target's limits
    } catch (const std::exception& e) {
      FAIL() << profile << ": " << e.what();
    }
    for (const auto& l : g.contract.launches)
      EXPECT_LE(l.threads_per_block(), static_cast<uint64_t>(t.max_threads_per_block)) << profile << " " << l.kernel;
  }
}

INSTANTIATE_TEST_SUITE_P(Suite, StrictProfileSuite, ::testing::ValuesIn(test::sampled_workloads()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace ekb
