// One GPU attempt end to end (harness/evaluate.h with a GPU target, run by ekb-gpu-worker): raw CUDA
// and OpenCL candidates with their launch contracts are checked and timed against the default GPU
// schedule on the same device, and the ways a GPU kernel can fail are classified: wrong results, a
// write past its buffer, changed inputs, a hung kernel (the worker is replaced), launches beyond the
// profile's limits, scratch beyond its budget, no contract, no such device; every timed attempt
// measures the launch floor beside its times. The OpenCL cases run on
// any OpenCL device (PoCL in CI, on the CPU); the CUDA cases where a GPU is, else skipped.
#include <gtest/gtest.h>

#include <string>

#include "codegen/c_printer.h"
#include "harness/evaluate.h"
#include "harness/gpu_probe.h"
#include "ir/check.h"
#include "lower/schedule_choice.h"
#include "scale_add_task.h"
#include "util/source.h"

namespace ekb {
namespace {

const char* kTask = test::kScaleAddTask;

const char* kSoftmax = R"(kernel sm
  dim M = 64, N = 100
  in X : f32[M, N]
  out Y : f32[M, N]
  S[m] = sum(n) exp(X[m, n])
  Y[m, n] = exp(X[m, n]) / S[m]
)";

// Columns normalized by their sums: the sums are not per row of Y, so they are a kernel of their own
// whose results Y's kernel reads from a scratch buffer.
const char* kColumnNorm = R"(kernel colnorm
  dim M = 64, N = 100
  in X : f32[M, N]
  out Y : f32[M, N]
  S[n] = sum(m) exp(X[m, n])
  Y[m, n] = exp(X[m, n]) / S[n]
)";

std::shared_ptr<Program> load(const char* text) { return load_program(std::make_shared<SourceFile>("t.ekb", text)); }

class GpuEvaluate : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dev_.name = "test";
    dev_.backend = parse_backend(GetParam());
    GpuProbe p = probe_gpu(dev_);
    if (!p.ok) GTEST_SKIP() << GetParam() << ": " << p.why;
  }
  EvalOptions quick() const {
    EvalOptions o;
    o.min_seconds = 0.01;
    o.min_reps = 5;
    o.max_wall_seconds = 3;
    o.call_timeout_ms = 4000;
    o.gpu = dev_.gpu;
    o.backend = dev_.backend;
    o.profile = "test";
    return o;
  }
  std::string baseline(const Program& p) const {
    return codegen::print_for_backend(lower_with(p, dev_.target(), choose_schedule(p, dev_.target(), "default")));
  }
  // A one-kernel raw program for scale_add: `body` sees i (the thread's element), n, x and y.
  std::string raw(const std::string& body, const std::string& launch = "@launch ekb_k0 grid(32) block(256)") const {
    if (dev_.backend == Backend::cuda)
      return "// " + launch + "\nextern \"C\" __global__ void ekb_k0(const float* x, float* y) {\n  const int n = 8192;\n"
             "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n" + body + "\n}\n";
    return "// " + launch + "\n__kernel void ekb_k0(__global const float* x, __global float* y) {\n  const int n = 8192;\n"
           "  int i = get_global_id(0);\n" + body + "\n}\n";
  }
  Evaluation eval(const std::string& body, EvalOptions o) {
    auto p = load(kTask);
    return evaluate(*p, raw(body), false, baseline(*p), o);
  }
  Evaluation eval(const std::string& body) { return eval(body, quick()); }
  DeviceProfile dev_;
};

