// The tolerance rule's reduction depth (harness/compare.h): terms multiply along a chain of
// reductions, and the f32 tolerance grows with their square root above 1024 terms.
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

}  // namespace
}  // namespace ekb
