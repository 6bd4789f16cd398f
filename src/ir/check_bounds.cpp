// Static bounds checking of tensor reads. Index expressions get an interval from the ranges of the
// index variables (interval arithmetic), narrowed by the conditions of enclosing select / && / ||:
// a comparison that bounds a variable narrows its range, and one that bounds exactly the same linear
// form as an index narrows that index. Linear forms are sums of constant multiples of terms, a term
// being an index variable or any other integer subexpression taken as a whole (`o / 2`, `L[b]`), so
// `select(o / 2 < 3, X[o / 2], 0)` is proved too. A read that can leave its tensor is an error naming
// the read and the reachable range; what cannot be bounded (reads through computed data) is checked
// at run time by the interpreter instead.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "ir/check.h"
#include "ir/operators.h"
#include "ir/printer.h"
#include "ir/semantics.h"

namespace ekb {
namespace {

struct Interval {
  int64_t lo, hi;
};
using OptInterval = std::optional<Interval>;

// sum(coef[t] * term t) + c; terms 0..n-1 are the stage's index variables, later ones are atoms.
struct Affine {
  std::map<int, int64_t> coef;
  int64_t c = 0;
};

bool add_ovf(int64_t a, int64_t b, int64_t& r) { return __builtin_add_overflow(a, b, &r); }
bool mul_ovf(int64_t a, int64_t b, int64_t& r) { return __builtin_mul_overflow(a, b, &r); }

std::optional<Affine> scale(Affine a, int64_t k) {
  for (auto& [v, c] : a.coef)
    if (mul_ovf(c, k, c)) return std::nullopt;
  if (mul_ovf(a.c, k, a.c)) return std::nullopt;
  return a;
}

std::optional<Affine> add(Affine a, const Affine& b) {
  for (const auto& [v, c] : b.coef)
    if (add_ovf(a.coef[v], c, a.coef[v])) return std::nullopt;
  if (add_ovf(a.c, b.c, a.c)) return std::nullopt;
  std::erase_if(a.coef, [](const auto& kv) { return kv.second == 0; });
  return a;
}

std::optional<int64_t> int_constant(const Expr& e) {
  if (is_float(e.type) || e.type == DType::boolean) return std::nullopt;
  if (e.kind == ExprKind::int_lit) return e.ival;
  if (e.kind == ExprKind::name && (e.ref == NameRef::dim || e.ref == NameRef::constant)) return e.ival;
  return std::nullopt;
}

class BoundsChecker {
 public:
  BoundsChecker(const Program& p, DiagnosticList& d) : p_(p), d_(d) {}

  void run() {
    for (const auto& st : p_.stages) {
      st_ = &st;
      range_.clear();
      for (const auto& v : st.vars) range_.push_back({0, v.extent - 1});
      cons_.clear();
      atoms_.clear();
      walk(*st.body);
    }
  }

 private:
  const Program& p_;
  DiagnosticList& d_;
  const StageInfo* st_ = nullptr;
  std::vector<Interval> range_;
  std::vector<Affine> cons_;  // each: form >= 0
  std::map<std::string, int> atoms_;  // printed text of an atom -> its term id (after the variables)

  bool is_var(int term) const { return term < static_cast<int>(range_.size()); }

  int atom(const Expr& e) {
    auto [it, fresh] = atoms_.emplace(print_expr(e), static_cast<int>(range_.size() + atoms_.size()));
    return it->second;
  }

  // The linear form of an integer expression; nullopt for floats, bools and on overflow.
  std::optional<Affine> linear_of(const Expr& e) {
    if (is_float(e.type) || e.type == DType::boolean) return std::nullopt;
    if (auto k = int_constant(e)) return Affine{{}, *k};
    if (e.kind == ExprKind::name && e.ref == NameRef::index_var) return Affine{{{e.id, 1}}, 0};
    if (e.kind == ExprKind::unary && e.unop == UnOp::neg && e.type == DType::i64) {
      if (auto a = linear_of(*e.args[0])) return scale(*a, -1);
      return std::nullopt;
    }
    // Narrower integers wrap, so only i64 sums and products decompose.
    if (e.kind == ExprKind::binary && e.type == DType::i64 &&
        (e.binop == BinOp::add || e.binop == BinOp::sub || e.binop == BinOp::mul)) {
      auto a = linear_of(*e.args[0]);
      auto b = linear_of(*e.args[1]);
      if (!a || !b) return std::nullopt;
      if (e.binop == BinOp::add) return add(*a, *b);
      if (e.binop == BinOp::sub) {
        auto nb = scale(*b, -1);
        if (!nb) return std::nullopt;
        return add(*a, *nb);
      }
      if (a->coef.empty()) return scale(*b, a->c);
      if (b->coef.empty()) return scale(*a, b->c);
    }
    return Affine{{{atom(e), 1}}, 0};
  }