TEST_P(GpuEvaluate, CorrectRawKernelIsTimedOnTheDeviceAgainstTheDefaultSchedule) {
  // The rounds asked for, whatever the machine's load (other tests run beside this one): no wall-time
  // cap before them, and no interval to narrow after them.
  EvalOptions o = quick();
  o.max_wall_seconds = 120;
  o.max_interval_half_width = 1e9;
  Evaluation e = eval("  if (i < n) y[i] = x[i] * 2.0f + 1.0f;", o);
  ASSERT_EQ(e.outcome, Outcome::ok) << e.message;
  EXPECT_GE(e.candidate.ms.size(), 5u);
  EXPECT_EQ(e.candidate.ms.size(), e.baseline.ms.size());
  EXPECT_GT(e.candidate.median, 0.0);
  EXPECT_GT(e.speedup, 0.0);
  EXPECT_FALSE(e.device.empty());
  EXPECT_FALSE(e.compiler.empty());
}

TEST_P(GpuEvaluate, DefaultScheduleOfATwoStageTaskPassesWithItsScratchBuffer) {
  auto p = load(kColumnNorm);
  Evaluation e = evaluate(*p, baseline(*p), false, baseline(*p), quick());
  ASSERT_EQ(e.outcome, Outcome::ok) << e.message;
  EXPECT_EQ(e.candidate_memory, 128u * 4);  // S (its two blocks' 128 points), in device memory
}

// A row softmax's default is one kernel: the row's sum is computed in the block that writes the row
// (a cross-thread reduction), so no scratch buffer holds it between kernels.
TEST_P(GpuEvaluate, DefaultScheduleOfARowSoftmaxIsCorrectWithoutScratch) {
  auto p = load(kSoftmax);
  Evaluation e = evaluate(*p, baseline(*p), false, baseline(*p), quick());
  ASSERT_EQ(e.outcome, Outcome::ok) << e.message;
  EXPECT_EQ(e.candidate_memory, 0u);
}

// Every GPU attempt measures its launch floor: an empty kernel, in the baseline's worker, timed as the
// calls are (the device's time, positive). An attempt that fails before its timing has none.
TEST_P(GpuEvaluate, TheLaunchFloorIsMeasuredWithEveryAttempt) {
  EvalOptions o = quick();
  o.max_wall_seconds = 120;
  o.max_interval_half_width = 1e9;
  Evaluation e = eval("  if (i < n) y[i] = x[i] * 2.0f + 1.0f;", o);
  ASSERT_EQ(e.outcome, Outcome::ok) << e.message;
  EXPECT_GT(e.floor_ms, 0.0);
  EXPECT_LT(e.floor_ms, 1000.0);
  Evaluation w = eval("  if (i < n) y[i] = x[i];");
  EXPECT_EQ(w.outcome, Outcome::wrong);
  EXPECT_EQ(w.floor_ms, 0.0);
}

// A block tile whose shared panels are double-buffered (double_buffer: the next panels staged in
// registers while the block computes on these), with a K of 8 steps: correct on three input sets.
TEST_P(GpuEvaluate, ADoubleBufferedBlockTileIsCorrect) {
  std::string b = GetParam();
  std::string text = std::string(R"(kernel mm
  dim M = 64, N = 96, K = 128
  in A : f32[M, K]
  in B : f32[K, N]
  out C : f32[M, N]
  C[m, n] = sum(k) A[m, k] * B[k, n]
schedule )") + b + R"(
  C: tile m n 32 32 -> bm bn mi ni; split mi 4 -> ty my; split ni 4 -> tx ny; reorder bm bn ty tx my ny; bind bm block.y; bind bn block.x; bind ty thread.y; bind tx thread.x
  Cl: split k 16 -> ko ki; reorder ko ki m n; unroll ki; unroll m 4; unroll n 4
  As: fuse ax0 ax1 -> f; split f 64 -> fo fi; split fi 8 -> ty tx; bind ty thread.y; bind tx thread.x
  Bs: fuse ax0 ax1 -> f; split f 64 -> fo fi; split fi 8 -> ty tx; bind ty thread.y; bind tx thread.x
memory )" + b + R"(
  C: cache_write local at tx -> Cl
  Cl: cache_read A shared at ko -> As; cache_read B shared at ko -> Bs; double_buffer As; double_buffer Bs
)";
  auto p = load(text.c_str());
  std::string src = codegen::print_for_backend(lower_with(*p, dev_.target(), choose_schedule(*p, dev_.target(), "")));
  EXPECT_NE(src.find("b_As_staged"), std::string::npos) << src;
  Evaluation e = evaluate(*p, src, false, baseline(*p), quick());
  EXPECT_EQ(e.outcome, Outcome::ok) << e.message;
}

