// What the C printer and the loop passes make of reads and reductions in vector lanes, each case run
// against the reference: a shifted read guarded at the border is read whole where every lane is
// on or the vector lies in the buffer; a read stepping by 2 to 4 or backwards is whole vectors
// shuffled; a group's value read through `k / 128` is one element for all lanes; sign has a vector form;
// a reduction accumulating in its output accumulates in a local; a register tile computed at its
// reader's loop keeps its lanes.
#include "cpu_test_util.h"
#include "lower/lower.h"

namespace ekb::test {
namespace {

TEST(VectorLanes, AGuardedShiftedReadIsReadWholeWhereEveryLaneIsOn) {
  auto p = valid(R"(kernel fir
  dim T = 200, K = 9
  in X : f32[T]
  in H : f32[K]
  out Y : f32[T]
  Y[t] = sum(k) select(t - k >= 0, X[t - k], 0.0) * H[k]
)");
  ASSERT_TRUE(p);
  CpuCheck r = check_on_cpu(*p, "schedule cpu\n  Y: vectorize t 16\n");
  EXPECT_TRUE(r.pass) << r.report;
  // (The whole-vector load when the vector lies in the buffer or all lanes are on, lane by lane only
  // at the border.)
  EXPECT_NE(r.c_source.find("<= (uint64_t)184 || ekb_all_i32x16("), std::string::npos) << r.c_source;
  EXPECT_NE(r.c_source.find("? ekb_load_f32x16(&X["), std::string::npos) << r.c_source;
  // (The border's mask in 32-bit lanes: every index fits.)
  EXPECT_EQ(r.c_source.find("ekb_i64x16"), std::string::npos) << r.c_source;
}

TEST(VectorLanes, AReadUnderADataDependentMaskIsReadWholeWhereTheVectorLiesInTheBuffer) {
  // A peak: the later reads are under a mask that depends on the data (seldom all on), yet every
  // vector but the border's lies inside X, and reading it whole faults nothing: the mask drops the
  // lanes that are off.
  auto p = valid(R"(kernel peak
  dim T = 200
  in X : f32[T]
  out Y : f32[T]
  Y[t] = select(t >= 1 && t < T - 1 && X[t] > X[t - 1] && X[t] >= X[t + 1], X[t], 0.0)
)");
  ASSERT_TRUE(p);
  CpuCheck r = check_on_cpu(*p, "schedule cpu\n  Y: vectorize t 16\n");
  EXPECT_TRUE(r.pass) << r.report;
  EXPECT_NE(r.c_source.find("<= (uint64_t)184 || ekb_all_i32x16("), std::string::npos) << r.c_source;
}

TEST(VectorLanes, ReadsThatStepByTwoToFourOrBackwardsAreWholeVectorsShuffled) {
  // Lanes of o reading X at 2o, 3o + 1, 4o + 3 and backwards at 255 - o: each read is that many
  // whole vectors and shuffles wherever they lie inside X; the last vector of the stride-4 read
  // would run past X's end (its vectors span 64 elements from 195 of 256), and is read lane by lane.
  auto p = valid(R"(kernel steps
  dim O = 64, N = 256
  in X : f32[N]
  out Y : f32[O]
  Y[o] = X[2 * o] + X[3 * o + 1] * 0.5 + X[4 * o + 3] * 0.25 + X[N - 1 - o] * 0.125
)");
  ASSERT_TRUE(p);
  CpuCheck r = check_on_cpu(*p, "schedule cpu\n  Y: vectorize o 16\n");
  EXPECT_TRUE(r.pass) << r.report;
  EXPECT_NE(r.c_source.find("__builtin_shufflevector"), std::string::npos) << r.c_source;
  // (The bound for each: the first element read, against the buffer's length less the vectors'.)
  for (const char* bound : {"<= (uint64_t)224)", "<= (uint64_t)208)", "<= (uint64_t)192)", "<= (uint64_t)240)"})
    EXPECT_NE(r.c_source.find(bound), std::string::npos) << bound << "\n" << r.c_source;
}

TEST(VectorLanes, IndexArithmeticThatFitsRunsIn32BitLanes) {
  // A fractional position's remainder, i * 104 % 100, in lanes of i: a division by a constant that
  // 64-bit lanes would run lane by lane.
  auto p = valid(R"(kernel frac
  dim N = 1000
  in X : f32[N]
  out Y : f32[N]
  Y[i] = f32(i * 104 % 100) * 0.01 * X[i]
)");
  ASSERT_TRUE(p);
  CpuCheck r = check_on_cpu(*p, "schedule cpu\n  Y: vectorize i 16\n");
  EXPECT_TRUE(r.pass) << r.report;
  EXPECT_EQ(r.c_source.find("ekb_i64x16"), std::string::npos) << r.c_source;
  // An index too large for 32 bits stays in 64-bit lanes.
  auto q = valid(R"(kernel big
  dim N = 64
  in X : f32[N]
  out Y : f32[N]
  Y[i] = f32(i * 100000000 / 7 % 5) * X[i]
)");
  ASSERT_TRUE(q);
  CpuCheck b = check_on_cpu(*q, "schedule cpu\n  Y: vectorize i 16\n");
  EXPECT_TRUE(b.pass) << b.report;
  EXPECT_NE(b.c_source.find("ekb_i64x16"), std::string::npos) << b.c_source;
}

TEST(VectorLanes, AGroupReadThroughADivisionByAMultipleOfTheWidthIsOneElement) {
  auto p = valid(R"(kernel dequant
  dim N = 8, K = 512, G = 128
  in C : u8[N, K] ~ int(0, 15)
  in S : f32[N, K / G] ~ positive(0.1, 0.3)
  out W : f32[N, K]
  W[n, k] = f32(C[n, k]) * S[n, k / G]
)");
  ASSERT_TRUE(p);
  CpuCheck r = check_on_cpu(*p, "schedule cpu\n  W: vectorize k 16\n");
  EXPECT_TRUE(r.pass) << r.report;
  EXPECT_NE(r.c_source.find("ekb_splat_f32x16(S["), std::string::npos) << r.c_source;
  EXPECT_EQ(r.c_source.find("for (int l = 0"), std::string::npos) << "a lane-by-lane gather:\n" << r.c_source;
  // (A modulo by such a constant is affine in the lanes: `k % 128` read along k is contiguous.)
  auto q = valid(R"(kernel wrap
  dim N = 4, K = 512
  in X : f32[N, 128]
  out Y : f32[N, K]
  Y[n, k] = X[n, k % 128] * 2.0
)");
  ASSERT_TRUE(q);
  CpuCheck m = check_on_cpu(*q, "schedule cpu\n  Y: vectorize k 16\n");
  EXPECT_TRUE(m.pass) << m.report;
  EXPECT_NE(m.c_source.find("ekb_load_f32x16(&X["), std::string::npos) << m.c_source;
}

TEST(VectorLanes, SignHasAVectorFormThatKeepsZerosAndNaNs) {
  auto p = valid(R"(kernel soft
  dim N = 300
  in X : f32[N]
  out Y : f32[N]
  Y[n] = sign(X[n]) * max(abs(X[n]) - 0.5, 0.0) + sign(X[n] * 0.0)
)");
  ASSERT_TRUE(p);
  CpuCheck r = check_on_cpu(*p, "schedule cpu\n  Y: vectorize n 16\n");
  EXPECT_TRUE(r.pass) << r.report;
  EXPECT_EQ(r.c_source.find("for (int l = 0"), std::string::npos) << "sign lane by lane:\n" << r.c_source;
}

TEST(VectorLanes, AReductionInAParallelLoopAccumulatesInALocal) {
  auto p = valid(R"(kernel pool
  dim C = 16, H = 13, K = 5
  in X : f32[C, H + K - 1]
  out Y : f32[C, H]
  Y[c, h] = max(k < K) X[c, h + k]
)");
  ASSERT_TRUE(p);
  CpuCheck r = check_on_cpu(*p, "schedule cpu\n  Y: parallel c\n");
  EXPECT_TRUE(r.pass) << r.report;
  // (The output is stored once per point, after its loop: no `Y[...] = (Y[...] > ...` in the loop.)
  EXPECT_NE(r.c_source.find("b_racc0 = (b_racc0 >"), std::string::npos) << r.c_source;
  EXPECT_NE(r.c_source.find("] = b_racc0;"), std::string::npos) << r.c_source;
  // (And the region tells the compiler that the written buffer lies apart from the one it reads:
  // restrict does not reach the function OpenMP outlines the region into.)
  EXPECT_NE(r.c_source.find("__builtin_assume_separate_storage(Y, X);"), std::string::npos) << r.c_source;
  // A reduction whose output is also read at another point inside the loop stays in memory.
  auto q = valid(R"(kernel rows
  dim N = 32
  in X : f32[N, N]
  out S : f32[N]
  S[i] = sum(j) X[i, j]
)");
  ASSERT_TRUE(q);
  CpuCheck s = check_on_cpu(*q, "schedule cpu\n  S: parallel i\n");
  EXPECT_TRUE(s.pass) << s.report;
}

TEST(VectorLanes, ATileComputedAtItsReadersLoopKeepsItsLanes) {
  // The tile's region inside one iteration of its reader's co_o (of one iteration) is 16 points:
  // known only once that loop is gone, and a vector loop of unknown extent would run serially.
  auto p = valid(R"(kernel conv
  dim H = 16, W = 16, CO = 16
  in X : f32[H + 2, W + 2, 3]
  in Wt : f32[3, 3, 3, CO]
  out Y : f32[H, W, CO]
  Y[oh, ow, co] = max((sum(kh < 3, kw < 3, ci < 3) X[oh + kh, ow + kw, ci] * Wt[kh, kw, ci, co]), 0.0)
)");
  ASSERT_TRUE(p);
  const char* sched = "schedule cpu\n  Y_sum: vectorize co 16\n  Y: split co 16 -> co_o co_i; vectorize co_i\n\n"
                      "memory cpu\n  Y: hoist_reduction -> Y_sum\n  Y_sum: compute_at Y co_o\n";
  CpuCheck r = check_on_cpu(*p, sched);
  EXPECT_TRUE(r.pass) << r.report;
  EXPECT_NE(r.c_source.find("16 lanes of Y_sum.co"), std::string::npos) << r.c_source;
}

}  // namespace
}  // namespace ekb::test
