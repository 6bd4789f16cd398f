// The simplifier's folding of constant data integers (wrapping as their type), and the index
// simplifier's division rules: whole multiples of the divisor leave a division, and a
// constant smaller than the other terms' common factor joins the remainder. Each rewrite is checked
// against floor division and modulo at every value of its variables, and for the shape it must have
// (the GPU compiler proves four neighbouring elements aligned only from the simple form).
#include <gtest/gtest.h>

#include "ir/semantics.h"
#include "lower/simplify.h"

namespace ekb::lower {
namespace {

using namespace lir;

// e(ty, tx) evaluated by substitution and constant folding.
int64_t value_at(const ExprP& e, int64_t ty, int64_t tx) {
  ExprP v = simplify(e, RangeScope{});
  std::function<ExprP(const ExprP&)> sub = [&](const ExprP& x) -> ExprP {
    if (x->kind == EK::var) return int_imm(x->name == "ty" ? ty : tx);
    auto c = std::make_shared<lir::Expr>(*x);
    for (auto& a : c->args) a = sub(a);
    return c;
  };
  int64_t out = 0;
  EXPECT_TRUE(is_const(simplify(sub(v)), &out)) << to_string(v);
  return out;
}

TEST(Simplify, ConstantDataIntegerArithmeticFoldsAsItWraps) {
  // (`2 * BS * BS` in i32, BS a dimension: unfolded, a division by it ran lane by lane.)
  auto i32 = [](int64_t v) { return int_imm(v, DType::i32); };
  auto fold = [](const ExprP& e) {
    int64_t v = 0;
    ExprP s = simplify(e, RangeScope{});
    EXPECT_TRUE(is_const(s, &v)) << to_string(s);
    EXPECT_EQ(s->type, e->type);
    return v;
  };
  EXPECT_EQ(fold(binary(BinOp::mul, binary(BinOp::mul, i32(2), i32(11), DType::i32), i32(11), DType::i32)), 242);
  EXPECT_EQ(fold(binary(BinOp::mul, i32(65536), i32(65536), DType::i32)), 0);  // 2^32 wraps to 0 in i32
  EXPECT_EQ(fold(binary(BinOp::add, int_imm(200, DType::u8), int_imm(100, DType::u8), DType::u8)), 44);
  EXPECT_EQ(fold(binary(BinOp::sub, i32(-2147483647 - 1), i32(1), DType::i32)), 2147483647);
}

TEST(Simplify, DivisionByAPowerOfTwoKeepsOnlyTheSmallTermsInside) {
  RangeScope scope;
  scope.set("ty", Range{0, 7});
  scope.set("tx", Range{0, 15});
  ExprP x = add(add(mul(var("ty"), int_imm(64)), mul(var("tx"), int_imm(4))), int_imm(17));
  ExprP q = simplify(floordiv(x, int_imm(16)), scope);
  ExprP r = simplify(floormod(x, int_imm(16)), scope);
  // ty * 64 leaves the division whole; the 1 of 17 = 16 + 1 cannot cross a multiple of 16 from a
  // multiple of 4, so only tx * 4 stays inside.
  EXPECT_EQ(to_string(q), "(((ty * 4) + ((tx * 4) / 16)) + 1)") << to_string(q);
  EXPECT_EQ(to_string(r), "(((tx * 4) % 16) + 1)") << to_string(r);
  for (int64_t ty = 0; ty < 8; ++ty)
    for (int64_t tx = 0; tx < 16; ++tx) {
      int64_t v = ty * 64 + tx * 4 + 17;
      EXPECT_EQ(value_at(q, ty, tx), sem::floor_div(v, 16));
      EXPECT_EQ(value_at(r, ty, tx), sem::floor_mod(v, 16));
    }
}

TEST(Simplify, TheRulesHoldForNegativeValuesToo) {
  // No ranges: the variables may be negative; floor semantics must still hold.
  ExprP x = add(sub(mul(var("ty"), int_imm(12)), mul(var("tx"), int_imm(8))), int_imm(-3));
  for (int64_t k : {4, 8, 24}) {
    ExprP q = simplify(floordiv(x, int_imm(k))), r = simplify(floormod(x, int_imm(k)));
    for (int64_t ty = -5; ty <= 5; ++ty)
      for (int64_t tx = -5; tx <= 5; ++tx) {
        int64_t v = ty * 12 - tx * 8 - 3;
        EXPECT_EQ(value_at(q, ty, tx), sem::floor_div(v, k)) << k << " " << to_string(q);
        EXPECT_EQ(value_at(r, ty, tx), sem::floor_mod(v, k)) << k << " " << to_string(r);
      }
  }
}

}  // namespace
}  // namespace ekb::lower
