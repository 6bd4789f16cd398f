// The L0 checker: names, declarations, types and weak literals, ranges, outputs, distributions.
#include "test_util.h"

namespace ekb::test {
namespace {

const std::string kHead = "kernel t\n  dim N = 8, M = 4\n";

TEST(Checker, AcceptsAValidGraph) {
  auto p = valid(kHead +
                 "  in X : f32[N, M]\n  out Y : f32[N]\n  out Z : f32[N]\n  S[n] = sum(m) X[n, m]\n"
                 "  Y[n] = S[n] * 2.0\n  Z[n] = Y[n] + S[n]\n");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->stages.size(), 3u);
  EXPECT_EQ(p->outputs.size(), 2u);
  const TensorInfo& s = p->tensors[p->find_tensor("S")];
  EXPECT_EQ(s.role, TensorRole::intermediate);
  EXPECT_EQ(s.shape, (std::vector<int64_t>{8}));
  EXPECT_EQ(s.dtype, DType::f32);
}

TEST(Checker, NamesTheUnknownAndSuggests) {
  expect_error(kHead + "  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = Xx[i]\n", "did you mean `X`?");
  expect_error(kHead + "  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = X[i] + eps\n", "unknown name `eps`");
  expect_error(kHead + "  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = expp(X[i])\n", "did you mean `exp`?");
  expect_error(kHead + "  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = X\n", "read one element of it");
  expect_error(kHead + "  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = X(i)\n", "read it with square brackets");
}

TEST(Checker, DeclarationErrors) {
  expect_error(kHead + "  in X : f32[N]\n  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = X[i]\n", "already declared");
  expect_error(kHead + "  in sum : f32[N]\n  out Y : f32[N]\n  Y[i] = 1.0\n", "reserved word");
  expect_error(kHead + "  in X : f32[N]\n  out Y : f32[N]\n", "declared but never defined");
  expect_error(kHead + "  in X : f32[N]\n  out Y : f32[N]\n  X[i] = 1.0\n  Y[i] = X[i]\n", "inputs are given, not computed");
  expect_error(kHead + "  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = X[i]\n  Y[i] = X[i]\n", "defined twice");
  expect_error(kHead + "  in X : f32[N - 8]\n  out Y : f32[N]\n  Y[i] = 1.0\n", "outside 1..");
  expect_error(kHead + "  in X : f32[N / 3.0]\n  out Y : f32[N]\n  Y[i] = 1.0\n", "must be an integer");
  expect_error(kHead + "  in X : f32[99999, 99999, 99999]\n  out Y : f32[N]\n  Y[i] = 1.0\n", "more than");
  expect_error(kHead + "  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = Z[i]\n  Z[i] = X[i]\n", "unknown tensor `Z`");
  expect_error(kHead + "  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = Y[i] + X[i]\n", "reads itself");
  expect_error(kHead + "  category gem\n  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = X[i]\n", "did you mean `gemm`?");
}

TEST(Checker, WeakLiteralsAdoptTheirPartnersType) {
  auto p = valid(kHead + "  in H : f16[N]\n  in Q : i8[N]\n  out A : f16[N]\n  out B : i8[N]\n  out C : f32[N]\n"
                         "  A[i] = H[i] * 2\n  B[i] = Q[i] + 1\n  C[i] = Q[i] * 0.5\n");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->stages[0].body->type, DType::f16);
  EXPECT_EQ(p->stages[1].body->type, DType::i8);
  EXPECT_EQ(p->stages[2].body->type, DType::f32);  // a float literal with an integer gives f32
  expect_error(kHead + "  in Q : i8[N]\n  out B : i8[N]\n  B[i] = Q[i] + 300\n", "300 does not fit in i8");
}