// Strided thread columns (two groups of 2, 32 apart) with 4-wide panel copies: the register tile
// holds just the thread's points (strided_region.h). With N = 96 the last column block runs past
// N, so there the reads' points are not all inside C: the region falls back to the box (guarded;
// and single-buffered: double_buffer needs copies of a constant size).
TEST_P(GpuEvaluate, AStridedRegisterTileIsCorrectWithAndWithoutTails) {
  std::string b = GetParam();
  for (const char* n : {"128", "96"}) {
    std::string text = std::string(R"(kernel mm
  dim M = 64, N = )") + n + R"(, K = 64
  in A : f32[M, K]
  in B : f32[K, N]
  out C : f32[M, N]
  C[m, n] = sum(k) A[m, k] * B[k, n]
schedule )" + b + R"(
  C: tile m n 32 64 -> bm bn mi ni; split mi 4 -> ty my; split ni 32 -> no nq; split nq 2 -> tx ny; reorder bm bn ty tx my no ny; bind bm block.y; bind bn block.x; bind ty thread.y; bind tx thread.x
  Cl: split k 16 -> ko ki; reorder ko ki m n; unroll ki; unroll m 4; unroll n 4
  As: fuse ax0 ax1 -> f; split f 4 -> fq fv; split fq 128 -> fo fi; split fi 16 -> ty tx; bind ty thread.y; bind tx thread.x
  Bs: fuse ax0 ax1 -> f; split f 4 -> fq fv; split fq 128 -> fo fi; split fi 16 -> ty tx; bind ty thread.y; bind tx thread.x
memory )" + b + R"(
  C: cache_write local at tx -> Cl
  Cl: cache_read A shared at ko -> As; cache_read B shared at ko -> Bs)" + std::string(std::string(n) == "128" ? "; double_buffer As; double_buffer Bs" : "") + R"(
)";
    auto p = load(text.c_str());
    std::string src = codegen::print_for_backend(lower_with(*p, dev_.target(), choose_schedule(*p, dev_.target(), "")));
    // 4 x 4 points when N = 128; a box of whole rows when the tail forbids the strided region.
    EXPECT_EQ(src.find("float b_Cl[16]") != std::string::npos, std::string(n) == "128") << n << "\n" << src;
    Evaluation e = evaluate(*p, src, false, baseline(*p), quick());
    EXPECT_EQ(e.outcome, Outcome::ok) << n << ": " << e.message;
  }
}

TEST_P(GpuEvaluate, WrongResultsAreWrong) {
  Evaluation e = eval("  if (i < n) y[i] = x[i] * 2.0f;");
  EXPECT_EQ(e.outcome, Outcome::wrong) << e.message;
}

TEST_P(GpuEvaluate, PartialWritesAreWrong) {
  Evaluation e = eval("  if (i < n - 1) y[i] = x[i] * 2.0f + 1.0f;");
  EXPECT_EQ(e.outcome, Outcome::wrong) << e.message;
}

TEST_P(GpuEvaluate, AWritePastTheOutputIsOutOfBounds) {
  Evaluation e = eval("  if (i < n) y[i] = x[i] * 2.0f + 1.0f;\n  if (i == 0) y[n + 5] = 1.0f;");
  EXPECT_EQ(e.outcome, Outcome::out_of_bounds) << e.message;
}

