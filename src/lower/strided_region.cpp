// Strided regions (see strided_region.h): the reads of a buffer solved as base + sum of constant
// multiples of the loops around them, and the same reads re-indexed by point number.
#include "lower/strided_region.h"

#include <algorithm>
#include <functional>

#include "loops/graph.h"
#include "lower/simplify.h"

namespace ekb::lower {

using namespace lir;

int64_t StridedDim::count() const {
  int64_t n = 1;
  for (const auto& p : pieces) n *= p.extent;
  return n;
}

ExprP StridedDim::expand(const ExprP& dense) const {
  ExprP offset = int_imm(0);
  int64_t below = 1;
  for (size_t p = 0; p < pieces.size(); ++p) {
    ExprP digit = below == 1 ? dense : floordiv(dense, int_imm(below));
    if (p + 1 < pieces.size()) digit = floormod(digit, int_imm(pieces[p].extent));
    offset = add(offset, mul(digit, int_imm(pieces[p].stride)));
    below *= pieces[p].extent;
  }
  return offset;
}

namespace {

struct Loop {
  std::string var;
  int64_t extent;  // -1: not a constant
};

// What the walk knows at a point: the loops around it (inside the body walked) and the lets' values
// in terms of those loops and of the variables bound outside.
struct Context {
  std::vector<Loop> loops;
  std::vector<std::pair<std::string, ExprP>> lets;
};

struct Term {
  std::string var;
  int64_t coef, extent;
};

// An index as rest + sum of coef * loop (rest free of the loops), or nullopt when it is not linear in them.
struct Solved {
  ExprP rest;
  std::vector<Term> terms;
};

std::optional<Solved> solve(const ExprP& index, const Context& c) {
  Solved s;
  ExprP rest = simplify(substitute(index, c.lets));
  for (const auto& l : c.loops) {
    if (!uses_var(rest, l.var)) continue;
    auto r = solve_for(rest, l.var);
    if (!r || l.extent < 0) return std::nullopt;
    rest = r->second;
    if (r->first != 0 && l.extent > 1) s.terms.push_back({l.var, r->first, l.extent});
  }
  s.rest = simplify(rest);
  return s;
}

// The pieces the terms make, ordered by stride; nullopt when their ranges overlap, a coefficient is
// not positive, or a stride is not a multiple of the span below it.
std::optional<std::vector<Piece>> pieces_of(std::vector<Term> terms) {
  std::sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) { return a.coef < b.coef; });
  std::vector<Piece> out;
  for (const auto& t : terms) {
    if (t.coef <= 0) return std::nullopt;
    if (out.empty()) {
      out.push_back({t.coef, t.extent});
      continue;
    }
    int64_t span = out.back().stride * out.back().extent;
    if (t.coef == span) out.back().extent *= t.extent;
    else if (t.coef > span && t.coef % span == 0) out.push_back({t.coef, t.extent});
    else return std::nullopt;
  }
  return out;
}

bool has_gaps(const std::vector<Piece>& p) { return p.size() > 1 || (p.size() == 1 && p[0].stride > 1); }

// Walks a statement, rewriting every load of `buffer` through `on_load` (given the load's indices
// and the context there; returning null keeps the load). A load inside a nested reduction, or a
// cross-thread reduction of the buffer, sets `opaque`: its indices cannot be solved here.
class Walk {
 public:
  using OnLoad = std::function<ExprP(const std::vector<ExprP>&, const Context&)>;
  Walk(const std::string& buffer, OnLoad f) : buffer_(buffer), on_load_(std::move(f)) {}
  bool opaque = false;

