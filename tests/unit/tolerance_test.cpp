// The tolerance rule's reduction depth (harness/compare.h): terms multiply where a sum reads another
// sum, add through anything else (a layer's activation), and the f32 tolerance grows with their
// square root above 1024 terms.
#include <gtest/gtest.h>

#include <cmath>

#include "harness/compare.h"
#include "ir/check.h"
#include "util/source.h"

namespace ekb {
namespace {

TEST(Tolerance, GrowsWithTheChainOfReductions) {
  auto p = load_program(std::make_shared<SourceFile>("t.ekb", R"(kernel chain
  dim M = 4, K = 4096, L = 16
  in A : f32[M, K, L]
  out S : f32[M, K]
  out T : f32[M]
  out Y : f32[M, K]
  S[m, k] = sum(l) A[m, k, l]
  T[m] = sum(k) S[m, k]
  Y[m, k] = A[m, k, 0] * 2.0
)"));
  EXPECT_EQ(reduction_terms(*p, p->find_tensor("A")), 1.0);
  EXPECT_EQ(reduction_terms(*p, p->find_tensor("S")), 16.0);
  EXPECT_EQ(reduction_terms(*p, p->find_tensor("T")), 16.0 * 4096);
  EXPECT_EQ(reduction_terms(*p, p->find_tensor("Y")), 1.0);
  EXPECT_DOUBLE_EQ(tolerance_for(*p, p->find_tensor("S")), 1e-4);  // few terms: the dtype's tolerance
  EXPECT_DOUBLE_EQ(tolerance_for(*p, p->find_tensor("T")), 1e-4 * std::sqrt(65536.0 / 1024.0));
}

TEST(Tolerance, MaxAndMinCountOneTerm) {
  auto p = load_program(std::make_shared<SourceFile>("s.ekb", R"(kernel softmax
  dim R = 2, C = 1000
  in X : f32[R, C]
  out Y : f32[R, C]
  M[r] = max(c) X[r, c]
  E[r, c] = exp(X[r, c] - M[r])
  S[r] = sum(c) E[r, c]
  Y[r, c] = E[r, c] / S[r]
)"));
  EXPECT_EQ(reduction_terms(*p, p->find_tensor("M")), 1.0);
  EXPECT_EQ(reduction_terms(*p, p->find_tensor("Y")), 1000.0);  // the sum's 1000 terms, not 1000 x 1000
}

// A deep network: each layer's sum reads the previous layer's activation, so the layers' terms add
// up instead of multiplying (a product of 12 layers' sums would make the tolerance meaningless).
TEST(Tolerance, LayersSeparatedByActivationsAddTheirTerms) {
  auto p = load_program(std::make_shared<SourceFile>("n.ekb", R"(kernel mlp
  dim N = 256
  in X : f32[N]
  in W : f32[3, N, N] ~ normal(0, 0.06)
  out Y : f32[N]
  H1[j < N] = max(sum(i) W[0, j, i] * X[i], 0.0)
  H2[j < N] = max(sum(i) W[1, j, i] * H1[i], 0.0)
  Y[j] = sum(i) W[2, j, i] * H2[i]
)"));
  EXPECT_EQ(reduction_terms(*p, p->find_tensor("H1")), 256.0);
  EXPECT_EQ(reduction_terms(*p, p->find_tensor("Y")), 3 * 256.0 - 2);
  EXPECT_DOUBLE_EQ(tolerance_for(*p, p->find_tensor("Y")), 1e-4);
}

// Sums side by side in one expression round separately: the largest counts, not their product;
// sums nested in one another multiply.
TEST(Tolerance, SiblingSumsTakeTheLargestAndNestedSumsMultiply) {
  auto p = load_program(std::make_shared<SourceFile>("s.ekb", R"(kernel sums
  dim M = 4, K = 64, L = 32
  in A : f32[M, K, L]
  out S : f32[M]
  out N : f32[M]
  S[m] = (sum(k) A[m, k, 0]) + (sum(l) A[m, 0, l])
  N[m] = sum(k) (A[m, k, 1] * sum(l) A[m, k, l])
)"));
  EXPECT_EQ(reduction_terms(*p, p->find_tensor("S")), 64.0);
  EXPECT_EQ(reduction_terms(*p, p->find_tensor("N")), 64.0 * 32);
}

// A recurrence's error compounds over its steps: a cumulative sum over T steps has T terms.
TEST(Tolerance, ARecurrenceCountsItsSteps) {
  auto p = load_program(std::make_shared<SourceFile>("c.ekb", R"(kernel cumsum
  dim T = 5000, C = 2
  in X : f32[T, C]
  out S : f32[T, C]
  S[t, c] = scan(t) select(t >= 1, S[t - 1, c], 0.0) + X[t, c]
)"));
  EXPECT_EQ(reduction_terms(*p, p->find_tensor("S")), 5000.0);
  EXPECT_DOUBLE_EQ(tolerance_for(*p, p->find_tensor("S")), 1e-4 * std::sqrt(5000.0 / 1024.0));
}

// Chained recurrences add their steps (each reads the other's values, as through an activation),
// they do not multiply: three chained cumulative sums over 4096 steps are no 4096^3-term sum, and an
// all-zero output must still fail them.
TEST(Tolerance, ChainedRecurrencesAddTheirSteps) {
  auto p = load_program(std::make_shared<SourceFile>("c.ekb", R"(kernel chained
  dim T = 4096
  in X : f32[T]
  out S3 : f32[T]
  S1[t] = scan(t) select(t >= 1, S1[t - 1], 0.0) + X[t]
  S2[t] = scan(t) select(t >= 1, S2[t - 1], 0.0) + S1[t]
  S3[t] = scan(t) select(t >= 1, S3[t - 1], 0.0) + S2[t]
)"));
  EXPECT_EQ(reduction_terms(*p, p->find_tensor("S3")), 3 * 4096.0 - 2);
  EXPECT_LT(tolerance_for(*p, p->find_tensor("S3")), 1e-3);
}

}  // namespace
}  // namespace ekb