TEST_P(GpuEvaluate, AWriteFarPastOrBeforeABufferIsOutOfBounds) {
  // 64 KiB past the output (16384 floats), far beyond the 4 KiB host guard: the device guard zone.
  Evaluation past = eval("  if (i < n) y[i] = x[i] * 2.0f + 1.0f;\n  if (i == 0) y[n + 16384] = 1.0f;");
  EXPECT_EQ(past.outcome, Outcome::out_of_bounds) << past.message;
  EXPECT_NE(past.message.find("past argument 1"), std::string::npos) << past.message;
  Evaluation before = eval("  if (i < n) y[i] = x[i] * 2.0f + 1.0f;\n  if (i == 0) y[-1000] = 1.0f;");
  EXPECT_EQ(before.outcome, Outcome::out_of_bounds) << before.message;
  EXPECT_NE(before.message.find("before argument 1"), std::string::npos) << before.message;
}

TEST_P(GpuEvaluate, ChangingAnInputIsCaught) {
  std::string cast = GetParam() == "cuda" ? "((float*)x)" : "((__global float*)x)";
  Evaluation e = eval("  if (i < n) { y[i] = x[i] * 2.0f + 1.0f; " + cast + "[i] = 0.0f; }");
  EXPECT_EQ(e.outcome, Outcome::input_mutated) << e.message;
}

TEST_P(GpuEvaluate, AHungKernelTimesOutAndTheNextAttemptRuns) {
  EvalOptions o = quick();
  o.call_timeout_ms = 2000;
  // Stores to device memory on every turn: a loop the compiler must keep (inputs are never NaN).
  Evaluation e = eval("  for (;;) {\n    if (i < n) y[i] = x[i] * 2.0f + 1.0f;\n    if (x[0] != x[0]) break;\n  }", o);
  EXPECT_EQ(e.outcome, Outcome::timeout) << e.message;
  EXPECT_NE(e.message.find("launch 1 of 1 (ekb_k0"), std::string::npos) << "the hung launch is named: " << e.message;
  Evaluation again = eval("  if (i < n) y[i] = x[i] * 2.0f + 1.0f;");
  EXPECT_EQ(again.outcome, Outcome::ok) << again.message;
}

TEST_P(GpuEvaluate, ALaunchBeyondTheProfilesThreadsPerBlockIsRejectedWithTheFix) {
  EvalOptions o = quick();
  o.gpu->max_threads_per_block = 128;
  Evaluation e = eval("  if (i < n) y[i] = x[i] * 2.0f + 1.0f;", o);
  EXPECT_EQ(e.outcome, Outcome::launch_limits) << e.message;
  EXPECT_NE(e.message.find("256 threads per block"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("at most 128"), std::string::npos) << e.message;
}

TEST_P(GpuEvaluate, ScratchBeyondTheBudgetIsOverBudget) {
  auto p = load(kColumnNorm);
  EvalOptions o = quick();
  o.memory_budget = 100;  // S needs 512 bytes
  Evaluation e = evaluate(*p, baseline(*p), false, baseline(*p), o);
  EXPECT_EQ(e.outcome, Outcome::over_budget) << e.message;
}

TEST_P(GpuEvaluate, AProgramWithoutALaunchContractIsACompileError) {
  auto p = load(kTask);
  std::string src = raw("  if (i < n) y[i] = x[i] * 2.0f + 1.0f;");
  src = src.substr(src.find('\n') + 1);  // drop the @launch line
  Evaluation e = evaluate(*p, src, false, baseline(*p), quick());
  EXPECT_EQ(e.outcome, Outcome::compile) << e.message;
  EXPECT_NE(e.message.find("@launch"), std::string::npos) << e.message;
}

TEST_P(GpuEvaluate, ACompileErrorIsACompileError) {
  Evaluation e = eval("  y[i] = undefined_name;");
  EXPECT_EQ(e.outcome, Outcome::compile) << e.message;
}

// Scalar (rank-0) stages in a GPU program: each is one kernel run by one thread, its accumulator
// declared where it is used, its buffer a scratch buffer the host allocates (the whole program was
// one kernel, with the block-parallel stages racing the scalar ones, or a scalar's accumulator was
// declared in one kernel and used in the next); an i64 min reduction's identity is a literal every
// dialect knows (INT64_C is not); a one-variable reduction computed inside its reader gets no empty
// schedule line.
TEST_P(GpuEvaluate, ScalarStagesI64ReductionsAndInnerReductionsRunCorrectly) {
  const char* kernels[] = {
      R"(kernel scalar_softmax
  dim N = 300
  in X : f32[N] ~ normal(0, 2)
  out Y : f32[N]
  M = max(k) X[k]
  E[k] = exp(X[k] - M)
  Z = sum(k) E[k]
  Y[k] = E[k] / Z
)",
      R"(kernel scalar_of_a_sum
  dim R = 12, C = 64
  in X : f32[R, C]
  out Y : f32[]
  P[r] = sum(c) X[r, c] * X[r, c]
  Y = sqrt(sum(r) P[r])
)",
      R"(kernel first_positive
  dim N = 16, K = 8
  in X : f32[N, K]
  out Y : i64[N]
  Y[i] = min(k) select(X[i, k] > 0.0, k, K)
)",
      R"(kernel all_valid
  dim B = 64, K = 32
  in Valid : bool[B, K] ~ bernoulli(0.97)
  out AllValid : bool[B]
  Mn[b] = min(k) select(Valid[b, k], 1, 0)
  AllValid[b] = Mn[b] == 1
)"};
  for (const char* text : kernels) {
    auto p = load(text);
    ASSERT_TRUE(p) << text;
    Evaluation e = evaluate(*p, baseline(*p), false, baseline(*p), quick());
    EXPECT_EQ(e.outcome, Outcome::ok) << p->name << ": " << e.message;
  }
}