TEST(Checker, ConversionsMustBeExplicit) {
  expect_error(kHead + "  in X : f32[N]\n  out Q : i8[N]\n  Q[i] = X[i]\n", "choose the rounding explicitly");
  expect_error(kHead + "  in A : i8[N]\n  out Q : i32[N]\n  Q[i] = A[i] + A[i]\n", "convert explicitly with i32");
  expect_error(kHead + "  in X : f32[N]\n  out Q : f32[N]\n  Q[i] = X[i] > 0\n", "select(condition, 1, 0)");
  valid(kHead + "  in A : i8[N]\n  out Q : i32[N]\n  Q[i] = i32(A[i]) + A[i]\n");
  valid(kHead + "  in A : i32[N]\n  out F : f32[N]\n  F[i] = A[i]\n");  // integer into a float output
  valid(kHead + "  in X : f64[N]\n  out F : f16[N]\n  F[i] = X[i] * 2.0\n");
}

TEST(Checker, OperatorTypeRules) {
  expect_error(kHead + "  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = select(X[i], 1.0, 0.0)\n", "must be a condition");
  expect_error(kHead + "  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = X[i] & 1\n", "needs integers");
  expect_error(kHead + "  in X : i32[N]\n  out Y : f32[N]\n  Y[i] = exp(X[i])\n", "works on floats");
  expect_error(kHead + "  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = X[i] + (X[i] > 0)\n", "operand is bool");
  expect_error(kHead + "  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = X[i * 0.5]\n", "indices must be integers");
  expect_error(kHead + "  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = max(X[i])\n", "takes 2 argument(s), got 1");
  expect_error(kHead + "  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = (i > 0) && 1\n", "needs conditions on both sides");
  auto p = valid(kHead + "  in A : u8[N]\n  in B : i8[N]\n  out Y : i16[N]\n  Y[i] = A[i] + B[i]\n");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->stages[0].body->type, DType::i16);
}

TEST(Checker, IndexRanges) {
  auto p = valid(kHead + "  in A : f32[N, M]\n  in B : f32[M, 3]\n  out Y : f32[N, 3]\n  Y[n, j] = sum(k) A[n, k] * B[k, j]\n");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->stages[0].vars[2].name, "k");
  EXPECT_EQ(p->stages[0].vars[2].extent, 4);
  expect_error(kHead + "  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = sum(k) X[i] * 2.0\n", "cannot tell the range of `k`");
  expect_error(kHead + "  in X : f32[N]\n  out Y : f32[N]\n  Y[i < 7] = X[i]\n", "has size 8, not 7");
  expect_error(kHead + "  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = sum(i) X[i]\n", "declared twice");
  expect_error(kHead + "  in X : f32[N]\n  out Y : f32[N, N]\n  Y[i] = X[i]\n", "has 2 dimension(s) but is defined with 1");
  expect_error(kHead + "  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = X[i, 0]\n", "read with 2 index(es)");
}

TEST(Checker, Distributions) {
  expect_error(kHead + "  in X : f32[N] ~ unifrom(0, 1)\n  out Y : f32[N]\n  Y[i] = X[i]\n", "did you mean `uniform`?");
  expect_error(kHead + "  in X : i8[N] ~ int(0, 300)\n  out Y : i8[N]\n  Y[i] = X[i]\n", "does not fit i8");
  expect_error(kHead + "  in X : i8[N] ~ normal(0, 1)\n  out Y : i8[N]\n  Y[i] = X[i]\n", "come from int(lo, hi)");
  expect_error(kHead + "  in X : f16[N] ~ uniform(0, 1e6)\n  out Y : f16[N]\n  Y[i] = X[i]\n", "can exceed the largest f16");
  expect_error(kHead + "  in X : f32[N] ~ positive(0, 1)\n  out Y : f32[N]\n  Y[i] = X[i]\n", "0 < lo < hi");
  expect_error(kHead + "  in X : bool[N] ~ uniform(0, 1)\n  out Y : bool[N]\n  Y[i] = X[i]\n", "bernoulli(p)");
  auto p = valid(kHead + "  in X : f32[N] ~ normal\n  in I : u8[N]\n  out Y : f32[N]\n  Y[i] = X[i] + I[i]\n");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->tensors[0].dist.text(), "normal(0, 1)");
  EXPECT_EQ(p->tensors[1].dist.text(), "int(0, 255)");
}

