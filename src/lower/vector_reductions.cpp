// The pass of vector_reductions.h.
#include "lower/vector_reductions.h"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <optional>

#include "loops/graph.h"
#include "lower/lower_expr.h"
#include "lower/simplify.h"

namespace ekb::lower {

using namespace lir;

namespace {

// acc = combine(acc, v): the combine's operator and v, when `s` is exactly that.
struct Accumulation {
  ReduceOp op;
  ExprP value;
};
std::optional<Accumulation> accumulation(const StmtP& s, const std::string& acc) {
  const StmtP* x = &s;
  while ((*x)->kind == SK::block && (*x)->body.size() == 1) x = &(*x)->body[0];
  const StmtP& st = *x;
  if (st->kind != SK::store || st->buffer != acc || !st->indices.empty()) return std::nullopt;
  const ExprP& e = st->value;
  auto is_acc = [&](const ExprP& a) { return a->kind == EK::load && a->name == acc && a->args.empty(); };
  if (e->kind == EK::binary && (e->binop == BinOp::add || e->binop == BinOp::mul) && is_acc(e->args[0]))
    return Accumulation{e->binop == BinOp::add ? ReduceOp::sum : ReduceOp::prod, e->args[1]};
  if (e->kind == EK::call && (e->fn == Fn::max || e->fn == Fn::min) && is_acc(e->args[0]))
    return Accumulation{e->fn == Fn::max ? ReduceOp::max : ReduceOp::min, e->args[1]};
  return std::nullopt;
}

bool reads(const ExprP& e, const std::string& buffer) {
  if (e->kind == EK::load && e->name == buffer) return true;
  for (const auto& a : e->args)
    if (reads(a, buffer)) return true;
  return false;
}

// Every read of `v` in lanes along `r`: contiguous in its last index (coefficient 1) or not moving;
// r in no other index and in no index read from data; at least one contiguous read; no call
// without a vector form and no integer division (they would run lane by lane).
bool contiguous_along(const ExprP& v, const std::string& r) {
  bool contiguous = false, ok = true;
  std::function<void(const ExprP&)> walk = [&](const ExprP& e) {
    if (!ok) return;
    if (e->kind == EK::load) {
      for (size_t d = 0; d < e->args.size(); ++d) {
        if (!uses_var(e->args[d], r)) continue;
        auto s = solve_for(e->args[d], r);
        if (d + 1 != e->args.size() || !s || s->first != 1 || uses_var(s->second, r)) ok = false;
        std::function<bool(const ExprP&)> has_load = [&](const ExprP& x) {
          if (x->kind == EK::load) return true;
          for (const auto& a : x->args)
            if (has_load(a)) return true;
          return false;
        };
        if (has_load(e->args[d])) ok = false;
        contiguous = true;
      }
      return;
    }
    if (e->kind == EK::call) {
      switch (e->fn) {
        case Fn::min: case Fn::max: case Fn::abs: case Fn::clamp: case Fn::exp: case Fn::log: case Fn::tanh: case Fn::sigmoid:
        case Fn::erf: case Fn::select: case Fn::cast:
          break;
        default: ok = false; return;
      }
    }
    if (e->kind == EK::binary && !is_float(e->type) && (e->binop == BinOp::div || e->binop == BinOp::mod)) ok = false;
    if (e->kind == EK::reduce) ok = false;
    for (const auto& a : e->args) walk(a);
  };
  walk(v);
  return ok && contiguous;
}

struct Pass {
  const Target& t;
  int counter = 0;

  // The chain of serial loops with constant bounds from `s` down to its innermost body.
  static bool loop_chain(const StmtP& s, std::vector<const Stmt*>& chain, StmtP& body) {
    const Stmt* x = s.get();
    while (x->kind == SK::for_) {
      int64_t m = 0, e = 0;
      if (x->loop != LoopKind::serial || !is_const(x->min, &m) || !is_const(x->extent, &e) || m != 0) return false;
      chain.push_back(x);
      const StmtP& b = x->body[0];
      if (b->kind == SK::block && b->body.size() == 1 && b->body[0]->kind == SK::for_) {
        x = b->body[0].get();
        continue;
      }
      if (b->kind == SK::for_) {
        x = b.get();
        continue;
      }
      body = b;
      return true;
    }
    return false;
  }