// Recurrences on a GPU: independent sequences across blocks and threads; a recurrent layer whose
// step reads every point of the step before, on the threads of one block with a barrier per step.
TEST_P(GpuEvaluate, RecurrencesDefaultSchedulesAreCorrect) {
  const char* kernels[] = {
      R"(kernel ema
  dim B = 3, T = 200, C = 100
  in X : f32[B, T, C]
  in A : f32[C] ~ uniform(0.5, 0.95)
  out Y : f32[B, T, C]
  Y[b, t, c] = scan(t) select(t >= 1, A[c] * Y[b, t - 1, c], 0.0) + (1.0 - A[c]) * X[b, t, c]
)",
      R"(kernel rnn
  dim B = 2, T = 30, I = 8, HD = 300
  in X : f32[B, T, I]
  in Wx : f32[HD, I] ~ normal(0, 0.35)
  in Wh : f32[HD, HD] ~ normal(0, 0.05)
  out H : f32[B, T, HD]
  H[b, t, j] = scan(t) tanh((sum(i) Wx[j, i] * X[b, t, i]) + select(t >= 1, sum(k) Wh[j, k] * H[b, t - 1, k], 0.0))
)"};
  for (const char* text : kernels) {
    auto p = load(text);
    ASSERT_TRUE(p) << text;
    std::string src = baseline(*p);
    Evaluation e = evaluate(*p, src, false, src, quick());
    EXPECT_EQ(e.outcome, Outcome::ok) << p->name << ": " << e.message << "\n" << src;
  }
  auto rnn = load(kernels[1]);
  std::string src = baseline(*rnn);
  EXPECT_NE(src.find(dev_.backend == Backend::cuda ? "__syncthreads()" : "barrier("), std::string::npos) << src;
}

INSTANTIATE_TEST_SUITE_P(Api, GpuEvaluate, ::testing::Values("opencl", "cuda"));

TEST(GpuProbe, AnAbsentPlatformIsUnavailableWithTheReason) {
  DeviceProfile t;
  t.backend = Backend::opencl;
  t.gpu.platform = "no-such-platform";
  GpuProbe p = probe_gpu(t);
  EXPECT_FALSE(p.ok);
  EXPECT_FALSE(p.why.empty());
}

}  // namespace
}  // namespace ekb