TEST(Checker, DimsAndConstsFoldInOrder) {
  auto p = valid("kernel t\n  dim N = 6, H = N / 4 + 1\n  const a = 2, b = a * 1.5, c = -a\n  in X : f32[H]\n  out Y : f32[H]\n"
                 "  Y[i] = X[i] * b + c\n");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->dims[1].second, 2);
  auto y = run(*p);
  auto x = generate_inputs(*p, 1);
  EXPECT_DOUBLE_EQ(y[0].f[1], x[0].f[1] * 3.0 - 2.0);
  expect_error("kernel t\n  const a = b, b = 1\n  out Y : f32[1]\n  Y[i] = 1.0\n", "`b` is not a known dim or const");
  expect_error("kernel t\n  dim N = 1 / 0\n  out Y : f32[1]\n  Y[i] = 1.0\n", "division by zero");
  expect_error("kernel t\n  dim N = 9223372036854775807 + 1\n  out Y : f32[1]\n  Y[i] = 1.0\n", "integer overflow");
}

TEST(Checker, WarnsAboutUnusedInputsAndStages) {
  Checked c = check_text(kHead + "  in X : f32[N]\n  in U : f32[N]\n  out Y : f32[N]\n  T[i] = X[i]\n  Y[i] = X[i]\n");
  ASSERT_TRUE(c.program) << c.rendered();
  std::string r = c.rendered();
  EXPECT_NE(r.find("warning: input `U` is never read"), std::string::npos) << r;
  EXPECT_NE(r.find("warning: stage `T` is computed but never used"), std::string::npos) << r;
}

TEST(Checker, ReportsSeveralErrorsAtOnce) {
  Checked c = check_text(kHead + "  in X : f32[N]\n  out Y : f32[N]\n  out Z : f32[N]\n  Y[i] = X[j]\n  Z[i] = X[i] + q\n");
  EXPECT_GE(c.diags.error_count(), 2u) << c.rendered();
}

TEST(Checker, LimitsDimensionsAndIndexVariables) {
  // 16 dimensions and 32 index variables per stage are allowed (ir/limits.h); one more is not.
  auto dims = [](int n) {
    std::string d = "1";
    for (int k = 1; k < n; ++k) d += ", 1";
    return d;
  };
  auto vars = [](const char* v, int n, const char* extent) {
    std::string s;
    for (int k = 0; k < n; ++k) s += std::string(k ? ", " : "") + v + std::to_string(k) + extent;
    return s;
  };
  valid("kernel t\n  in X : f32[" + dims(16) + "]\n  out Y : f32[" + dims(16) + "]\n  Y[" + vars("v", 16, "") + "] = X[" +
        vars("v", 16, "") + "]\n");
  expect_error("kernel t\n  in X : f32[" + dims(17) + "]\n  out Y : f32[1]\n  Y[i] = 1.0\n", "t.ekb:2:62: error: `X` has 17 dimensions, more than 16");
  expect_error("kernel t\n  out Y : f32[1]\n  T[" + vars("v", 17, "") + "] = 1.0\n  Y[i] = 1.0\n", "`T` has 17 index variables, more than 16");
  valid("kernel t\n  out Y : f32[1]\n  Y[i] = sum(" + vars("k", 31, " < 1") + ") 1.0\n");
  expect_error("kernel t\n  out Y : f32[1]\n  Y[i] = sum(" + vars("k", 32, " < 1") + ") 1.0\n",
               "`Y` has 33 index variables (with its reductions'), more than 32");
}

}  // namespace
}  // namespace ekb::test
