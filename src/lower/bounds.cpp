// Symbolic interval arithmetic over loop-IR expressions, and the walk that collects the accesses of
// one buffer in a statement.
#include "lower/bounds.h"

#include <map>

namespace ekb::lower {

using namespace lir;

namespace {

bool bounded(const SymInterval& i) { return i.lo && i.hi; }

SymInterval unbounded() { return {nullptr, nullptr}; }

class BoxFinder {
 public:
  BoxFinder(const std::string& buffer, bool loads, bool stores, const ValueRange& vr)
      : buffer_(buffer), loads_(loads), stores_(stores), vr_(vr) {}

  void stmt(const StmtP& s) {
    if (!s) return;
    switch (s->kind) {
      case SK::block:
        for (const auto& b : s->body) stmt(b);
        return;
      case SK::for_: {
        SymInterval r = interval(s->min);
        SymInterval e = interval(s->extent);
        SymInterval v{r.lo, (r.hi && e.hi) ? sub(add(r.hi, e.hi), int_imm(1)) : nullptr};
        scope_[s->var] = v;
        stmt(s->body[0]);
        scope_.erase(s->var);
        return;
      }
      case SK::let:
        expr(s->value);
        scope_[s->var] = interval(s->value);
        stmt(s->body[0]);
        scope_.erase(s->var);
        return;
      case SK::store:
        for (const auto& i : s->indices) expr(i);
        expr(s->value);
        if (stores_ && s->buffer == buffer_) touch(s->indices);
        return;
      case SK::allocate:
        for (const auto& m : s->alloc.mins) expr(m);
        stmt(s->body[0]);
        return;
      case SK::if_:
        expr(s->value);
        stmt(s->body[0]);
        stmt(s->body[1]);
        return;
      case SK::comment:
      case SK::barrier:
        return;
      case SK::thread_reduce:
        if (loads_ && s->buffer == buffer_) touch({});
        if (stores_ && s->buffer == buffer_) touch({});
        return;
    }
  }

  std::optional<Box> result() const { return found_ ? std::optional<Box>(box_) : std::nullopt; }

 private:
  const std::string& buffer_;
  bool loads_, stores_;
  const ValueRange& vr_;
  std::map<std::string, SymInterval> scope_;
  Box box_;
  bool found_ = false;

  void expr(const ExprP& e) {
    for (const auto& a : e->args) expr(a);
    if (e->kind == EK::load && loads_ && e->name == buffer_) touch(e->args);
    if (e->kind == EK::reduce) {
      // Nested reduction: its variables range over their extents inside the body.
      for (size_t k = 0; k < e->rvars.size(); ++k) scope_[e->rvars[k]] = {int_imm(0), int_imm(e->rextents[k] - 1)};
      expr(e->args[0]);
      for (const auto& v : e->rvars) scope_.erase(v);
    }
  }

  void touch(const std::vector<ExprP>& idx) {
    if (!found_) {
      found_ = true;
      for (const auto& i : idx) box_.push_back(interval(i));
      return;
    }
    for (size_t d = 0; d < idx.size() && d < box_.size(); ++d) {
      SymInterval i = interval(idx[d]);
      box_[d].lo = (box_[d].lo && i.lo) ? min(box_[d].lo, i.lo) : nullptr;
      box_[d].hi = (box_[d].hi && i.hi) ? max(box_[d].hi, i.hi) : nullptr;
    }
  }

