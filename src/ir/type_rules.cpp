// The type rules that need no name resolution: combining operand types (weak literals adopt their
// partner's type), what may be assigned to an output, and settling weak types once a position fixes
// them (docs/ir.md, "Types").
#include "ir/type_rules.h"

#include <fmt/format.h>

namespace ekb {

bool combine_types(const Expr& a, const Expr& b, Loc loc, const char* op, DType& type, bool& weak, const SourcePtr& src,
                   DiagnosticList& d) {
  if (a.type == DType::boolean || b.type == DType::boolean) {
    d.error(src, loc, fmt::format("`{}` needs numbers, but an operand is bool", op),
          "convert a condition with f32(c) or select(c, 1.0, 0.0)");
    return false;
  }
  if (a.weak && b.weak) {
    weak = true;
    type = (is_float(a.type) || is_float(b.type)) ? DType::f64 : DType::i64;
    return true;
  }
  weak = false;
  if (a.weak || b.weak) {
    const Expr& w = a.weak ? a : b;
    const Expr& s = a.weak ? b : a;
    type = (is_float(w.type) && is_int(s.type)) ? DType::f32 : s.type;
    return true;
  }
  auto p = promote(a.type, b.type);
  if (!p) {
    d.error(src, loc, fmt::format("`{}` cannot combine {} and {}", op, dtype_name(a.type), dtype_name(b.type)),
          "convert one side explicitly, e.g. f32(x)");
    return false;
  }
  type = *p;
  return true;
}

void check_assignable(const Expr& e, DType from, DType to, const std::string& name, const SourcePtr& src,
                      DiagnosticList& d) {
  if (from == to) return;
  if (is_float(from) && is_float(to)) return;
  if (is_int(from) && is_float(to)) return;
  std::string msg = fmt::format("`{}` is {}, but the value computed for it is {}", name, dtype_name(to), dtype_name(from));
  std::string fix;
  if (from == DType::boolean) fix = fmt::format("convert explicitly: {}(condition) or select(condition, 1, 0)", dtype_name(to));
  else if (is_float(from)) fix = fmt::format("choose the rounding explicitly: {}(round(x)), {}(floor(x)) or {}(x) (truncates)", dtype_name(to), dtype_name(to), dtype_name(to));
  else if (to == DType::boolean) fix = "compare explicitly, e.g. x != 0";
  else fix = fmt::format("convert explicitly with {}(...); to compute in {}, convert the operands first", dtype_name(to), dtype_name(to));
  d.error(src, e.loc, std::move(msg), std::move(fix));
}

void settle_types(Expr& e, DType want, const SourcePtr& src, DiagnosticList& d) {
  if (e.weak) {
    if (is_int(want) && e.kind == ExprKind::int_lit && (e.ival < int_min(want) || e.ival > int_max(want)))
      d.error(src, e.loc, fmt::format("{} does not fit in {} ({}..{})", e.ival, dtype_name(want), int_min(want), int_max(want)),
            "use a wider type or a smaller value");
    if (want == DType::boolean) want = DType::i64;  // cannot happen for valid programs
    e.type = want;
    e.weak = false;
  }
  switch (e.kind) {
    case ExprKind::int_lit: case ExprKind::float_lit: case ExprKind::bool_lit: case ExprKind::name:
      return;
    case ExprKind::access:
      for (auto& a : e.args) settle_types(*a, DType::i64, src, d);
      return;
    case ExprKind::unary:
      settle_types(*e.args[0], e.unop == UnOp::lnot ? DType::boolean : e.type, src, d);
      return;
    case ExprKind::binary: {
      switch (e.binop) {
        case BinOp::land: case BinOp::lor:
          settle_types(*e.args[0], DType::boolean, src, d);
          settle_types(*e.args[1], DType::boolean, src, d);
          return;
        case BinOp::lt: case BinOp::le: case BinOp::gt: case BinOp::ge: case BinOp::eq: case BinOp::ne: {
          DType ot = e.cast_to;
          if (e.args[0]->weak && e.args[1]->weak) ot = is_float(ot) ? DType::f64 : DType::i64;
          e.cast_to = ot;
          settle_types(*e.args[0], ot, src, d);
          settle_types(*e.args[1], ot, src, d);
          return;
        }
        case BinOp::shl: case BinOp::shr:
          settle_types(*e.args[0], e.type, src, d);
          settle_types(*e.args[1], is_int(e.args[1]->type) && !e.args[1]->weak ? e.args[1]->type : DType::i64, src, d);
          return;
        default:
          settle_types(*e.args[0], e.type, src, d);
          settle_types(*e.args[1], e.type, src, d);
          return;
      }
    }
    case ExprKind::call:
      if (e.fn == Fn::cast) {
        const Expr& a = *e.args[0];
        settle_types(*e.args[0], a.weak ? (is_float(a.type) ? DType::f64 : DType::i64) : a.type, src, d);
        return;
      }
      if (e.fn == Fn::select) {
        settle_types(*e.args[0], DType::boolean, src, d);
        settle_types(*e.args[1], e.type, src, d);
        settle_types(*e.args[2], e.type, src, d);
        return;
      }
      for (auto& a : e.args) settle_types(*a, e.type, src, d);
      return;
    case ExprKind::reduce:
      settle_types(*e.args[0], e.type, src, d);
      return;
  }
}

}  // namespace ekb