  // ---- conditions ----
  // Adds the constraints implied by `cond` being `truth`; returns false when the branch is dead.
  bool assume(const Expr& cond, bool truth) {
    if (cond.kind == ExprKind::unary && cond.unop == UnOp::lnot) return assume(*cond.args[0], !truth);
    if (cond.kind == ExprKind::binary) {
      if ((cond.binop == BinOp::land && truth) || (cond.binop == BinOp::lor && !truth))
        return assume(*cond.args[0], truth) && assume(*cond.args[1], truth);
      if (is_comparison(cond.binop) && cond.cast_to != DType::boolean && !is_float(cond.cast_to)) {
        auto a = linear_of(*cond.args[0]);
        auto b = linear_of(*cond.args[1]);
        if (!a || !b) return true;
        BinOp op = truth ? cond.binop : negate(cond.binop);
        auto diff = [&](const Affine& x, const Affine& y, int64_t minus) -> std::optional<Affine> {
          auto ny = scale(y, -1);
          if (!ny) return std::nullopt;
          auto r = add(x, *ny);
          if (!r || add_ovf(r->c, -minus, r->c)) return std::nullopt;
          return r;
        };
        switch (op) {
          case BinOp::lt: return add_constraint(diff(*b, *a, 1));
          case BinOp::le: return add_constraint(diff(*b, *a, 0));
          case BinOp::gt: return add_constraint(diff(*a, *b, 1));
          case BinOp::ge: return add_constraint(diff(*a, *b, 0));
          case BinOp::eq: return add_constraint(diff(*a, *b, 0)) && add_constraint(diff(*b, *a, 0));
          case BinOp::ne: return exclude_point(diff(*a, *b, 0));
          default: return true;
        }
      }
    }
    return true;
  }

  static BinOp negate(BinOp op) {
    switch (op) {
      case BinOp::lt: return BinOp::ge;
      case BinOp::le: return BinOp::gt;
      case BinOp::gt: return BinOp::le;
      case BinOp::ge: return BinOp::lt;
      case BinOp::eq: return BinOp::ne;
      default: return BinOp::eq;
    }
  }

  bool add_constraint(std::optional<Affine> f) {
    if (!f) return true;
    if (f->coef.empty()) return f->c >= 0;
    if (f->coef.size() == 1 && is_var(f->coef.begin()->first)) {  // k*v + c >= 0 bounds v
      auto [v, k] = *f->coef.begin();
      Interval& r = range_[v];
      // k > 0: v >= ceil(-c / k); k < 0: v <= floor(c / -k). In 128 bits: no overflow.
      __int128 c = f->c, kk = k;
      if (k > 0) {
        __int128 num = -c, q = num / kk;
        if (q * kk < num) ++q;  // ceil
        if (q > r.lo) r.lo = q > INT64_MAX ? INT64_MAX : static_cast<int64_t>(q);
      } else {
        __int128 den = -kk, q = c / den;
        if (q * den > c) --q;  // floor
        if (q < r.hi) r.hi = q < INT64_MIN ? INT64_MIN : static_cast<int64_t>(q);
      }
      return r.lo <= r.hi;
    }
    cons_.push_back(*f);
    return true;
  }

  // `f != 0` for f = ±v + c: a variable that must differ from the end of its range loses that end.
  bool exclude_point(std::optional<Affine> f) {
    if (!f || f->coef.size() != 1 || !is_var(f->coef.begin()->first)) return true;
    auto [v, k] = *f->coef.begin();
    if ((k != 1 && k != -1) || f->c == INT64_MIN) return true;
    int64_t excluded = k == 1 ? -f->c : f->c;
    Interval& r = range_[v];
    if (excluded == r.lo) ++r.lo;
    else if (excluded == r.hi) --r.hi;
    return r.lo <= r.hi;
  }

