// Constant folding with overflow checks: integers stay exact (floor division as in L0), floats follow
// the same functions the interpreter uses.
#include "ir/const_eval.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <numbers>

#include "ir/parser.h"
#include "ir/semantics.h"

namespace ekb {
namespace {

struct Folder {
  const ConstLookup& lookup;
  const SourcePtr& src;
  DiagnosticList& diags;
  const std::string& what;

  std::optional<ConstValue> fail(const Expr& e, std::string msg, std::string fix) {
    diags.error(src, e.loc, std::move(msg), std::move(fix));
    return std::nullopt;
  }

  std::optional<ConstValue> overflow(const Expr& e) {
    return fail(e, fmt::format("integer overflow in {}", what), "use smaller values");
  }

  std::optional<ConstValue> eval(const Expr& e) {
    switch (e.kind) {
      case ExprKind::int_lit: {
        ConstValue v;
        auto [p, ec] = std::from_chars(e.text.data(), e.text.data() + e.text.size(), v.i);
        if (ec != std::errc() || p != e.text.data() + e.text.size())
          return fail(e, fmt::format("the integer `{}` is too large", e.text), "integers must be below 2^63");
        return v;
      }
      case ExprKind::float_lit: {
        ConstValue v;
        v.is_float = true;
        v.f = std::strtod(e.text.c_str(), nullptr);
        if (!std::isfinite(v.f)) return fail(e, fmt::format("the number `{}` is too large", e.text), "use `inf` for infinity");
        return v;
      }
      case ExprKind::bool_lit:
        return fail(e, fmt::format("{} must be a number, not `{}`", what, e.text), "write a number, a dim or a const");
      case ExprKind::name: {
        if (e.text == "inf") return ConstValue{true, 0, INFINITY};
        if (e.text == "pi") return ConstValue{true, 0, std::numbers::pi};
        if (auto v = lookup(e.text)) return v;
        return fail(e, fmt::format("`{}` is not a known dim or const in {}", e.text, what),
                    "constant expressions use numbers, dims and consts declared above");
      }
      case ExprKind::unary: {
        auto a = eval(*e.args[0]);
        if (!a) return a;
        if (e.unop != UnOp::neg)
          return fail(e, fmt::format("only `-` is allowed as a prefix in {}", what), "constant expressions are arithmetic on numbers");
        if (a->is_float) return ConstValue{true, 0, -a->f};
        if (a->i == INT64_MIN) return overflow(e);
        return ConstValue{false, -a->i, 0};
      }
      case ExprKind::binary: {
        auto a = eval(*e.args[0]);
        auto b = eval(*e.args[1]);
        if (!a || !b) return std::nullopt;
        BinOp op = e.binop;
        if (op != BinOp::add && op != BinOp::sub && op != BinOp::mul && op != BinOp::div && op != BinOp::mod)
          return fail(e, fmt::format("only + - * / % are allowed in {}", what),
                      "compute the value with arithmetic, or use select(...) in a stage instead");
        if (a->is_float || b->is_float) {
          double x = a->as_double(), y = b->as_double(), r = 0;
          switch (op) {
            case BinOp::add: r = x + y; break;
            case BinOp::sub: r = x - y; break;
            case BinOp::mul: r = x * y; break;
            case BinOp::div: r = x / y; break;
            default: r = sem::float_mod(x, y); break;
          }
          return ConstValue{true, 0, r};
        }
        int64_t x = a->i, y = b->i, r = 0;
        switch (op) {
          case BinOp::add: if (__builtin_add_overflow(x, y, &r)) return overflow(e); break;
          case BinOp::sub: if (__builtin_sub_overflow(x, y, &r)) return overflow(e); break;
          case BinOp::mul: if (__builtin_mul_overflow(x, y, &r)) return overflow(e); break;
          case BinOp::div:
          case BinOp::mod:
            if (y == 0) return fail(e, fmt::format("division by zero in {}", what), "check the dims the divisor uses");
            r = op == BinOp::div ? sem::floor_div(x, y) : sem::floor_mod(x, y);
            break;
          default: break;
        }
        return ConstValue{false, r, 0};
      }
      case ExprKind::call: {
        auto fn = function_from_name(e.text);
        std::vector<ConstValue> args;
        for (const auto& a : e.args) {
          auto v = eval(*a);
          if (!v) return std::nullopt;
          args.push_back(*v);
        }
        if (!fn)
          return fail(e, fmt::format("`{}(...)` is not allowed in {}", e.text, what),
                      "constant expressions may call min, max, pow and one-argument math functions");
        if ((*fn == Fn::min || *fn == Fn::max || *fn == Fn::pow) && args.size() == 2) {
          if (*fn == Fn::pow) return ConstValue{true, 0, std::pow(args[0].as_double(), args[1].as_double())};
          bool fl = args[0].is_float || args[1].is_float;
          bool pick_a = *fn == Fn::min ? args[0].as_double() <= args[1].as_double()
                                       : args[0].as_double() >= args[1].as_double();
          ConstValue r = pick_a ? args[0] : args[1];
          if (fl && !r.is_float) r = ConstValue{true, 0, static_cast<double>(r.i)};
          return r;
        }
        if (args.size() != 1 || *fn == Fn::select || *fn == Fn::clamp || *fn == Fn::atan2)
          return fail(e, fmt::format("`{}` with {} argument(s) is not allowed in {}", e.text, args.size(), what),
                      "constant expressions may call min, max, pow and one-argument math functions");
        if (*fn == Fn::abs && !args[0].is_float) {
          if (args[0].i == INT64_MIN) return overflow(e);
          return ConstValue{false, args[0].i < 0 ? -args[0].i : args[0].i, 0};
        }
        return ConstValue{true, 0, sem::apply_unary_fn(*fn, args[0].as_double())};
      }
      case ExprKind::access:
      case ExprKind::reduce:
        return fail(e, fmt::format("{} must be a constant, but it reads a tensor or reduces", what),
                    "use numbers, dims and consts only");
    }
    return std::nullopt;
  }
};

}  // namespace

std::optional<ConstValue> eval_const(const Expr& e, const ConstLookup& lookup, const SourcePtr& src,
                                     DiagnosticList& diags, const std::string& what) {
  Folder f{lookup, src, diags, what};
  return f.eval(e);
}

}  // namespace ekb