  // `init` (acc = identity) followed by `loops`: the vector form, or nullptr when it does not apply.
  StmtP rewrite(const StmtP& init, const StmtP& loops) {
    if (init->kind != SK::store || !init->indices.empty() || loops->kind != SK::for_) return nullptr;
    const std::string& acc = init->buffer;
    DType type = init->value->type;
    if (type == DType::boolean || type == DType::f16 || type == DType::bf16) return nullptr;
    std::vector<const Stmt*> chain;
    StmtP body;
    if (!loop_chain(loops, chain, body)) return nullptr;
    auto a = accumulation(body, acc);
    if (!a || reads(a->value, acc)) return nullptr;
    // (The initial value must be the operator's identity: the partial sums start from it too.)
    ExprP id = reduction_identity(a->op, type);
    if (!(init->value->kind == id->kind && init->value->ival == id->ival &&
          (init->value->fval == id->fval || (std::isnan(init->value->fval) && std::isnan(id->fval)))))
      return nullptr;
    const Stmt* inner = chain.back();
    int64_t n = 0;
    is_const(inner->extent, &n);
    int lanes = t.lanes(type);
    if (lanes < 2 || n < 2 * lanes || !contiguous_along(a->value, inner->var)) return nullptr;
    int64_t w = n >= 8 * lanes ? 4 * lanes : n >= 4 * lanes ? 2 * lanes : lanes;
    std::string part = fmt::format("{}_vp{}", acc, counter++), lane = part + "_l", outer = part + "_o";
    Buffer b;
    b.name = part;
    b.type = type;
    b.extents = {w};
    b.mins = {int_imm(0)};
    b.scope = MemScope::local;
    auto at = [&](const ExprP& i) { return load(part, type, {i}); };
    // part[l] = identity; ...; part[l] = combine(part[l], v at r = o * w + l); acc = combine(acc, part[l])
    StmtP init_lanes = for_loop(lane, int_imm(0), int_imm(w), LoopKind::vectorized, store(part, {var(lane)}, id));
    ExprP at_lane = substitute(a->value, {{inner->var, add(mul(var(outer), int_imm(w)), var(lane))}});
    StmtP full = for_loop(outer, int_imm(0), int_imm(n / w), LoopKind::serial,
                          for_loop(lane, int_imm(0), int_imm(w), LoopKind::vectorized,
                                   store(part, {var(lane)}, reduction_combine(a->op, at(var(lane)), at_lane))));
    std::vector<StmtP> steps = {full};
    if (n % w)  // the rest, one by one, into the scalar accumulator
      steps.push_back(for_loop(inner->var, int_imm(n / w * w), int_imm(n % w), LoopKind::serial,
                               store(acc, {}, reduction_combine(a->op, load(acc, type, {}), a->value))));
    StmtP nest = block(steps);
    for (size_t k = chain.size() - 1; k-- > 0;)
      nest = for_loop(chain[k]->var, chain[k]->min, chain[k]->extent, LoopKind::serial, nest, 0, chain[k]->loc);
    StmtP finish = for_loop(lane, int_imm(0), int_imm(w), LoopKind::serial,
                            store(acc, {}, reduction_combine(a->op, load(acc, type, {}), at(var(lane)))));
    return allocate(b, block({init_lanes, nest, finish}));
  }

  StmtP visit(const StmtP& s, bool in_lanes) {
    if (!s) return s;
    if (s->kind == SK::for_ && (s->loop == LoopKind::vectorized || s->loop == LoopKind::parallel)) {
      // (Inside a vector loop nothing more can go in lanes; a parallel loop is fine.)
      bool lanes = in_lanes || s->loop == LoopKind::vectorized;
      auto c = std::make_shared<Stmt>(*s);
      c->body[0] = visit(s->body[0], lanes);
      return c;
    }
    auto c = std::make_shared<Stmt>(*s);
    if (s->kind == SK::block && !in_lanes) {
      std::vector<StmtP> out;
      for (size_t i = 0; i < s->body.size(); ++i) {
        if (i + 1 < s->body.size())
          if (StmtP r = rewrite(s->body[i], s->body[i + 1])) {
            out.push_back(s->body[i]);
            out.push_back(r);
            ++i;
            continue;
          }
        out.push_back(visit(s->body[i], in_lanes));
      }
      c->body = out;
      return c;
    }
    for (auto& b : c->body) b = visit(b, in_lanes);
    return c;
  }
};

}  // namespace

StmtP vectorize_scalar_reductions(const StmtP& s, const Target& target) {
  if (target.gpu() || target.vector_bytes <= 0) return s;
  Pass p{target};
  return p.visit(s, false);
}

}  // namespace ekb::lower