  template <typename F>
  void with_assumption(const Expr& cond, bool truth, F&& body) {
    auto saved_range = range_;
    size_t saved_cons = cons_.size();
    if (assume(cond, truth)) body();  // a dead branch is never read
    range_ = std::move(saved_range);
    cons_.resize(saved_cons);
  }

  // ---- walking ----
  void walk(const Expr& e) {
    if (e.kind == ExprKind::call && e.fn == Fn::select) {
      walk(*e.args[0]);
      with_assumption(*e.args[0], true, [&] { walk(*e.args[1]); });
      with_assumption(*e.args[0], false, [&] { walk(*e.args[2]); });
      return;
    }
    if (e.kind == ExprKind::binary && (e.binop == BinOp::land || e.binop == BinOp::lor)) {
      walk(*e.args[0]);
      with_assumption(*e.args[0], e.binop == BinOp::land, [&] { walk(*e.args[1]); });
      return;
    }
    for (const auto& a : e.args) walk(*a);
    if (e.kind == ExprKind::access) check_access(e);
  }

  void check_access(const Expr& e) {
    const TensorInfo& t = p_.tensors[e.id];
    for (size_t i = 0; i < e.args.size(); ++i) {
      const Expr& idx = *e.args[i];
      OptInterval iv = interval(idx);
      if (!iv) continue;
      if (auto a = linear_of(idx)) narrow_by_constraints(*a, *iv);
      int64_t size = t.shape[i];
      if (iv->lo >= 0 && iv->hi < size) continue;
      std::string read = print_expr(e);
      std::string index = print_expr(idx);
      int64_t bad = iv->lo < 0 ? iv->lo : iv->hi;
      d_.error(p_.source(), e.loc,
               fmt::format("`{}` can read index {} of dimension {} of `{}`, which has size {}: `{}` ranges over {}..{}",
                           read, bad, i, t.name, size, index, iv->lo, iv->hi),
               fmt::format("keep `{}` within 0..{}: guard the read, e.g. select({} {} {}, {}, 0), clamp the index "
                           "with min/max, or narrow the index variables' ranges",
                           index, size - 1, index, iv->lo < 0 ? ">=" : "<", iv->lo < 0 ? 0 : size, read));
    }
  }

  void narrow_by_constraints(const Affine& a, Interval& iv) {
    for (const Affine& f : cons_) {
      bool same = f.coef.size() == a.coef.size(), opposite = same;
      for (const auto& [v, k] : a.coef) {
        auto it = f.coef.find(v);
        if (it == f.coef.end()) {
          same = opposite = false;
          break;
        }
        if (it->second != k) same = false;
        if (it->second != -k) opposite = false;
      }
      int64_t bound;
      // f = L + fc >= 0 with idx = L + a.c  =>  idx >= a.c - fc
      if (same && !__builtin_sub_overflow(a.c, f.c, &bound)) iv.lo = std::max(iv.lo, bound);
      // f = -L + fc >= 0  =>  L <= fc  =>  idx <= a.c + fc
      if (opposite && !__builtin_add_overflow(a.c, f.c, &bound)) iv.hi = std::min(iv.hi, bound);
    }
  }

  // ---- interval arithmetic ----
  OptInterval clip_to_type(OptInterval iv, DType t) {
    if (!iv || t == DType::i64) return iv;
    if (iv->lo < int_min(t) || iv->hi > int_max(t)) return Interval{int_min(t), int_max(t)};  // wraps
    return iv;
  }

  OptInterval interval(const Expr& e) {
    if (is_float(e.type) || e.type == DType::boolean) return std::nullopt;
    if (auto k = int_constant(e)) return Interval{*k, *k};
    switch (e.kind) {
      case ExprKind::name:
        if (e.ref == NameRef::index_var) return range_[e.id];
        return std::nullopt;
      case ExprKind::access: {
        const TensorInfo& t = p_.tensors[e.id];
        if (t.role == TensorRole::input && t.dist.kind == DistSpec::Kind::int_range)
          return Interval{static_cast<int64_t>(t.dist.a), static_cast<int64_t>(t.dist.b)};
        return std::nullopt;
      }
      case ExprKind::unary: {
        if (e.unop != UnOp::neg) return std::nullopt;
        auto a = interval(*e.args[0]);
        if (!a || a->lo == INT64_MIN) return std::nullopt;
        return clip_to_type(Interval{-a->hi, -a->lo}, e.type);
      }
      case ExprKind::binary:
        return clip_to_type(binary_interval(e), e.type);
      case ExprKind::call:
        return clip_to_type(call_interval(e), e.type);
      default:
        return std::nullopt;
    }
  }

