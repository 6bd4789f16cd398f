// Reductions inside expressions, lowered to loops over scalar accumulators.
#include "lower/lower_expr.h"

#include <fmt/format.h>

#include <cmath>

namespace ekb::lower {

using namespace lir;

ExprP reduction_identity(ReduceOp op, DType t) {
  switch (op) {
    case ReduceOp::sum: return is_float(t) ? float_imm(0, t) : int_imm(0, t);
    case ReduceOp::prod: return is_float(t) ? float_imm(1, t) : int_imm(1, t);
    case ReduceOp::max: return is_float(t) ? float_imm(-INFINITY, t) : int_imm(int_min(t), t);
    case ReduceOp::min: return is_float(t) ? float_imm(INFINITY, t) : int_imm(int_max(t), t);
  }
  return int_imm(0, t);
}

ExprP reduction_combine(ReduceOp op, ExprP acc, ExprP v) {
  DType t = acc->type;
  switch (op) {
    case ReduceOp::sum: return binary(BinOp::add, std::move(acc), std::move(v), t);
    case ReduceOp::prod: return binary(BinOp::mul, std::move(acc), std::move(v), t);
    case ReduceOp::max: return call(Fn::max, {std::move(acc), std::move(v)}, t);
    case ReduceOp::min: return call(Fn::min, {std::move(acc), std::move(v)}, t);
  }
  return acc;
}

namespace {

bool has_reduce(const ExprP& e) {
  if (e->kind == EK::reduce) return true;
  for (const auto& a : e->args)
    if (has_reduce(a)) return true;
  return false;
}

Buffer scalar(const std::string& name, DType t) {
  Buffer b;
  b.name = name;
  b.type = t;
  b.scope = MemScope::local;
  return b;
}

}  // namespace

LoweredValue lower_value(const ExprP& e, int& counter) {
  if (!has_reduce(e)) return {{}, e};
  LoweredValue out;
  if (e->kind == EK::reduce) {
    std::string acc = fmt::format("acc{}", counter++);
    out.pre.push_back(allocate(scalar(acc, e->type), nullptr));
    out.pre.push_back(store(acc, {}, reduction_identity(e->redop, e->type)));
    LoweredValue body = lower_value(e->args[0], counter);
    body.pre.push_back(store(acc, {}, reduction_combine(e->redop, load(acc, e->type, {}), body.value)));
    StmtP loop = block(body.pre);
    for (size_t k = e->rvars.size(); k-- > 0;)
      loop = for_loop(e->rvars[k], int_imm(0), int_imm(e->rextents[k]), LoopKind::serial, loop);
    out.pre.push_back(loop);
    out.value = load(acc, e->type, {});
    return out;
  }
  if (e->kind == EK::select && (has_reduce(e->args[1]) || has_reduce(e->args[2]))) {
    LoweredValue c = lower_value(e->args[0], counter);
    LoweredValue a = lower_value(e->args[1], counter);
    LoweredValue b = lower_value(e->args[2], counter);
    std::string tmp = fmt::format("sel{}", counter++);
    out.pre = std::move(c.pre);
    out.pre.push_back(allocate(scalar(tmp, e->type), nullptr));
    a.pre.push_back(store(tmp, {}, a.value));
    b.pre.push_back(store(tmp, {}, b.value));
    out.pre.push_back(if_then(c.value, block(a.pre), block(b.pre)));
    out.value = load(tmp, e->type, {});
    return out;
  }
  auto c = std::make_shared<lir::Expr>(*e);
  for (auto& a : c->args) {
    LoweredValue v = lower_value(a, counter);
    out.pre.insert(out.pre.end(), v.pre.begin(), v.pre.end());
    a = v.value;
  }
  out.value = c;
  return out;
}

}  // namespace ekb::lower