  StmtP stmt(const StmtP& s) {
    if (!s) return s;
    auto c = std::make_shared<lir::Stmt>(*s);
    switch (s->kind) {
      case SK::block:
        for (auto& b : c->body) b = stmt(b);
        return c;
      case SK::for_: {
        c->min = expr(s->min);
        c->extent = expr(s->extent);
        int64_t e = -1, m = -1;
        ExprP ext = simplify(substitute(s->extent, ctx_.lets));
        bool known = is_const(ext, &e) && is_const(simplify(substitute(s->min, ctx_.lets)), &m) && m == 0;
        ctx_.loops.push_back({s->var, known ? e : -1});
        c->body[0] = stmt(s->body[0]);
        ctx_.loops.pop_back();
        return c;
      }
      case SK::let:
        c->value = expr(s->value);
        ctx_.lets.push_back({s->var, simplify(substitute(s->value, ctx_.lets))});
        c->body[0] = stmt(s->body[0]);
        ctx_.lets.pop_back();
        return c;
      case SK::store:
        for (auto& i : c->indices) i = expr(i);
        c->value = expr(s->value);
        return c;
      case SK::allocate:
        c->body[0] = stmt(s->body[0]);
        return c;
      case SK::if_:
        c->value = expr(s->value);
        for (auto& b : c->body) b = stmt(b);
        return c;
      case SK::thread_reduce:
        if (s->buffer == buffer_) opaque = true;
        return c;
      case SK::comment:
      case SK::barrier:
        return c;
    }
    return c;
  }

 private:
  const std::string& buffer_;
  OnLoad on_load_;
  Context ctx_;

  ExprP expr(const ExprP& e) {
    if (!e) return e;
    if (e->kind == EK::reduce) {
      if (reads(e, buffer_)) opaque = true;
      return e;
    }
    auto c = std::make_shared<lir::Expr>(*e);
    for (auto& a : c->args) a = expr(a);
    if (e->kind == EK::load && e->name == buffer_)
      if (ExprP r = on_load_(c->args, ctx_)) c->args = r->args;
    return c;
  }
};

// Per dimension: the base and pieces every load agrees on so far (nullopt: not strided).
struct DimState {
  bool seen = false, ok = true;
  std::string base_text;
  ExprP base;
  std::vector<Piece> pieces;
};

bool same(const std::vector<Piece>& a, const std::vector<Piece>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].stride != b[i].stride || a[i].extent != b[i].extent) return false;
  return true;
}

}  // namespace

std::optional<std::vector<std::optional<StridedDim>>> strided_reads(const StmtP& body, const std::string& buffer) {
  std::vector<DimState> dims;
  Walk w(buffer, [&](const std::vector<ExprP>& idx, const Context& c) -> ExprP {
    if (dims.empty()) dims.resize(idx.size());
    for (size_t d = 0; d < idx.size() && d < dims.size(); ++d) {
      DimState& st = dims[d];
      if (!st.ok) continue;
      auto s = solve(idx[d], c);
      auto p = s ? pieces_of(s->terms) : std::nullopt;
      if (!p) {
        st.ok = false;
        continue;
      }
      std::string text = to_string(s->rest);
      if (!st.seen) {
        st = {true, true, text, s->rest, *p};
      } else if (text != st.base_text || !same(*p, st.pieces)) {
        st.ok = false;
      }
    }
    return nullptr;
  });
  w.stmt(body);
  if (w.opaque || dims.empty()) return std::nullopt;
  std::vector<std::optional<StridedDim>> out(dims.size());
  bool any = false;
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d].ok && has_gaps(dims[d].pieces)) {
      out[d] = StridedDim{dims[d].base, dims[d].pieces};
      any = true;
    }
  if (!any) return std::nullopt;
  return out;
}

StmtP pack_strided_loads(const StmtP& body, const std::string& buffer, const std::vector<std::optional<StridedDim>>& dims) {
  Walk w(buffer, [&](const std::vector<ExprP>& idx, const Context& c) -> ExprP {
    std::vector<ExprP> packed = idx;
    for (size_t d = 0; d < idx.size() && d < dims.size(); ++d) {
      if (!dims[d]) continue;
      auto s = solve(idx[d], c);  // strided_reads solved every load of this body
      ExprP at = int_imm(0);
      for (const auto& t : s->terms) {
        int64_t below = 1;
        for (const auto& p : dims[d]->pieces) {
          if (t.coef >= p.stride && t.coef < p.stride * p.extent) {
            at = add(at, mul(var(t.var), int_imm(t.coef / p.stride * below)));
            break;
          }
          below *= p.extent;
        }
      }
      packed[d] = simplify(at);
    }
    return load(buffer, DType::f32, packed);  // only its indices are used
  });
  return w.stmt(body);
}

}  // namespace ekb::lower
