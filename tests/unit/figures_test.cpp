// The must-read analysis (suite/must_read.h, Figures::must_read_bytes): an input counts only when
// every correct kernel must read every element of it. Each case names the inputs it must count, and
// none beyond them: a sum of inputs counts both, a product of values that can be zero neither, a
// factor that cannot be zero leaves the other counted, partial and data-dependent reads nothing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "suite/figures.h"
#include "suite/must_read.h"
#include "test_util.h"

namespace ekb {
namespace {

// The names of the inputs `text`'s kernel must read whole.
std::vector<std::string> counted(const std::string& text) {
  auto p = test::valid(text);
  if (!p) return {"(does not check)"};
  std::vector<std::string> names;
  for (int t : must_read(*p).inputs) names.push_back(p->tensors[static_cast<size_t>(t)].name);
  return names;
}

using Names = std::vector<std::string>;

TEST(Figures, AnElementwiseAddMustReadBothInputs) {
  const char* text = R"(kernel add
  dim N = 1024
  in A : f32[N]
  in B : f32[N]
  out Y : f32[N]
  Y[i] = A[i] + B[i]
)";
  EXPECT_EQ(counted(text), (Names{"A", "B"}));
  auto p = test::valid(text);
  ASSERT_TRUE(p);
  Figures f = compute_figures(*p);
  EXPECT_EQ(f.must_read_bytes, 2 * 1024 * 4);
  EXPECT_EQ(f.bytes, 3 * 1024 * 4) << "the stated traffic (outputs included) is unchanged";
}

TEST(Figures, AProductOfValuesThatCanBeZeroCountsNeither) {
  // Where B is 0, A need not be read, and the other way round.
  EXPECT_EQ(counted(R"(kernel mul
  dim N = 64
  in A : f32[N]
  in B : f32[N]
  out Y : f32[N]
  Y[i] = A[i] * B[i]
)"),
            Names{});
}

TEST(Figures, ANonzeroConstantFactorKeepsItsOperand) {
  EXPECT_EQ(counted(R"(kernel scale
  dim N = 64
  in A : f32[N]
  out Y : f32[N]
  Y[i] = A[i] * 2.0 + 1.0
)"),
            Names{"A"});
  EXPECT_EQ(counted(R"(kernel scale0
  dim N = 64
  in A : f32[N]
  out Y : f32[N]
  Y[i] = A[i] * 0.0 + 1.0
)"),
            Names{}) << "a zero constant absorbs";
}

TEST(Figures, AFactorWhoseDistributionExcludesZeroKeepsItsOperand) {
  const char* with = R"(kernel div
  dim N = 64
  in A : f32[N]
  in S : f32[N] ~ positive(0.5, 2)
  out Y : f32[N]
  Y[i] = A[i] * S[i]
)";
  EXPECT_EQ(counted(with), Names{"A"}) << "S is never 0, so A always matters; A can be 0, so S need not";
  EXPECT_EQ(counted(R"(kernel div
  dim N = 64
  in A : f32[N]
  in S : f32[N] ~ uniform(-2, -0.5)
  in Q : i8[N] ~ int(1, 9)
  out Y : f32[N]
  Y[i] = A[i] * S[i] + f32(Q[i])
)"),
            (Names{"A", "Q"}));
  EXPECT_EQ(counted(R"(kernel div
  dim N = 64
  in A : f32[N]
  in S : f32[N] ~ uniform(-2, 2)
  in Q : i8[N] ~ int(0, 9)
  out Y : f32[N]
  Y[i] = A[i] * S[i] + f32(Q[i]) * A[i]
)"),
            Names{}) << "ranges holding 0 absorb";
  EXPECT_EQ(counted(R"(kernel recip
  dim N = 64
  in A : f32[N]
  in C : f32[N]
  in D : f32[N]
  out Y : f32[N]
  Y[i] = 1.0 / A[i] + D[i] / C[i]
)"),
            (Names{"A", "D"})) << "a numerator always matters; a denominator only under a nonzero numerator";
}

TEST(Figures, AMatmulCountsNeitherOperand) {
  EXPECT_EQ(counted(R"(kernel mm
  dim M = 8, N = 8, K = 8
  in A : f32[M, K]
  in B : f32[K, N]
  out Y : f32[M, N]
  Y[m, n] = sum(k) A[m, k] * B[k, n]
)"),
            Names{});
}

TEST(Figures, ALayernormCountsOnlyTheBias) {
  // X and the gain are multiplied by values that can be 0 (a centred value, the gain itself); the
  // bias is added.
  EXPECT_EQ(counted(R"(kernel ln
  dim R = 4, C = 16
  const eps = 1e-5
  in X : f32[R, C]
  in G : f32[C]
  in B : f32[C]
  out Y : f32[R, C]
  M[r] = sum(c) X[r, c] / 16.0
  V[r] = sum(c) (X[r, c] - M[r]) * (X[r, c] - M[r]) / 16.0
  Y[r, c] = (X[r, c] - M[r]) * rsqrt(V[r] + eps) * G[c] + B[c]
)"),
            Names{"B"});
}

TEST(Figures, ATransposedCopyReadsItsInput) {
  EXPECT_EQ(counted(R"(kernel tr
  dim M = 4, N = 6
  in X : f32[M, N]
  out Y : f32[N, M]
  Y[j, i] = X[i, j]
)"),
            Names{"X"});
}

