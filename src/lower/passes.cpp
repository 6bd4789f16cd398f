// Post-realization passes over the loop IR.
#include "lower/passes.h"

#include <functional>

#include "lower/graph.h"
#include "lower/simplify.h"

namespace ekb::lower {

using namespace lir;

namespace {

// Rebuilds a statement with a function applied to its children and expressions.
StmtP map_stmt(const StmtP& s, const std::function<StmtP(const StmtP&)>& f) {
  if (!s) return s;
  auto c = std::make_shared<Stmt>(*s);
  for (auto& b : c->body) b = f(b);
  return c;
}

struct Simplifier {
  RangeScope scope;

  ExprP e(const ExprP& x) { return x ? simplify(x, scope) : x; }

  StmtP s(const StmtP& st) {
    if (!st) return st;
    switch (st->kind) {
      case SK::for_: {
        ExprP min = e(st->min), extent = e(st->extent);
        auto lo = numeric_range(min, scope);
        auto ex = numeric_range(extent, scope);
        if (lo && ex) scope.set(st->var, Range{lo->lo, lo->hi + std::max<int64_t>(ex->hi - 1, 0)});
        StmtP body = s(st->body[0]);
        scope.erase(st->var);
        return for_loop(st->var, min, extent, st->loop, body);
      }
      case SK::let: {
        ExprP v = e(st->value);
        auto r = numeric_range(v, scope);
        if (r) scope.set(st->var, *r);
        StmtP body = s(st->body[0]);
        scope.erase(st->var);
        return let(st->var, v, body);
      }
      case SK::store: {
        std::vector<ExprP> idx;
        for (const auto& i : st->indices) idx.push_back(e(i));
        return store(st->buffer, idx, e(st->value));
      }
      case SK::if_: {
        ExprP c = e(st->value);
        int64_t k;
        if (is_const(c, &k) || (c->kind == EK::int_imm && c->type == DType::boolean && ((k = c->ival), true)))
          return k ? s(st->body[0]) : s(st->body[1]);
        return if_then(c, s(st->body[0]), s(st->body[1]));
      }
      case SK::allocate: {
        Buffer b = st->alloc;
        for (auto& m : b.mins) m = e(m);
        return allocate(b, s(st->body[0]));
      }
      default:
        return map_stmt(st, [this](const StmtP& x) { return s(x); });
    }
  }
};

// Substitutes a variable by an expression in every expression of a statement.
StmtP substitute_stmt(const StmtP& st, const std::string& v, const ExprP& value) {
  if (!st) return st;
  auto c = std::make_shared<Stmt>(*st);
  auto sub = [&](const ExprP& x) { return x ? substitute(x, {{v, value}}) : x; };
  c->min = sub(c->min);
  c->extent = sub(c->extent);
  c->value = sub(c->value);
  for (auto& i : c->indices) i = sub(i);
  for (auto& m : c->alloc.mins) m = sub(m);
  for (auto& b : c->body) b = substitute_stmt(b, v, value);
  return c;
}

}  // namespace

StmtP simplify_stmt(const StmtP& s) {
  Simplifier simp;
  return simp.s(s);
}

StmtP partition_vector_loops(const StmtP& s) {
  if (!s) return s;
  if (s->kind == SK::for_ && (s->loop == LoopKind::vectorized || s->loop == LoopKind::unrolled) && !is_const(s->extent)) {
    // The extent is min(W, rest) from a guarded tail: full vectors when it equals W.
    int64_t w = 0;
    if (s->extent->kind == EK::call && s->extent->fn == Fn::min) {
      if (!is_const(s->extent->args[0], &w)) is_const(s->extent->args[1], &w);
    }
    StmtP body = partition_vector_loops(s->body[0]);
    StmtP serial = for_loop(s->var, s->min, s->extent, LoopKind::serial, body);
    if (w <= 0) return serial;
    StmtP vec = for_loop(s->var, s->min, int_imm(w), s->loop, body);
    return if_then(binary(BinOp::eq, s->extent, int_imm(w), DType::boolean), vec, serial);
  }
  return map_stmt(s, partition_vector_loops);
}

StmtP unroll_loops(const StmtP& s) {
  if (!s) return s;
  int64_t n;
  if (s->kind == SK::for_ && s->loop == LoopKind::unrolled && is_const(s->extent, &n)) {
    StmtP body = unroll_loops(s->body[0]);
    std::vector<StmtP> copies;
    for (int64_t i = 0; i < n; ++i) copies.push_back(substitute_stmt(body, s->var, simplify(add(s->min, int_imm(i)))));
    return block(copies);
  }
  if (s->kind == SK::for_ && s->loop == LoopKind::unrolled) {
    auto c = std::make_shared<Stmt>(*s);
    c->loop = LoopKind::serial;  // a dynamic extent (a guarded tail) stays a loop
    c->body = {unroll_loops(s->body[0])};
    return c;
  }
  return map_stmt(s, unroll_loops);
}

StmtP remove_trivial_loops(const StmtP& s) {
  if (!s) return s;
  int64_t n;
  if (s->kind == SK::for_ && is_const(s->extent, &n) && n == 1 && s->loop != LoopKind::gpu_block &&
      s->loop != LoopKind::gpu_thread)
    return remove_trivial_loops(substitute_stmt(s->body[0], s->var, s->min));
  // A let of a constant or of another variable is substituted into its body.
  if (s->kind == SK::let && (is_const(s->value) || s->value->kind == EK::var))
    return remove_trivial_loops(substitute_stmt(s->body[0], s->var, s->value));
  return map_stmt(s, remove_trivial_loops);
}

}  // namespace ekb::lower
