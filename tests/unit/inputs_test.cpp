// Input generation: deterministic per (task, seed, input), in range, rounded to the input's type.
#include <cmath>

#include "ir/float16.h"
#include "test_util.h"

namespace ekb::test {
namespace {

const char* kText =
    "kernel gen\n  dim N = 4096\n  in U : f32[N] ~ uniform(-2, 3)\n  in G : f64[N] ~ normal(1, 0.5)\n"
    "  in P : f32[N] ~ positive(0.01, 100)\n  in X : f16[N] ~ mixed(-2, 2)\n  in I : i8[N] ~ int(-5, 5)\n"
    "  in B : bool[N] ~ bernoulli(0.25)\n  in H : bf16[N]\n  out Y : f64[N]\n"
    "  Y[i] = U[i] + G[i] + P[i] + X[i] + I[i] + select(B[i], 1.0, 0.0) + H[i]\n";

TEST(Inputs, SameSeedSameValuesOtherSeedOtherValues) {
  auto p = valid(kText);
  ASSERT_TRUE(p);
  auto a = generate_inputs(*p, 11), b = generate_inputs(*p, 11), c = generate_inputs(*p, 12);
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_TRUE(a[k].same_values(b[k])) << a[k].name;
    EXPECT_FALSE(a[k].same_values(c[k])) << a[k].name;
  }
}

TEST(Inputs, StreamsAreIndependentPerInput) {
  // Adding an input does not change the values of the others.
  auto p = valid("kernel gen\n  dim N = 64\n  in U : f32[N] ~ uniform(-2, 3)\n  out Y : f32[N]\n  Y[i] = U[i]\n");
  auto q = valid("kernel gen\n  dim N = 64\n  in Z : f32[N]\n  in U : f32[N] ~ uniform(-2, 3)\n  out Y : f32[N]\n  Y[i] = U[i] + Z[i]\n");
  ASSERT_TRUE(p && q);
  EXPECT_TRUE(generate_inputs(*p, 3)[0].same_values(generate_inputs(*q, 3)[1]));
}

TEST(Inputs, ValuesFollowTheirDistributions) {
  auto p = valid(kText);
  ASSERT_TRUE(p);
  auto in = generate_inputs(*p, 1);
  auto mean = [](const TensorData& t) {
    double s = 0;
    for (int64_t k = 0; k < t.size(); ++k) s += t.value(k);
    return s / static_cast<double>(t.size());
  };
  for (double v : in[0].f) {
    ASSERT_GE(v, -2.0);
    ASSERT_LT(v, 3.0);
    ASSERT_EQ(v, static_cast<double>(static_cast<float>(v)));  // rounded to f32
  }
  EXPECT_NEAR(mean(in[0]), 0.5, 0.05);
  EXPECT_NEAR(mean(in[1]), 1.0, 0.03);
  for (double v : in[2].f) ASSERT_TRUE(v >= 0.0099 && v <= 100.01) << v;
  for (double v : in[3].f) {
    ASSERT_TRUE(std::fabs(v) >= 0.0099 && std::fabs(v) <= 100.1) << v;
    ASSERT_EQ(v, round_to_f16(v));  // rounded to f16
  }
  int seen[11] = {};
  for (int64_t v : in[4].i) {
    ASSERT_TRUE(v >= -5 && v <= 5);
    seen[v + 5]++;
  }
  for (int c : seen) EXPECT_GT(c, 200);  // every value of the range appears
  EXPECT_NEAR(mean(in[5]), 0.25, 0.03);
  for (double v : in[6].f) ASSERT_EQ(v, round_to_bf16(v));
}

TEST(Inputs, SeedsTwoAndThreeShapeTheDistributionWithinItsRange) {
  // Seed 2 pushes values to the ends of the declared range, seed 3 gathers them in its middle; the
  // range holds for both (the harness's three reference sets differ in distribution).
  auto p = valid(kText);
  ASSERT_TRUE(p);
  EXPECT_EQ(input_shape(1), InputShape::declared);
  EXPECT_EQ(input_shape(2), InputShape::ends);
  EXPECT_EQ(input_shape(3), InputShape::middle);
  auto share = [](const TensorData& t, auto pred) {
    int64_t n = 0;
    for (int64_t k = 0; k < t.size(); ++k) n += pred(t.value(k));
    return static_cast<double>(n) / static_cast<double>(t.size());
  };
  auto near_ends = [](double v) { return v < -1.5 || v > 2.5; };       // the outer 20% of [-2, 3)
  auto in_middle = [](double v) { return v > 0.0 && v < 1.0; };        // the middle 20%
  auto declared = generate_inputs(*p, 1), ends = generate_inputs(*p, 2), middle = generate_inputs(*p, 3);
  EXPECT_NEAR(share(declared[0], near_ends), 0.2, 0.03);
  EXPECT_NEAR(share(ends[0], near_ends), 0.59, 0.03);   // P(|2u-1|^(1/4) > 0.8)
  EXPECT_NEAR(share(middle[0], in_middle), 0.585, 0.03);  // P(|2u-1|^3 < 0.2)
  for (const auto* set : {&ends, &middle}) {
    for (double v : (*set)[0].f) ASSERT_TRUE(v >= -2.0 && v < 3.0) << v;
    for (double v : (*set)[2].f) ASSERT_TRUE(v >= 0.0099 && v <= 100.01) << v;
    for (double v : (*set)[3].f) ASSERT_TRUE(std::fabs(v) >= 0.0099 && std::fabs(v) <= 100.1) << v;
    for (int64_t v : (*set)[4].i) ASSERT_TRUE(v >= -5 && v <= 5) << v;
  }
  EXPECT_GT(share(ends[4], [](double v) { return v == -5 || v == 5; }), 0.5);  // index bounds hit often
  auto spread = [](const TensorData& t) {
    double s = 0, s2 = 0;
    for (int64_t k = 0; k < t.size(); ++k) s += t.value(k), s2 += t.value(k) * t.value(k);
    double n = static_cast<double>(t.size());
    return std::sqrt(s2 / n - (s / n) * (s / n));
  };
  EXPECT_NEAR(spread(declared[1]), 0.5, 0.03);
  EXPECT_NEAR(spread(ends[1]), 1.5, 0.1);
  EXPECT_NEAR(spread(middle[1]), 0.125, 0.01);
}

TEST(Float16, RoundsToNearestEven) {
  EXPECT_EQ(round_to_f16(1.0), 1.0);
  EXPECT_EQ(round_to_f16(65504.0), 65504.0);
  EXPECT_TRUE(std::isinf(round_to_f16(65520.0)));
  EXPECT_EQ(round_to_f16(65519.0), 65504.0);
  EXPECT_EQ(round_to_f16(1.0 + std::ldexp(1.0, -11)), 1.0);                        // tie: to even
  EXPECT_EQ(round_to_f16(1.0 + 3 * std::ldexp(1.0, -11)), 1.0 + std::ldexp(1.0, -9));  // tie: to even (up)
  EXPECT_EQ(round_to_f16(std::ldexp(1.0, -24)), std::ldexp(1.0, -24));             // smallest subnormal
  EXPECT_EQ(round_to_f16(std::ldexp(1.0, -25)), 0.0);                              // half of it: tie to zero
  EXPECT_EQ(f16_bits_from_double(-2.0), 0xc000);
  EXPECT_EQ(double_from_f16_bits(0x3555), 0.333251953125);
  for (uint32_t h = 0; h < 0x7c00; ++h) ASSERT_EQ(f16_bits_from_double(double_from_f16_bits(static_cast<uint16_t>(h))), h);
}

TEST(Float16, BFloat16RoundsToNearestEven) {
  EXPECT_EQ(round_to_bf16(1.0), 1.0);
  EXPECT_EQ(round_to_bf16(1.0 + std::ldexp(1.0, -8)), 1.0);                        // tie: to even
  EXPECT_EQ(round_to_bf16(1.0 + 3 * std::ldexp(1.0, -8)), 1.0 + std::ldexp(1.0, -6));
  EXPECT_EQ(round_to_bf16(1.0 + std::ldexp(1.0, -8) + 1e-12), 1.0 + std::ldexp(1.0, -7));  // above the tie
  EXPECT_EQ(bf16_bits_from_double(-2.0), 0xc000);
  EXPECT_TRUE(std::isinf(round_to_bf16(3.4e38)));
  EXPECT_EQ(round_to_bf16(3.39e38), 3.3895313892515355e38);  // 255 * 2^120, the largest
  EXPECT_EQ(round_to_bf16(3.38e38), 254 * std::ldexp(1.0, 120));
}

}  // namespace
}  // namespace ekb::test