  SymInterval interval(const ExprP& e) {
    switch (e->kind) {
      case EK::int_imm:
        return {e, e};
      case EK::var: {
        auto it = scope_.find(e->name);
        if (it != scope_.end()) return it->second;
        return {e, e};
      }
      case EK::unary: {
        if (e->unop != UnOp::neg) return unbounded();
        SymInterval a = interval(e->args[0]);
        if (!bounded(a)) return unbounded();
        return {unary(UnOp::neg, a.hi, DType::i64), unary(UnOp::neg, a.lo, DType::i64)};
      }
      case EK::binary: {
        if (e->type != DType::i64) return unbounded();
        SymInterval a = interval(e->args[0]), b = interval(e->args[1]);
        int64_t k;
        switch (e->binop) {
          case BinOp::add:
            if (!bounded(a) || !bounded(b)) return unbounded();
            return {add(a.lo, b.lo), add(a.hi, b.hi)};
          case BinOp::sub:
            if (!bounded(a) || !bounded(b)) return unbounded();
            return {sub(a.lo, b.hi), sub(a.hi, b.lo)};
          case BinOp::mul:
            if (is_const(e->args[1], &k) && bounded(a)) return k >= 0 ? SymInterval{mul(a.lo, e->args[1]), mul(a.hi, e->args[1])}
                                                                      : SymInterval{mul(a.hi, e->args[1]), mul(a.lo, e->args[1])};
            if (is_const(e->args[0], &k) && bounded(b)) return k >= 0 ? SymInterval{mul(b.lo, e->args[0]), mul(b.hi, e->args[0])}
                                                                      : SymInterval{mul(b.hi, e->args[0]), mul(b.lo, e->args[0])};
            return unbounded();
          case BinOp::div:
            if (is_const(e->args[1], &k) && k > 0 && bounded(a)) return {floordiv(a.lo, e->args[1]), floordiv(a.hi, e->args[1])};
            return unbounded();
          case BinOp::mod:
            if (is_const(e->args[1], &k) && k > 0) {
              // A point (the index of one thread of a fused GPU loop) stays a point.
              if (bounded(a) && (a.lo == a.hi || to_string(a.lo) == to_string(a.hi))) {
                ExprP m = floormod(a.lo, e->args[1]);
                return {m, m};
              }
              return {int_imm(0), int_imm(k - 1)};
            }
            return unbounded();
          default:
            return unbounded();
        }
      }
      case EK::call: {
        if ((e->fn != Fn::min && e->fn != Fn::max) || e->type != DType::i64) return unbounded();
        SymInterval a = interval(e->args[0]), b = interval(e->args[1]);
        auto f = [&](const ExprP& x, const ExprP& y) -> ExprP {
          if (!x || !y) return nullptr;
          return e->fn == Fn::min ? min(x, y) : max(x, y);
        };
        // min(a, b): lo = min(a.lo, b.lo) needs both; hi = min(a.hi, b.hi) needs either.
        if (e->fn == Fn::min) return {f(a.lo, b.lo), a.hi && b.hi ? min(a.hi, b.hi) : (a.hi ? a.hi : b.hi)};
        return {a.lo && b.lo ? max(a.lo, b.lo) : (a.lo ? a.lo : b.lo), f(a.hi, b.hi)};
      }
      case EK::select: {
        SymInterval a = interval(e->args[1]), b = interval(e->args[2]);
        if (!bounded(a) || !bounded(b)) return unbounded();
        return {min(a.lo, b.lo), max(a.hi, b.hi)};
      }
      case EK::cast: {
        if (!is_int(e->type) || is_float(e->args[0]->type)) return unbounded();
        SymInterval a = interval(e->args[0]);
        if (e->type == DType::i64) return a;
        // A narrower type may wrap: only its full range is certain.
        return {int_imm(int_min(e->type)), int_imm(int_max(e->type))};
      }
      case EK::load: {
        if (!is_int(e->type) || !vr_) return unbounded();
        auto r = vr_(e->name);
        if (!r) return unbounded();
        return {int_imm(r->lo), int_imm(r->hi)};
      }
      default:
        return unbounded();
    }
  }
};

}  // namespace

std::optional<Box> box_touched(const StmtP& s, const std::string& buffer, bool loads, bool stores, const ValueRange& vr) {
  BoxFinder f(buffer, loads, stores, vr);
  f.stmt(s);
  return f.result();
}

}  // namespace ekb::lower
