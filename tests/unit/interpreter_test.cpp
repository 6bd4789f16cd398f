// The reference interpreter's semantics, each pinned to values computed by hand or by plain loops.
#include <cmath>
#include <cstring>

#include "ir/float16.h"
#include "test_util.h"

namespace ekb::test {
namespace {

TensorData make(const std::string& name, DType t, std::vector<int64_t> shape, std::vector<double> values) {
  TensorData d(name, t, std::move(shape));
  for (size_t k = 0; k < values.size(); ++k) {
    if (d.holds_float()) d.f[k] = values[k];
    else d.i[k] = static_cast<int64_t>(values[k]);
  }
  return d;
}

std::vector<double> values(const TensorData& t) {
  std::vector<double> v;
  for (int64_t k = 0; k < t.size(); ++k) v.push_back(t.value(k));
  return v;
}

std::vector<double> eval1(const std::string& text, std::vector<TensorData> inputs) {
  auto p = valid(text);
  if (!p) return {};
  return values(interpret(*p, inputs).at(0));
}

TEST(Interpreter, MatmulMatchesPlainLoops) {
  auto p = valid("kernel mm\n  dim M = 33, N = 17, K = 65\n  in A : f32[M, K]\n  in B : f32[K, N]\n  out C : f32[M, N]\n"
                 "  C[m, n] = sum(k) A[m, k] * B[k, n]\n");
  ASSERT_TRUE(p);
  auto in = generate_inputs(*p, 7);
  auto out = interpret(*p, in);
  for (int m = 0; m < 33; ++m)
    for (int n = 0; n < 17; ++n) {
      double s = 0;
      for (int k = 0; k < 65; ++k) s += in[0].f[m * 65 + k] * in[1].f[k * 17 + n];
      ASSERT_DOUBLE_EQ(out[0].f[m * 17 + n], s) << m << "," << n;
    }
}

// A large stage is split over threads (contiguous ranges of its output): every element is the same
// bit for bit as on one thread, with a reduction and a stage that reads the previous one.
TEST(Interpreter, ThreadsGiveTheSameResultsBitForBit) {
  auto p = valid("kernel mm\n  dim M = 300, N = 257, K = 31\n  in A : f32[M, K]\n  in B : f32[K, N]\n  out C : f32[M, N]\n"
                 "  T[m, n] = sum(k) A[m, k] * B[k, n]\n  C[m, n] = tanh(T[m, n]) + T[m, (n + 1) % N]\n");
  ASSERT_TRUE(p);
  auto in = generate_inputs(*p, 3);
  InterpretOptions one, many;
  one.threads = 1;
  many.threads = 7;  // (M x N / 1024 = 75 chunks: 4 ranges of at least 16 chunks; none ends on a row)
  auto a = interpret(*p, in, one), b = interpret(*p, in, many);
  ASSERT_EQ(a.at(0).size(), b.at(0).size());
  int64_t differ = 0;
  for (int64_t k = 0; k < a[0].size(); ++k) differ += std::memcmp(&a[0].f[k], &b[0].f[k], sizeof(double)) != 0;
  EXPECT_EQ(differ, 0);
}

// A fault in the last range is reported from the thread that met it, as one thread reports it.
TEST(Interpreter, AFaultOnAnotherThreadIsReported) {
  auto p = valid("kernel t\n  dim N = 100000\n  in A : i32[N] ~ int(1, 3)\n  out Y : i32[N]\n  Y[i] = 10 / (A[i] - select(i == N - 1, A[i], 0))\n");
  ASSERT_TRUE(p);
  auto in = generate_inputs(*p, 1);
  for (int threads : {1, 4}) {
    InterpretOptions o;
    o.threads = threads;
    try {
      interpret(*p, in, o);
      ADD_FAILURE() << "no fault with " << threads << " threads";
    } catch (const DiagnosticError& e) {
      EXPECT_NE(std::string(e.what()).find("while evaluating"), std::string::npos) << e.what();
    }
  }
}

TEST(Interpreter, IntegersWrapInTheirType) {
  std::string k = "kernel t\n  in A : i8[4]\n  out Y : i8[4]\n  Y[i] = A[i] + 100\n";
  EXPECT_EQ(eval1(k, {make("A", DType::i8, {4}, {27, 28, -128, 100})}), (std::vector<double>{127, -128, -28, -56}));
  std::string u = "kernel t\n  in A : u8[3]\n  out Y : u8[3]\n  Y[i] = A[i] * 2 - 1\n";
  EXPECT_EQ(eval1(u, {make("A", DType::u8, {3}, {0, 128, 200})}), (std::vector<double>{255, 255, 143}));
}

TEST(Interpreter, FloorDivisionAndModulo) {
  std::string k = "kernel t\n  in A : i32[4]\n  out Q : i32[4]\n  out R : i32[4]\n  Q[i] = A[i] / 2\n  R[i] = A[i] % 2\n";
  auto p = valid(k);
  ASSERT_TRUE(p);
  auto out = interpret(*p, {make("A", DType::i32, {4}, {7, -7, 6, -1})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{3, -4, 3, -1}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{1, 1, 0, 1}));
  std::string f = "kernel t\n  in X : f64[2]\n  out Y : f64[2]\n  Y[i] = X[i] % 3.0\n";
  EXPECT_EQ(eval1(f, {make("X", DType::f64, {2}, {-1.0, 7.5})}), (std::vector<double>{2.0, 1.5}));
}

TEST(Interpreter, DivisionByZeroIsARunTimeError) {
  auto p = valid("kernel t\n  in A : i32[2] ~ int(0, 1)\n  out Y : i32[2]\n  Y[i] = 10 / A[i]\n");
  ASSERT_TRUE(p);
  EXPECT_THROW(interpret(*p, {make("A", DType::i32, {2}, {1, 0})}), DiagnosticError);
  // ...but not in a branch that is not taken.
  auto q = valid("kernel t\n  in A : i32[2] ~ int(0, 1)\n  out Y : i32[2]\n  Y[i] = select(A[i] != 0, 10 / A[i], -1)\n");
  ASSERT_TRUE(q);
  EXPECT_EQ(values(interpret(*q, {make("A", DType::i32, {2}, {1, 0})})[0]), (std::vector<double>{10, -1}));
}

TEST(Interpreter, CastsRoundTowardZeroAndSaturate) {
  std::string k = "kernel t\n  in X : f32[6]\n  out Y : i8[6]\n  Y[i] = i8(X[i])\n";
  double nan = std::nan("");
  EXPECT_EQ(eval1(k, {make("X", DType::f32, {6}, {2.7, -2.7, 1000, -1000, nan, 0.5})}),
            (std::vector<double>{2, -2, 127, -128, 0, 0}));
  std::string r = "kernel t\n  in X : f32[4]\n  out Y : i32[4]\n  Y[i] = i32(round(X[i]))\n";
  EXPECT_EQ(eval1(r, {make("X", DType::f32, {4}, {0.5, 1.5, 2.5, -0.5})}), (std::vector<double>{0, 2, 2, 0}));
  std::string w = "kernel t\n  in A : i32[2]\n  out Y : i8[2]\n  Y[i] = i8(A[i])\n";
  EXPECT_EQ(eval1(w, {make("A", DType::i32, {2}, {300, -129})}), (std::vector<double>{44, 127}));
}

TEST(Interpreter, SelectAndLogicAreLazy) {
  // The not-taken branch reads out of range: fine, because select is lazy.
  std::string k = "kernel t\n  in X : f32[4]\n  out Y : f32[4]\n  Y[i] = select(i >= 1, X[i - 1], -1.0) + select(i == 3 || X[i + 1] > 0, 0.0, 10.0)\n";
  EXPECT_EQ(eval1(k, {make("X", DType::f32, {4}, {1, -2, 3, 4})}), (std::vector<double>{9, 1, -2, 3}));
}

TEST(Interpreter, ReductionsAndTheirIdentities) {
  std::string k =
      "kernel t\n  in X : f64[2, 3]\n  out S : f64[2]\n  out P : f64[2]\n  out Mx : f64[2]\n  out Mn : f64[2]\n  out T : f64[]\n"
      "  S[r] = sum(c) X[r, c]\n  P[r] = prod(c) X[r, c]\n  Mx[r] = max(c) X[r, c]\n  Mn[r] = min(c) X[r, c]\n"
      "  T = sum(r, c) X[r, c] * X[r, c]\n";
  auto p = valid(k);
  ASSERT_TRUE(p);
  auto out = interpret(*p, {make("X", DType::f64, {2, 3}, {1, -2, 3, 0.5, 4, -8})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{2, -3.5}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{-6, -16}));
  EXPECT_EQ(values(out[2]), (std::vector<double>{3, 4}));
  EXPECT_EQ(values(out[3]), (std::vector<double>{-2, -8}));
  EXPECT_EQ(values(out[4]), (std::vector<double>{1 + 4 + 9 + 0.25 + 16 + 64}));
}

TEST(Interpreter, LargeReductionToAScalarUsesPointsAsLanes) {
  auto p = valid("kernel t\n  dim N = 3000\n  in X : f64[N]\n  out S : f64[]\n  out M : f64[]\n  S = sum(i) X[i] * i\n  M = max(i) X[i]\n");
  ASSERT_TRUE(p);
  auto in = generate_inputs(*p, 3);
  auto out = interpret(*p, in);
  double s = 0, m = -INFINITY;
  for (int i = 0; i < 3000; ++i) {
    s += in[0].f[i] * i;
    m = std::max(m, in[0].f[i]);
  }
  EXPECT_NEAR(out[0].f[0], s, 1e-9 * std::fabs(s));
  EXPECT_EQ(out[1].f[0], m);
}

TEST(Interpreter, NestedReductionsInsideElementwise) {
  // Softmax written in one stage: each element recomputes its row's max and sum.
  auto p = valid("kernel t\n  in X : f64[2, 5]\n  out Y : f64[2, 5]\n"
                 "  Y[r, c] = exp(X[r, c] - (max(j) X[r, j])) / (sum(k) exp(X[r, k] - (max(q) X[r, q])))\n");
  ASSERT_TRUE(p);
  auto in = generate_inputs(*p, 5);
  auto out = interpret(*p, in);
  for (int r = 0; r < 2; ++r) {
    double mx = -INFINITY, s = 0;
    for (int c = 0; c < 5; ++c) mx = std::max(mx, in[0].f[r * 5 + c]);
    for (int c = 0; c < 5; ++c) s += std::exp(in[0].f[r * 5 + c] - mx);
    for (int c = 0; c < 5; ++c) EXPECT_NEAR(out[0].f[r * 5 + c], std::exp(in[0].f[r * 5 + c] - mx) / s, 1e-15);
  }
}

TEST(Interpreter, FloatsAreCarriedInDouble) {
  // 1 + 1e-10 is not representable in f32, but the reference computes in f64 and does not round.
  std::string k = "kernel t\n  in X : f32[1]\n  out Y : f64[1]\n  Y[i] = f32(X[i] + 1e-10) - X[i]\n";
  auto v = eval1(k, {make("X", DType::f32, {1}, {1.0})});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NEAR(v[0], 1e-10, 1e-15);  // f32 rounding would give 0
}

TEST(Interpreter, MathFunctionsAndNaNPropagation) {
  std::string k = "kernel t\n  in X : f64[3]\n  out Y : f64[3]\n  out Z : f64[3]\n"
                  "  Y[i] = sigmoid(X[i]) + erf(X[i]) + rsqrt(abs(X[i]) + 1.0)\n  Z[i] = max(X[i], 0.0)\n";
  auto p = valid(k);
  ASSERT_TRUE(p);
  double nan = std::nan("");
  auto out = interpret(*p, {make("X", DType::f64, {3}, {0.5, -1.0, nan})});
  EXPECT_DOUBLE_EQ(out[0].f[0], 1 / (1 + std::exp(-0.5)) + std::erf(0.5) + 1 / std::sqrt(1.5));
  EXPECT_DOUBLE_EQ(out[0].f[1], 1 / (1 + std::exp(1.0)) + std::erf(-1.0) + 1 / std::sqrt(2.0));
  EXPECT_TRUE(std::isnan(out[0].f[2]));
  EXPECT_TRUE(std::isnan(out[1].f[2]));  // max with NaN is NaN
  EXPECT_EQ(out[1].f[1], 0.0);
}

TEST(Interpreter, BitwiseAndShifts) {
  std::string k = "kernel t\n  in A : i32[3]\n  out Y : i32[3]\n  Y[i] = ((A[i] << 4) | 3) ^ (A[i] >> 1) & 255\n";
  std::vector<double> want;
  for (int a : {5, -16, 1 << 28}) want.push_back(static_cast<int32_t>((static_cast<uint32_t>(a) << 4) | 3) ^ ((a >> 1) & 255));
  EXPECT_EQ(eval1(k, {make("A", DType::i32, {3}, {5, -16, 1 << 28})}), want);
  auto p = valid("kernel t\n  in A : i32[1] ~ int(0, 40)\n  out Y : i32[1]\n  Y[i] = 1 << A[i]\n");
  ASSERT_TRUE(p);
  EXPECT_THROW(interpret(*p, {make("A", DType::i32, {1}, {32})}), DiagnosticError);
}

TEST(Interpreter, RejectsInputsOfTheWrongShape) {
  auto p = valid("kernel t\n  in A : f32[3]\n  out Y : f32[3]\n  Y[i] = A[i]\n");
  ASSERT_TRUE(p);
  EXPECT_THROW(interpret(*p, {make("A", DType::f32, {4}, {1, 2, 3, 4})}), std::invalid_argument);
}

}  // namespace
}  // namespace ekb::test
