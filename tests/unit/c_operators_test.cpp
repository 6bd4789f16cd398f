// Operators whose C spelling needs care: vectorized shifts whose count has another integer type than
// the shifted value (an i8 shifted by a literal, an i64 by an i32 tensor, a u8 left shift that
// wraps: the vector code converts the count to the value's lanes), and the negation of a negative
// constant (`-a` with a = -2.0 is not `--2.0f`).
#include "cpu_test_util.h"

namespace ekb::test {
namespace {

struct ShiftCase {
  const char* what;
  const char* text;
};

TEST(VectorShift, ACountOfAnotherTypeIsConvertedToTheValuesLanes) {
  const ShiftCase cases[] = {
      {"i8 >> literal", R"(kernel shr_i8_lit
  dim N = 100
  in P : i8[N]
  out Y : i8[N]
  Y[i] = P[i] >> 4
)"},
      {"i64 >> i32 tensor", R"(kernel shr_i64_by_i32
  dim N = 100
  in A : i64[N] ~ int(-100000, 100000)
  in S : i32[N] ~ int(0, 7)
  out Y : i64[N]
  Y[i] = A[i] >> S[i]
)"},
      {"u8 << literal, wrapping", R"(kernel shl_u8_lit
  dim N = 100
  in U : u8[N] ~ int(0, 255)
  out Y : u8[N]
  Y[i] = U[i] << 3
)"},
      {"i32 >> i8 tensor", R"(kernel shr_i32_by_i8
  dim N = 100
  in A : i32[N] ~ int(-1000000, 1000000)
  in S : i8[N] ~ int(0, 20)
  out Y : i32[N]
  Y[i] = A[i] >> S[i]
)"},
  };
  for (const auto& c : cases) {
    auto p = valid(c.text);
    ASSERT_TRUE(p) << c.what;
    CpuCheck r = check_on_cpu(*p, "schedule cpu\n  Y: split i 16 -> io ii; vectorize ii\n");
    EXPECT_TRUE(r.pass) << c.what << ": " << r.report;
    EXPECT_NE(r.c_source.find("x16"), std::string::npos) << c.what << ": not vectorized:\n" << r.c_source;
  }
}

TEST(COperators, NegatingANegativeConstantIsNotADecrement) {
  auto p = valid(R"(kernel neg_neg_const
  dim N = 40
  const a = -2.0
  in X : f32[N]
  out Y : f32[N]
  Y[i] = -a * X[i] + -(-1.5)
)");
  ASSERT_TRUE(p);
  for (const char* schedule : {"none", "schedule cpu\n  Y: split i 16 -> io ii; vectorize ii\n"}) {
    CpuCheck r = check_on_cpu(*p, schedule);
    EXPECT_TRUE(r.pass) << schedule << ": " << r.report;
    EXPECT_EQ(r.c_source.find("--"), std::string::npos) << r.c_source;
  }
}

}  // namespace
}  // namespace ekb::test