TEST(Figures, StridedSlicedShiftedAndRepeatedReadsCountNothing) {
  EXPECT_EQ(counted(R"(kernel strided
  dim N = 16
  in X : f32[32]
  out Y : f32[N]
  Y[i] = X[2 * i]
)"),
            Names{});
  EXPECT_EQ(counted(R"(kernel sliced
  dim N = 16
  in X : f32[32]
  out Y : f32[N]
  Y[i] = X[i]
)"),
            Names{});
  EXPECT_EQ(counted(R"(kernel shifted
  dim N = 16
  in X : f32[17]
  out Y : f32[N]
  Y[i] = X[i + 1]
)"),
            Names{});
  EXPECT_EQ(counted(R"(kernel diagonal
  dim N = 16
  in X : f32[N, N]
  out Y : f32[N]
  Y[i] = X[i, i]
)"),
            Names{});
}

TEST(Figures, AStageReadOnlyInPartMakesNothingUpstreamCount) {
  EXPECT_EQ(counted(R"(kernel partial
  dim N = 16
  in A : f32[32]
  in B : f32[32]
  out Y : f32[N]
  T[j] = A[j] + B[j]
  Y[i] = T[2 * i]
)"),
            Names{});
  EXPECT_EQ(counted(R"(kernel whole
  dim N = 32
  in A : f32[N]
  in B : f32[N]
  out Y : f32[N]
  T[j] = A[j] + B[j]
  Y[i] = exp(T[i]) - 1.0
)"),
            (Names{"A", "B"}));
}

TEST(Figures, GathersSelectBranchesAndProductsOfPossibleZerosCountNothing) {
  // The table is read through data-dependent indices, and the indices only pick elements.
  EXPECT_EQ(counted(R"(kernel gather
  dim V = 16, D = 4, N = 8
  in Table : f32[V, D]
  in Ids : i32[N] ~ int(0, 15)
  out Y : f32[N, D]
  Y[n, j] = Table[Ids[n], j]
)"),
            Names{});
  // Only the condition of a select is read everywhere.
  EXPECT_EQ(counted(R"(kernel sel
  dim N = 8
  in C : f32[N]
  in A : f32[N]
  in B : f32[N]
  out Y : f32[N]
  Y[i] = select(C[i] > 0.0, A[i], B[i])
)"),
            Names{"C"});
  // A product reduction: another point's zero absorbs each factor, unless none can be zero.
  EXPECT_EQ(counted(R"(kernel prodz
  dim M = 4, K = 8
  in X : f32[M, K]
  out Y : f32[M]
  Y[m] = prod(k) X[m, k]
)"),
            Names{});
  EXPECT_EQ(counted(R"(kernel prodp
  dim M = 4, K = 8
  in X : f32[M, K] ~ positive(0.5, 2)
  out Y : f32[M]
  Y[m] = prod(k) X[m, k]
)"),
            Names{"X"});
}

TEST(Figures, AnElementReadTwiceAtOnePointCountsNothing) {
  // It can cancel itself: A + B - A is B; X + (C - X) * S is X * (1 - S), which S = 1 absorbs.
  EXPECT_EQ(counted(R"(kernel cancel
  dim N = 8
  in A : f32[N]
  in B : f32[N]
  out Y : f32[N]
  Y[i] = A[i] + B[i] - A[i]
)"),
            Names{"B"});
  EXPECT_EQ(counted(R"(kernel highway
  dim N = 8
  in X : f32[N]
  in C : f32[N]
  in S : f32[N] ~ uniform(0, 1)
  out Y : f32[N]
  Y[i] = X[i] + (C[i] - X[i]) * S[i]
)"),
            Names{});
  // A select's condition picks which branch is the value: the branches' reads cancel nothing.
  EXPECT_EQ(counted(R"(kernel leaky
  dim N = 8
  in X : f32[N]
  out Y : f32[N]
  Y[i] = select(X[i] > 0.0, X[i], 0.1 * X[i])
)"),
            Names{"X"});
  EXPECT_EQ(counted(R"(kernel sel_cancel
  dim N = 8
  in X : f32[N]
  in C : f32[N]
  out Y : f32[N]
  Y[i] = X[i] + select(C[i] > 0.0, -X[i], 0.0)
)"),
            Names{"C"}) << "where C > 0, Y is 0 whatever X is";
  // A stencil reads its neighbours at other points: the centre still counts.
  EXPECT_EQ(counted(R"(kernel stencil
  dim N = 8
  in X : f32[N]
  out Y : f32[N]
  Y[i] = 2.0 * X[i] - select(i >= 1, X[i - 1], 0.0)
)"),
            Names{"X"});
}

TEST(Figures, ReductionsAndActivationsKeepTheirInputs) {
  // A row's max, a sum, a ReLU, integer dot products of int8 values (multiplied: nothing).
  EXPECT_EQ(counted(R"(kernel rowmax
  dim R = 4, C = 8
  in X : f32[R, C]
  in B : f32[R]
  out Y : f32[R]
  Y[r] = max(max(c) X[r, c] + B[r], 0.0)
)"),
            (Names{"X", "B"}));
  EXPECT_EQ(counted(R"(kernel dot8
  dim M = 4, K = 16
  in A : i8[M, K]
  in W : i8[K]
  out Y : i32[M]
  Y[m] = sum(k) i32(A[m, k]) * i32(W[k])
)"),
            Names{});
}

}  // namespace
}  // namespace ekb