  OptInterval binary_interval(const Expr& e) {
    auto a = interval(*e.args[0]);
    auto b = interval(*e.args[1]);
    if (!a || !b) return std::nullopt;
    int64_t r1, r2, r3, r4;
    switch (e.binop) {
      case BinOp::add:
        if (add_ovf(a->lo, b->lo, r1) || add_ovf(a->hi, b->hi, r2)) return std::nullopt;
        return Interval{r1, r2};
      case BinOp::sub:
        if (__builtin_sub_overflow(a->lo, b->hi, &r1) || __builtin_sub_overflow(a->hi, b->lo, &r2)) return std::nullopt;
        return Interval{r1, r2};
      case BinOp::mul:
        if (mul_ovf(a->lo, b->lo, r1) || mul_ovf(a->lo, b->hi, r2) || mul_ovf(a->hi, b->lo, r3) || mul_ovf(a->hi, b->hi, r4))
          return std::nullopt;
        return Interval{std::min({r1, r2, r3, r4}), std::max({r1, r2, r3, r4})};
      case BinOp::div:
        if (b->lo <= 0 && b->hi >= 0) return std::nullopt;
        r1 = sem::floor_div(a->lo, b->lo), r2 = sem::floor_div(a->lo, b->hi);
        r3 = sem::floor_div(a->hi, b->lo), r4 = sem::floor_div(a->hi, b->hi);
        return Interval{std::min({r1, r2, r3, r4}), std::max({r1, r2, r3, r4})};
      case BinOp::mod:
        if (b->lo != b->hi || b->lo == 0) return std::nullopt;
        if (b->lo > 0) {
          if (a->lo >= 0 && a->hi < b->lo) return a;
          return Interval{0, b->lo - 1};
        }
        return Interval{b->lo + 1, 0};
      case BinOp::shr:
        if (b->lo != b->hi || b->lo < 0 || b->lo > 62) return std::nullopt;
        return Interval{a->lo >> b->lo, a->hi >> b->lo};
      default:
        return std::nullopt;
    }
  }

  OptInterval call_interval(const Expr& e) {
    switch (e.fn) {
      case Fn::min:
      case Fn::max: {
        auto a = interval(*e.args[0]);
        auto b = interval(*e.args[1]);
        if (!a || !b) return std::nullopt;
        if (e.fn == Fn::min) return Interval{std::min(a->lo, b->lo), std::min(a->hi, b->hi)};
        return Interval{std::max(a->lo, b->lo), std::max(a->hi, b->hi)};
      }
      case Fn::clamp: {
        auto x = interval(*e.args[0]);
        auto lo = interval(*e.args[1]);
        auto hi = interval(*e.args[2]);
        if (!x || !lo || !hi) return std::nullopt;
        return Interval{std::min(std::max(x->lo, lo->lo), hi->hi), std::min(std::max(x->hi, lo->hi), hi->hi)};
      }
      case Fn::abs: {
        auto a = interval(*e.args[0]);
        if (!a || a->lo == INT64_MIN) return std::nullopt;
        if (a->lo >= 0) return a;
        if (a->hi <= 0) return Interval{-a->hi, -a->lo};
        return Interval{0, std::max(-a->lo, a->hi)};
      }
      case Fn::select: {
        OptInterval a, b;
        bool a_live = false, b_live = false;
        with_assumption(*e.args[0], true, [&] { a_live = true; a = interval(*e.args[1]); });
        with_assumption(*e.args[0], false, [&] { b_live = true; b = interval(*e.args[2]); });
        if (!a_live) return b;
        if (!b_live) return a;
        if (!a || !b) return std::nullopt;
        return Interval{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
      }
      case Fn::cast: {
        if (!is_int(e.cast_to)) return std::nullopt;
        return interval(*e.args[0]);  // clip_to_type handles narrowing
      }
      default:
        return std::nullopt;
    }
  }
};

}  // namespace

void check_bounds(const Program& p, DiagnosticList& diags) {
  BoundsChecker b(p, diags);
  b.run();
}

}  // namespace ekb
