// The default CPU schedule's rules (schedule/default_cpu.cpp, default_contraction.cpp): each rule
// shows in the schedule text it writes for a target whose figures the test sets, and the program it
// makes computes what L0 says (run on this CPU against the reference).
#include <gtest/gtest.h>

#include <string>

#include "cpu_test_util.h"
#include "ir/check.h"
#include "lower/lower.h"
#include "lower/schedule_choice.h"
#include "schedule/default_schedule.h"
#include "target/target.h"

namespace ekb {
namespace {

// An AVX-512 CPU of two threads whose parallel region costs `region_us` (one thread: 10 GB/s, 25 GFLOP/s).
Target avx512(double region_us = 5, int threads = 2) {
  Target t;
  set_isa(t, Isa::avx512);
  t.threads = threads;
  t.parallel_cost.region_us = region_us;
  return t;
}

std::shared_ptr<Program> program(const std::string& text) { return load_program(std::make_shared<SourceFile>("k.ekb", text)); }

// The default schedule for this machine's CPU runs correctly.
void runs_correctly(const Program& p) {
  test::CpuCheck c = test::check_on_cpu(p, "default");
  EXPECT_TRUE(c.pass) << c.report;
}

std::string kernel(const std::string& dims, const std::string& body) {
  return "kernel k\n  category reduction\n  domain general\n  dim " + dims + "\n" + body;
}

TEST(DefaultCpuSchedule, LanesAreSetByTheWidestValueComputedNotByTheOutputsType) {
  // An i8 output computed in f32: 16 lanes of a 64-byte register, not 64.
  auto p = program(kernel("R = 64, C = 512", "  in X : f32[R, C]\n  out Q : i8[R, C]\n  Q[r, c] = i8(clamp(round(X[r, c] * 20.0), -128.0, 127.0))\n"));
  std::string s = default_schedule_text(*p, avx512());
  EXPECT_NE(s.find("vectorize c 16"), std::string::npos) << s;
  runs_correctly(*p);
}

TEST(DefaultCpuSchedule, TheVectorLoopIsTheOneWhoseReadsAreContiguous) {
  // Four reads contiguous along i, the write along j: lanes on i, moved innermost (the write is
  // scattered, lane by lane, but four contiguous reads pay for it).
  auto p = program(kernel("N = 256, M = 128", "  in X : f32[M, N]\n  in Z : f32[M, N]\n  in U : f32[M, N]\n  in V : f32[M, N]\n"
                                              "  out Y : f32[N, M]\n  Y[i, j] = X[j, i] * Z[j, i] + U[j, i] * V[j, i]\n"));
  std::string s = default_schedule_text(*p, avx512());
  EXPECT_NE(s.find("reorder j i"), std::string::npos) << s;
  EXPECT_NE(s.find("vectorize i 16"), std::string::npos) << s;
  runs_correctly(*p);
}

TEST(DefaultCpuSchedule, AContiguousReductionAccumulatesVectorPartialSums) {
  auto p = program(kernel("R = 64, C = 1024", "  in X : f32[R, C]\n  out S : f32[R]\n  S[r] = sum(c) X[r, c]\n"));
  std::string s = default_schedule_text(*p, avx512());
  EXPECT_NE(s.find("rfactor c_v -> S_vp"), std::string::npos) << s;
  EXPECT_NE(s.find("S_vp: vectorize c_v 16"), std::string::npos) << s;
  EXPECT_NE(s.find("S_vp: compute_at S r"), std::string::npos) << "the partial sums at each row, not in a pass of their own: " << s;
  runs_correctly(*p);
}

TEST(DefaultCpuSchedule, AnInterleavedLayoutIsLeftToPlainLoops) {
  // x, y, z of each sample side by side: lanes on t would write every third float lane by lane.
  auto p = program(kernel("T = 2000", "  in M : f32[T, 3]\n  in Ws : f32[3, 3]\n  out Y : f32[T, 3]\n"
                                      "  Y[t, i] = sum(j < 3) Ws[i, j] * M[t, j]\n"));
  std::string s = default_schedule_text(*p, avx512());
  EXPECT_EQ(s.find("vectorize t"), std::string::npos) << s;
  runs_correctly(*p);
}

TEST(DefaultCpuSchedule, ASumReadContiguouslyInItsReadersExpressionIsHoistedIntoVectorPartialSums) {
  // An int8 layer's weights stored [N, K]: both reads run along k.
  auto p = program(kernel("M = 4, K = 256, N = 64", "  in A : i8[M, K]\n  in Wq : i8[N, K]\n  in Bias : i32[N] ~ int(-100, 100)\n"
                                                    "  out Acc : i32[M, N]\n  Acc[m, n] = (sum(k) i32(A[m, k]) * i32(Wq[n, k])) + Bias[n]\n"));
  std::string s = default_schedule_text(*p, avx512());
  EXPECT_NE(s.find("Acc: hoist_reduction -> Acc_sum"), std::string::npos) << s;
  EXPECT_NE(s.find("rfactor k_v -> Acc_sum_vp"), std::string::npos) << s;
  runs_correctly(*p);
}

TEST(DefaultCpuSchedule, AStencilOfItsOwnIsNotRecomputedAtEveryPointOfAWindow) {
  // Dx (three reads) squared, summed over a 3-point window: Dx is inlined into its square, the
  // square (six reads) keeps its loops; a square of one read is inlined into the window.
  auto p = program(kernel("T = 512", "  in X : f32[T + 4]\n  out A : f32[T]\n  out B : f32[T]\n"
                                     "  Dx[t < T + 2] = X[t + 2] - 2.0 * X[t + 1] + X[t]\n  Sq[t < T + 2] = Dx[t] * Dx[t]\n"
                                     "  A[t] = sum(i < 3) Sq[t + i]\n  X2[t < T + 2] = X[t] * X[t]\n  B[t] = sum(i < 3) X2[t + i]\n"));
  std::string s = default_schedule_text(*p, avx512());
  EXPECT_NE(s.find("Dx: inline"), std::string::npos) << s;
  EXPECT_EQ(s.find("Sq: inline"), std::string::npos) << s;
  EXPECT_NE(s.find("X2: inline"), std::string::npos) << s;
  runs_correctly(*p);
}

TEST(DefaultCpuSchedule, AGatherThroughClampsAndDivisionsIsLeftToPlainLoops) {
  // A block matcher's 25 candidates: lanes on m would compute each lane's clamped address alone.
  auto p = program(kernel("H = 64, W = 64, BS = 16, R = 2", R"(  dim NBY = H / BS, NBX = W / BS, SW = 2 * R + 1, NC = SW * SW
  in Cur : u8[H, W]
  in Ref : u8[H, W]
  out D : i32[NBY, NBX, NC]
  D[by, bx, m] = sum(y < BS, x < BS) abs(i32(Cur[by * BS + y, bx * BS + x]) - i32(Ref[clamp(by * BS + y + m / SW - R, 0, H - 1), clamp(bx * BS + x + m % SW - R, 0, W - 1)]))
)"));
  std::string s = default_schedule_text(*p, avx512());
  EXPECT_EQ(s.find("vectorize m"), std::string::npos) << s;
  runs_correctly(*p);
}

TEST(DefaultCpuSchedule, ParallelLoopsOnlyWhereTheWorkPaysForTheRegion) {
  const std::string body = "  in X : f32[R, C]\n  out Y : f32[R, C]\n  Y[r, c] = exp(X[r, c]) * 0.5\n";
  auto small = program(kernel("R = 4, C = 64", body)), big = program(kernel("R = 512, C = 1024", body));
  EXPECT_EQ(default_schedule_text(*small, avx512()).find("parallel"), std::string::npos) << "256 points: one thread";
  EXPECT_NE(default_schedule_text(*big, avx512()).find("parallel r"), std::string::npos);
  // Where a region is dear (threads asleep between calls), the same work stays on one thread...
  EXPECT_EQ(default_schedule_text(*big, avx512(1e5)).find("parallel"), std::string::npos);
  // ...and with one thread there is nothing to share.
  EXPECT_EQ(default_schedule_text(*big, avx512(5, 1)).find("parallel"), std::string::npos);
  runs_correctly(*big);
}

TEST(DefaultCpuSchedule, ARowsStatisticsAreComputedInsideTheRowLoopThatReadsThem) {
  auto p = program(kernel("T = 128, D = 256", R"(  const eps = 1e-5
  in X : f32[T, D] ~ normal(0.5, 2)
  in G : f32[D]
  in B : f32[D]
  out Y : f32[T, D]
  Mu[t] = (sum(d) X[t, d]) / D
  Var[t] = (sum(d) (X[t, d] - Mu[t]) * (X[t, d] - Mu[t])) / D
  Y[t, d] = (X[t, d] - Mu[t]) * rsqrt(Var[t] + eps) * G[d] + B[d]
)"));
  std::string s = default_schedule_text(*p, avx512());
  EXPECT_NE(s.find("Mu: compute_at Y t"), std::string::npos) << s;
  EXPECT_NE(s.find("Var: compute_at Y t"), std::string::npos) << s;
  runs_correctly(*p);
}

TEST(DefaultCpuSchedule, AMatrixProductGetsARegisterTileAndPackedPanels) {
  auto p = program(kernel("M = 256, N = 256, K = 256", "  in A : f32[M, K]\n  in B : f32[K, N]\n  out C : f32[M, N]\n  C[m, n] = sum(k) A[m, k] * B[k, n]\n"));
  std::string s = default_schedule_text(*p, avx512());
  EXPECT_NE(s.find("cache_write local at m_o -> C_rt"), std::string::npos) << s;
  EXPECT_NE(s.find("pack B 1 32 -> B_pk"), std::string::npos) << s;
  EXPECT_NE(s.find("C_rt: reorder k m_i n_i; unroll m_i"), std::string::npos) << s;
  EXPECT_NE(s.find("split m 8 -> m_o m_i"), std::string::npos) << "8 rows of 2 registers: 16 accumulators of 32: " << s;
  // AVX2 has 16 registers: fewer rows.
  Target avx2 = avx512();
  set_isa(avx2, Isa::avx2);
  std::string s2 = default_schedule_text(*p, avx2);
  EXPECT_NE(s2.find("split n 16 -> n_o n_i"), std::string::npos) << s2;
  EXPECT_EQ(s2.find("split m 8 "), std::string::npos) << s2;
  runs_correctly(*p);
}

TEST(DefaultCpuSchedule, ATileNarrowsItsLanesWhereTheyDivideARowTheRegisterWouldLeaveATailIn) {
  // A pointwise convolution to 28 channels: 16 lanes leave a tail of 12 run point by point; seven
  // vectors of 4 divide the row (blazeface's block 1.6x faster). To 1000 channels the tail of 8 is
  // under 1% of the row and the register's width stays.
  auto pointwise = [](int co) {
    return program(kernel("H = 32, CI = 24, CO = " + std::to_string(co),
                          "  in X : f32[H, H, CI]\n  in Wp : f32[CI, CO]\n  out Y : f32[H, H, CO]\n"
                          "  Y[h, w, co] = max(sum(c) X[h, w, c] * Wp[c, co], 0.0)\n"));
  };
  auto p = pointwise(28);
  std::string s = default_schedule_text(*p, avx512());
  EXPECT_NE(s.find("vectorize co 4"), std::string::npos) << s;
  runs_correctly(*p);
  std::string wide = default_schedule_text(*pointwise(1000), avx512());
  EXPECT_EQ(wide.find("vectorize co 4"), std::string::npos) << wide;
  EXPECT_EQ(wide.find("vectorize co 8"), std::string::npos) << wide;
  EXPECT_NE(wide.find("vectorize co 16"), std::string::npos) << wide;
}

TEST(DefaultCpuSchedule, AConvolutionsTileIsItsElementWiseReadersAndThePaddingIsReadInPlace) {
  auto p = program(kernel("H = 30, W = 30, C = 64", R"(  in X : f32[H, W, C]
  in Wt : f32[3, 3, C]
  in B : f32[C]
  out Y : f32[H, W, C]
  Xp[h < H + 2, w < W + 2, c] = select(h >= 1 && h <= H && w >= 1 && w <= W, X[h - 1, w - 1, c], 0.0)
  S[oh < H, ow < W, c] = sum(kh < 3, kw < 3) Xp[oh + kh, ow + kw, c] * Wt[kh, kw, c]
  Y[oh, ow, c] = clamp(S[oh, ow, c] + B[c], 0.0, 6.0)
)"));
  std::string s = default_schedule_text(*p, avx512());
  EXPECT_NE(s.find("Xp: inline"), std::string::npos) << s;
  EXPECT_NE(s.find("S: compute_at Y c_o"), std::string::npos) << s;
  EXPECT_NE(s.find("unroll kh; unroll kw"), std::string::npos) << s;
  runs_correctly(*p);
}

TEST(DefaultCpuSchedule, ANestedReductionAlongAContiguousLoopRunsInVectorPartialSums) {
  // (A lowering pass for every program: the naive loops get it too.)
  auto p = program(kernel("R = 8, C = 500", "  in X : f32[R, C]\n  out S : f32[R]\n  S[r] = (max(c) abs(X[r, c])) / 127.0\n"));
  Target t = default_target(Backend::cpu);
  if (t.lanes(DType::f32) < 2) GTEST_SKIP() << "this CPU has no vector unit";
  lower::LoweredKernel k = lower_with(*p, t, choose_schedule(*p, t, "none"));
  std::string c = codegen::print_c(k, codegen::c_dialect());
  EXPECT_NE(c.find("vectorized"), std::string::npos) << c;
  test::CpuCheck run = test::check_on_cpu(*p, "none");
  EXPECT_TRUE(run.pass) << run.report;
}

TEST(DefaultCpuSchedule, ConsecutiveParallelNestsShareOneRegion) {
  auto p = program(kernel("R = 512, C = 1024", R"(  in X : f32[R, C]
  out Y : f32[R, C]
  out Z : f32[C, R]
  Y[r, c] = exp(X[r, c])
  Z[c, r] = exp(X[r, c]) * 2.0
)"));
  Target t = default_target(Backend::cpu);
  t.threads = 2;
  std::string c = codegen::print_c(lower_with(*p, t, choose_schedule(*p, t, "default")), codegen::c_dialect());
  EXPECT_NE(c.find("#pragma omp parallel num_threads"), std::string::npos) << c;
  EXPECT_NE(c.find("#pragma omp for schedule(static)"), std::string::npos) << c;
  EXPECT_EQ(c.find("#pragma omp parallel for"), std::string::npos) << c;
  runs_correctly(*p);
}

TEST(DefaultCpuSchedule, ASelectsContiguousReadsStayVectorReadsWhereTheyCannotFault) {
  // Both branches read the same in-bound elements as the condition: no lane-by-lane loads.
  auto p = program(kernel("N = 1024", "  in A : i32[N] ~ int(-1000, 1000)\n  in M : i32[N] ~ int(1, 100)\n  out Y : i64[N]\n"
                                      "  Y[i] = select(i64(A[i]) * i64(M[i]) >= 0, i64(A[i]) * i64(M[i]) + 7, 7 - i64(A[i]) * i64(M[i]))\n"));
  Target t = default_target(Backend::cpu);
  if (t.lanes(DType::f32) < 2) GTEST_SKIP() << "this CPU has no vector unit";
  std::string c = codegen::print_c(lower_with(*p, t, choose_schedule(*p, t, "default")), codegen::c_dialect());
  EXPECT_EQ(c.find("for (int l = 0"), std::string::npos) << c;
  runs_correctly(*p);
}

TEST(DefaultCpuSchedule, AShortLaneLoopIsFusedWithTheLoopOutsideItWhereTheyAreOneRun) {
  // NHWC with 24 channels: (w, c) is one contiguous run of 1344 elements, no tail of 8 per row...
  auto p = program(kernel("H = 56, W = 56, C = 24", "  in X : f32[H, W, C]\n  out Q : i8[H, W, C]\n"
                                                       "  Q[h, w, c] = i8(clamp(round(X[h, w, c] / 0.05), -128.0, 127.0))\n"));
  std::string s = default_schedule_text(*p, avx512());
  EXPECT_NE(s.find("fuse w c -> w_c; vectorize w_c 16"), std::string::npos) << s;
  runs_correctly(*p);
  // The fused loop's index, (wc / 24) * 24 + wc % 24, simplifies to wc: its reads and writes are
  // vector loads and stores, and round() has a vector form: no lane-by-lane code.
  Target t = default_target(Backend::cpu);
  if (t.lanes(DType::f32) >= 2) {
    std::string c = codegen::print_c(lower_with(*p, t, choose_schedule(*p, t, "default")), codegen::c_dialect());
    EXPECT_EQ(c.find("for (int l = 0"), std::string::npos) << c;
  }
  // ...but not where a per-channel read breaks the run.
  auto q = program(kernel("H = 56, W = 56, C = 24", "  in X : f32[H, W, C]\n  in S : f32[C]\n  out Q : f32[H, W, C]\n"
                                                       "  Q[h, w, c] = X[h, w, c] * S[c]\n"));
  EXPECT_EQ(default_schedule_text(*q, avx512()).find("fuse w c"), std::string::npos) << default_schedule_text(*q, avx512());
}

TEST(DefaultCpuSchedule, ALinearLayersSumInsideItsExpressionIsHoistedAndTiled) {
  auto p = program(kernel("T = 64, K = 256, N = 256", "  in X : f32[T, K]\n  in W : f32[K, N]\n  in B : f32[N]\n  out Y : f32[T, N]\n"
                                                         "  Y[t, n] = max((sum(k) X[t, k] * W[k, n]) + B[n], 0.0)\n"));
  std::string s = default_schedule_text(*p, avx512());
  EXPECT_NE(s.find("Y: hoist_reduction -> Y_sum"), std::string::npos) << s;
  EXPECT_NE(s.find("Y_sum: compute_at Y"), std::string::npos) << "the tile on the reader: " << s;
  runs_correctly(*p);
}

TEST(DefaultCpuSchedule, LanesThatWouldGatherEveryReadAreNotTaken) {
  // Rows of 6 read across 128 time steps: lanes along t would gather and scatter every element.
  auto p = program(kernel("B = 16, T = 128, A = 6", "  in X : f32[B, T, A]\n  in Off : f32[A]\n  out Y : f32[B, T, A]\n"
                                                      "  Y[b, t, a] = X[b, t, a] - Off[a]\n"));
  EXPECT_EQ(default_schedule_text(*p, avx512()).find("vectorize"), std::string::npos) << default_schedule_text(*p, avx512());
  runs_correctly(*p);
}

TEST(DefaultCpuSchedule, NoLanesAcrossRowsThatScatterTheWriteAndGatherARead) {
  // Int4 weights unpacked two per byte: lanes across rows would gather every byte and scatter every
  // result (15x slower than plain loops); lanes along the row read through `k / 2`, byte by byte. Plain
  // rows, left to clang's vectorizer, in threads.
  auto p = program(kernel("R = 512, CP = 256", "  in P : i8[R, CP]\n  out W : i8[R, 2 * CP]\n"
                                               "  W[r, k] = select(k % 2 == 0, P[r, k / 2] << i8(4) >> i8(4), P[r, k / 2] >> i8(4))\n"));
  std::string s = default_schedule_text(*p, avx512());
  EXPECT_EQ(s.find("vectorize"), std::string::npos) << s;
  EXPECT_NE(s.find("parallel r"), std::string::npos) << s;
  runs_correctly(*p);
  // A reduction's lanes across rows still pay (its uniform reads once per vector): a transposed
  // convolution's output channels.
  auto q = program(kernel("CI = 8, CO = 16, H = 8, W = 8, K = 4, S = 2, P = 1, HO = 16, WO = 16, KS = 2",
                          "  in X : f32[CI, H + 2, W + 2]\n  in Wt : f32[CI, CO, K, K]\n  out Y : f32[CO, HO, WO]\n"
                          "  Y[co, oh, ow] = sum(ci, jh < KS, jw < KS) X[ci, (oh + P) / S - jh + KS - 1, (ow + P) / S - jw + KS - 1]"
                          " * Wt[ci, co, (oh + P) % S + jh * S, (ow + P) % S + jw * S]\n"));
  std::string t = default_schedule_text(*q, avx512());
  EXPECT_NE(t.find("vectorize co"), std::string::npos) << t;
  runs_correctly(*q);
}

TEST(DefaultCpuSchedule, ARowReadThroughAnIrregularIndexIsLeftToPlainLoopsWhoseInnermostLoopIsNotFused) {
  // A linear resampler: `X[c, i * 441 / 160]` moves 2.76 elements a lane, which our lanes gather one
  // by one; plain rows are clang's to vectorize, and its two channels run in threads without fusing
  // the samples' loop into theirs (fused, every point divided its index back into two: 2.6x slower).
  auto p = program(kernel("C = 2, S = 44100, DN = 441, UP = 160, SO = 16000",
                          "  in X : f32[C, S]\n  out Y : f32[C, SO]\n"
                          "  Y[c, i] = X[c, i * DN / UP] + i * DN % UP * (1.0 / UP) * (X[c, i * DN / UP + 1] - X[c, i * DN / UP])\n"));
  std::string s = default_schedule_text(*p, avx512(1));
  EXPECT_EQ(s.find("vectorize"), std::string::npos) << s;
  EXPECT_EQ(s.find("fuse"), std::string::npos) << s;
  EXPECT_NE(s.find("parallel c"), std::string::npos) << s;
  runs_correctly(*p);
}

TEST(DefaultCpuSchedule, ATablesRowsCountAsWhatIsReadOfThemNotTheWholeTable) {
  // An embedding: 64 rows of a 4 MB table are 96 KB of work in all, too little for a parallel region.
  auto p = program(kernel("V = 8000, T = 64, D = 128", "  in Table : f32[V, D]\n  in Ids : i32[T] ~ int(0, V - 1)\n  in Pos : f32[T, D]\n"
                                                      "  out Y : f32[T, D]\n  Y[t, d] = Table[Ids[t], d] * 2.0 + Pos[t, d]\n"));
  std::string s = default_schedule_text(*p, avx512());
  EXPECT_EQ(s.find("parallel"), std::string::npos) << s;
  EXPECT_NE(s.find("vectorize d"), std::string::npos) << s;
  runs_correctly(*p);
}

TEST(DefaultCpuSchedule, ADecimatingFilterTakesLanesAlongItsOutputsNotPartialSumsOfItsTaps) {
  // y[m] = sum(k) x[2m + 31 - k] h[k]: lanes along m read x with a stride of 2 (whole vectors and a
  // shuffle); partial sums along its 32 taps would leave every output 16 sums to add up one by one
  // (2.4x slower). With a stride of 3 lanes along m do not pay.
  auto filter = [](int d) {
    return program(kernel("S = 16000, K = 32, D = " + std::to_string(d),
                          "  dim SO = (S - 1) / D + 1\n  in X : f32[S]\n  in H : f32[K]\n  out Y : f32[SO]\n"
                          "  Xp[t < S + K - 1] = select(t >= K - 1, X[t - (K - 1)], 0.0)\n"
                          "  Y[m] = sum(k) Xp[m * D + K - 1 - k] * H[k]\n"));
  };
  auto p = filter(2);
  std::string s = default_schedule_text(*p, avx512());
  EXPECT_NE(s.find("Y: vectorize m 16"), std::string::npos) << s;
  EXPECT_EQ(s.find("rfactor"), std::string::npos) << s;
  runs_correctly(*p);
  std::string three = default_schedule_text(*filter(3), avx512());
  EXPECT_EQ(three.find("vectorize m"), std::string::npos) << three;
}

TEST(DefaultCpuSchedule, BytesGatheredIntoWiderLanesCostAsMuchAsAShortStridesLaneByLaneRead) {
  // RGB to I420's chroma: each output reads twelve bytes (its 2x2 means, inlined), every sixth byte
  // along its row, into 32-bit arithmetic. Gathered into 16 int lanes one by one they ran 2.3x slower
  // than plain loops (edge-1core); read as scalars they do not.
  auto p = program(kernel("H = 96, W = 128",
                          "  in Img : u8[H, W, 3]\n  out Up : u8[H / 2, W / 2]\n  out Vp : u8[H / 2, W / 2]\n"
                          "  Avg[i < H / 2, j < W / 2, c < 3] = i32(Img[2 * i, 2 * j, c]) + i32(Img[2 * i, 2 * j + 1, c]) + "
                          "i32(Img[2 * i + 1, 2 * j, c]) + i32(Img[2 * i + 1, 2 * j + 1, c]) + 2 >> i32(2)\n"
                          "  Up[i, j] = u8(112 * Avg[i, j, 2] - 74 * Avg[i, j, 1] - 38 * Avg[i, j, 0] + 32896 >> i32(8))\n"
                          "  Vp[i, j] = u8(112 * Avg[i, j, 0] - 94 * Avg[i, j, 1] - 18 * Avg[i, j, 2] + 32896 >> i32(8))\n"));
  std::string s = default_schedule_text(*p, avx512());
  EXPECT_EQ(s.find("vectorize j"), std::string::npos) << s;
  runs_correctly(*p);
}

TEST(DefaultCpuSchedule, AShortInnermostLoopThatIsOneRunWithTheLoopOutsideItTakesTheLanesFused) {
  // A filter over [T, 6]: lanes across t would gather every sixth float (1.8x slower than plain
  // loops); fused with t, the 6 axes are one contiguous run of lanes (2.1x faster than them).
  auto p = program(kernel("T = 128, C = 6, K = 16", "  in X : f32[T, C]\n  in Hk : f32[K]\n  out Y : f32[T, C]\n"
                                                    "  Xp[t < T + K - 1, c] = select(t >= K - 1, X[t - (K - 1), c], 0.0)\n"
                                                    "  Y[t, c] = sum(k) Xp[t + K - 1 - k, c] * Hk[k]\n"));
  std::string s = default_schedule_text(*p, avx512());
  EXPECT_NE(s.find("Y: fuse t c -> t_c; vectorize t_c 16"), std::string::npos) << s;
  runs_correctly(*p);
  // Not where a call without a vector form would run lane by lane (sRGB's pow: 2.3x slower), nor
  // fused with a loop a select's condition uses (a concatenation's channel ranges: 3.8x slower).
  auto pw = program(kernel("H = 64, W = 64, C = 3", "  in X : f32[H, W, C] ~ uniform(0, 1)\n  out Y : f32[H, W, C]\n"
                                                    "  Y[h, w, c] = select(X[h, w, c] <= 0.0031308, X[h, w, c] * 12.92, "
                                                    "1.055 * pow(X[h, w, c], 1.0 / 2.4) - 0.055)\n"));
  std::string sp = default_schedule_text(*pw, avx512());
  EXPECT_EQ(sp.find("fuse w c"), std::string::npos) << sp;
  auto cat = program(kernel("C = 2, H = 10, W = 10", "  in A : f32[C, H, W]\n  in B : f32[C, H, W]\n  out Y : f32[2 * C, H, W]\n"
                                                     "  Y[o, h, w] = select(o < C, A[min(o, C - 1), h, w], B[max(o - C, 0), h, w])\n"));
  std::string sc = default_schedule_text(*cat, avx512());
  EXPECT_EQ(sc.find("fuse o"), std::string::npos) << sc;
  runs_correctly(*cat);
}

TEST(DefaultCpuSchedule, BooleanMasksAreStoredAndLoadedAsVectorsOfBytes) {
  auto p = program(kernel("T = 20, K = 521", "  in S : f32[T, K]\n  in Thr : f32[K]\n  out M : bool[T, K]\n  out N : bool[T, K]\n"
                                              "  M[t, k] = S[t, k] > Thr[k]\n  N[t, k] = !M[t, k]\n"));
  Target t = default_target(Backend::cpu);
  if (t.lanes(DType::f32) < 2) GTEST_SKIP() << "this CPU has no vector unit";
  std::string c = codegen::print_c(lower_with(*p, t, choose_schedule(*p, t, "default")), codegen::c_dialect());
  EXPECT_NE(c.find("ekb_store_u8x"), std::string::npos) << c;
  runs_correctly(*p);
}

TEST(DefaultCpuSchedule, AnIntegerDivisionByAConstantStaysInVectorArithmetic) {
  // Floor division and remainder of negative and positive values by 9 and by -7, in lanes.
  auto p = program(kernel("N = 1000", "  in A : i32[N] ~ int(-5000, 5000)\n  out Q : i32[N]\n  out R : i32[N]\n"
                                       "  out Qn : i32[N]\n  out Rn : i32[N]\n"
                                       "  Q[i] = A[i] / 9\n  R[i] = A[i] % 9\n  Qn[i] = A[i] / -7\n  Rn[i] = A[i] % -7\n"));
  Target t = default_target(Backend::cpu);
  if (t.lanes(DType::f32) < 2) GTEST_SKIP() << "this CPU has no vector unit";
  std::string c = codegen::print_c(lower_with(*p, t, choose_schedule(*p, t, "default")), codegen::c_dialect());
  EXPECT_EQ(c.find("for (int l = 0"), std::string::npos) << c;
  runs_correctly(*p);
}

TEST(DefaultCpuSchedule, VectorFormsOfMathFunctionsMatchTheReference) {
  // Each in lanes (no lane-by-lane code), near 0 as well as far from it.
  auto p = program(kernel("N = 4096", R"(  in X : f32[N] ~ uniform(-3, 3)
  in P : f32[N] ~ positive(0.001, 100)
  out Y : f32[N]
  out Z : f32[N]
  Y[i] = expm1(X[i] * 0.01) + expm1(X[i]) + exp2(X[i]) + floor(X[i] * 3.0) + ceil(X[i] * 3.0) + trunc(X[i] * 3.0) + round(X[i] * 3.0)
  Z[i] = log1p(P[i] * 0.001) + log1p(P[i]) + log2(P[i]) + log10(P[i]) + sqrt(P[i]) + rsqrt(P[i])
)"));
  Target t = default_target(Backend::cpu);
  if (t.lanes(DType::f32) < 2) GTEST_SKIP() << "this CPU has no vector unit";
  std::string c = codegen::print_c(lower_with(*p, t, choose_schedule(*p, t, "default")), codegen::c_dialect());
  EXPECT_EQ(c.find("for (int l = 0"), std::string::npos) << c;
  runs_correctly(*p);
}

}  // namespace
}  // namespace ekb
