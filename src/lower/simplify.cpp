// The simplifier works on linear forms: an integer expression is a sum of constant multiples of
// "terms" (variables, or any subexpression it cannot see into) plus a constant. Floats and
// comparisons are folded only when their operands are constants.
#include "lower/simplify.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <vector>

#include "ir/semantics.h"

namespace ekb::lower {

using namespace lir;

std::optional<Range> RangeScope::get(const std::string& v) const {
  auto it = ranges_.find(v);
  if (it == ranges_.end()) return std::nullopt;
  return it->second;
}

bool uses_var(const ExprP& e, const std::string& v) {
  if (e->kind == EK::var) return e->name == v;
  for (const auto& a : e->args)
    if (uses_var(a, v)) return true;
  return false;
}

namespace {

bool ovf_add(int64_t a, int64_t b, int64_t& r) { return __builtin_add_overflow(a, b, &r); }
bool ovf_mul(int64_t a, int64_t b, int64_t& r) { return __builtin_mul_overflow(a, b, &r); }

bool is_index_int(const ExprP& e) { return e->type == DType::i64; }

}  // namespace

std::optional<Range> numeric_range(const ExprP& e, const RangeScope& scope) {
  if (!is_int(e->type) && e->type != DType::boolean) return std::nullopt;
  switch (e->kind) {
    case EK::int_imm: return Range{e->ival, e->ival};
    case EK::var: return scope.get(e->name);
    case EK::cast: {
      if (is_float(e->args[0]->type)) break;
      auto r = numeric_range(e->args[0], scope);
      if (r && r->lo >= int_min(e->type) && r->hi <= int_max(e->type)) return r;
      break;
    }
    case EK::unary: {
      if (e->unop != UnOp::neg) break;
      auto a = numeric_range(e->args[0], scope);
      if (!a || a->lo == INT64_MIN) break;
      return Range{-a->hi, -a->lo};
    }
    case EK::binary: {
      if (!is_index_int(e)) break;
      auto a = numeric_range(e->args[0], scope), b = numeric_range(e->args[1], scope);
      if (!a || !b) break;
      int64_t r1, r2, r3, r4;
      switch (e->binop) {
        case BinOp::add:
          if (ovf_add(a->lo, b->lo, r1) || ovf_add(a->hi, b->hi, r2)) return std::nullopt;
          return Range{r1, r2};
        case BinOp::sub:
          if (__builtin_sub_overflow(a->lo, b->hi, &r1) || __builtin_sub_overflow(a->hi, b->lo, &r2)) return std::nullopt;
          return Range{r1, r2};
        case BinOp::mul:
          if (ovf_mul(a->lo, b->lo, r1) || ovf_mul(a->lo, b->hi, r2) || ovf_mul(a->hi, b->lo, r3) || ovf_mul(a->hi, b->hi, r4))
            return std::nullopt;
          return Range{std::min({r1, r2, r3, r4}), std::max({r1, r2, r3, r4})};
        case BinOp::div:
          if (b->lo <= 0 && b->hi >= 0) return std::nullopt;
          r1 = sem::floor_div(a->lo, b->lo), r2 = sem::floor_div(a->lo, b->hi);
          r3 = sem::floor_div(a->hi, b->lo), r4 = sem::floor_div(a->hi, b->hi);
          return Range{std::min({r1, r2, r3, r4}), std::max({r1, r2, r3, r4})};
        case BinOp::mod:
          if (b->lo != b->hi || b->lo <= 0) return std::nullopt;
          if (a->lo >= 0 && a->hi < b->lo) return a;
          return Range{0, b->lo - 1};
        default: break;
      }
      break;
    }
    case EK::call: {
      if (e->fn != Fn::min && e->fn != Fn::max) break;
      auto a = numeric_range(e->args[0], scope), b = numeric_range(e->args[1], scope);
      if (!a || !b) break;
      if (e->fn == Fn::min) return Range{std::min(a->lo, b->lo), std::min(a->hi, b->hi)};
      return Range{std::max(a->lo, b->lo), std::max(a->hi, b->hi)};
    }
    case EK::select: {
      auto a = numeric_range(e->args[1], scope), b = numeric_range(e->args[2], scope);
      if (!a || !b) break;
      return Range{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
    }
    default: break;
  }
  return std::nullopt;
}

namespace {

// sum(coef * term) + c over i64 index arithmetic.
struct Linear {
  std::vector<std::pair<ExprP, int64_t>> terms;  // distinct terms (compared by their text)
  int64_t c = 0;
  bool ok = true;
};

std::string key(const ExprP& e) { return to_string(e); }

void add_term(Linear& l, const ExprP& t, int64_t k) {
  if (k == 0) return;
  std::string kt = key(t);
  for (auto& [e, coef] : l.terms)
    if (key(e) == kt) {
      if (ovf_add(coef, k, coef)) l.ok = false;
      return;
    }
  l.terms.push_back({t, k});
}

Linear linear(const ExprP& e);

Linear scaled(Linear l, int64_t k) {
  for (auto& [t, c] : l.terms)
    if (ovf_mul(c, k, c)) l.ok = false;
  if (ovf_mul(l.c, k, l.c)) l.ok = false;
  return l;
}

Linear linear(const ExprP& e) {
  Linear l;
  if (e->kind == EK::int_imm) {
    l.c = e->ival;
    return l;
  }
  if (e->kind == EK::binary && is_index_int(e)) {
    if (e->binop == BinOp::add || e->binop == BinOp::sub) {
      Linear a = linear(e->args[0]), b = linear(e->args[1]);
      if (e->binop == BinOp::sub) b = scaled(b, -1);
      for (const auto& [t, c] : b.terms) add_term(a, t, c);
      if (ovf_add(a.c, b.c, a.c)) a.ok = false;
      a.ok = a.ok && b.ok;
      return a;
    }
    if (e->binop == BinOp::mul) {
      int64_t k;
      if (is_const(e->args[0], &k)) return scaled(linear(e->args[1]), k);
      if (is_const(e->args[1], &k)) return scaled(linear(e->args[0]), k);
    }
  }
  if (e->kind == EK::unary && e->unop == UnOp::neg && is_index_int(e)) return scaled(linear(e->args[0]), -1);
  add_term(l, e, 1);
  return l;
}

ExprP build(const Linear& l) {
  ExprP out;
  for (const auto& [t, c] : l.terms) {
    if (c == 0) continue;
    ExprP term = c == 1 ? t : (c == -1 ? nullptr : binary(BinOp::mul, t, int_imm(c), DType::i64));
    if (!out) out = c == -1 ? unary(UnOp::neg, t, DType::i64) : term;
    else if (c == -1) out = binary(BinOp::sub, out, t, DType::i64);
    else if (c < 0 && c != INT64_MIN) out = binary(BinOp::sub, out, binary(BinOp::mul, t, int_imm(-c), DType::i64), DType::i64);
    else out = binary(BinOp::add, out, term, DType::i64);
  }
  if (!out) return int_imm(l.c);
  if (l.c > 0) return binary(BinOp::add, out, int_imm(l.c), DType::i64);
  if (l.c < 0 && l.c != INT64_MIN) return binary(BinOp::sub, out, int_imm(-l.c), DType::i64);
  if (l.c == INT64_MIN) return binary(BinOp::add, out, int_imm(l.c), DType::i64);
  return out;
}

ExprP rebuild(const ExprP& e, std::vector<ExprP> args) {
  auto c = std::make_shared<lir::Expr>(*e);
  c->args = std::move(args);
  return c;
}

// c * k * (x / k) + c * (x % k) == c * x (floor division and its remainder, k > 0): a loop fused from
// two (`fuse w c`) indexes a row as (wc / C) * C + wc % C, which is wc, one contiguous run.
void fold_divmod(Linear& l) {
  for (bool again = true; again && l.ok;) {
    again = false;
    for (size_t i = 0; i < l.terms.size() && !again; ++i) {
      const auto& [m, cm] = l.terms[i];
      int64_t k = 0;
      if (m->kind != EK::binary || m->binop != BinOp::mod || !is_index_int(m) || !is_const(m->args[1], &k) || k <= 0) continue;
      std::string x = key(m->args[0]);
      for (size_t j = 0; j < l.terms.size(); ++j) {
        const auto& [d, cd] = l.terms[j];
        int64_t kd = 0, want = 0;
        if (d->kind != EK::binary || d->binop != BinOp::div || !is_const(d->args[1], &kd) || kd != k || key(d->args[0]) != x) continue;
        if (ovf_mul(cm, k, want) || cd != want) continue;
        ExprP base = m->args[0];
        int64_t c = cm;
        l.terms.erase(l.terms.begin() + static_cast<long>(std::max(i, j)));
        l.terms.erase(l.terms.begin() + static_cast<long>(std::min(i, j)));
        Linear b = scaled(linear(base), c);
        for (const auto& [t, cb] : b.terms) add_term(l, t, cb);
        if (ovf_add(l.c, b.c, l.c) || !b.ok) l.ok = false;
        again = true;
        break;
      }
    }
  }
}

// (q * k + r) / k == q and % k == r when k > 0 divides every coefficient of q and 0 <= r < k.
bool split_by(const Linear& l, int64_t k, const RangeScope& scope, Linear& q, Linear& r) {
  if (k <= 0 || !l.ok) return false;
  q = Linear{};
  r = Linear{};
  for (const auto& [t, c] : l.terms) {
    if (c % k == 0) add_term(q, t, c / k);
    else add_term(r, t, c);
  }
  q.c = sem::floor_div(l.c, k) ;
  r.c = sem::floor_mod(l.c, k);
  auto rr = numeric_range(build(r), scope);
  if (!rr) return false;
  // Move whole multiples of k out of the remainder's constant when its range allows.
  if (rr->lo >= 0 && rr->hi < k) return true;
  return false;
}

// The number of min/max nodes in `e`, counting up to `cap` (the simplifier's rewrites of min/max
// can double an expression; beyond a few of them it leaves the expression as it is).
int minmax_count(const ExprP& e, int cap) {
  int n = e->kind == EK::call && (e->fn == Fn::min || e->fn == Fn::max) ? 1 : 0;
  for (const auto& a : e->args) {
    if (n >= cap) break;
    n += minmax_count(a, cap - n);
  }
  return n;
}
constexpr int kMaxMinMaxRewrite = 6;

bool is_minmax(const ExprP& e) { return e->kind == EK::call && (e->fn == Fn::min || e->fn == Fn::max) && is_index_int(e); }

// Is x >= y for every value of the variables? Linear forms with the same terms compare by their
// constants; min/max decompose; otherwise numeric ranges decide. False means "not proved".
bool provably_ge(const ExprP& x, const ExprP& y, const RangeScope& scope, int depth = 0) {
  if (depth > 6) return false;
  Linear lx = linear(x), ly = linear(y);
  if (lx.ok && ly.ok) {
    Linear d = scaled(ly, -1);
    for (const auto& [t, c] : lx.terms) add_term(d, t, c);
    bool constant = d.ok && !ovf_add(d.c, lx.c, d.c);
    for (const auto& [t, c] : d.terms) constant = constant && c == 0;
    if (constant) return d.c >= 0;
  }
  auto rx = numeric_range(x, scope), ry = numeric_range(y, scope);
  if (rx && ry && rx->lo >= ry->hi) return true;
  if (is_minmax(y) && y->fn == Fn::min)
    return provably_ge(x, y->args[0], scope, depth + 1) || provably_ge(x, y->args[1], scope, depth + 1);
  if (is_minmax(y) && y->fn == Fn::max)
    return provably_ge(x, y->args[0], scope, depth + 1) && provably_ge(x, y->args[1], scope, depth + 1);
  if (is_minmax(x) && x->fn == Fn::min)
    return provably_ge(x->args[0], y, scope, depth + 1) && provably_ge(x->args[1], y, scope, depth + 1);
  if (is_minmax(x) && x->fn == Fn::max)
    return provably_ge(x->args[0], y, scope, depth + 1) || provably_ge(x->args[1], y, scope, depth + 1);
  return false;
}

// min/max over a list: nested ones of the same kind flattened, constants folded, duplicates and
// operands another one provably beats removed.
ExprP minmax_list(Fn fn, std::vector<ExprP> ops, const RangeScope& scope) {
  std::vector<ExprP> flat;
  std::function<void(const ExprP&)> collect = [&](const ExprP& x) {
    if (x->kind == EK::call && x->fn == fn && is_index_int(x)) {
      collect(x->args[0]);
      collect(x->args[1]);
    } else {
      flat.push_back(x);
    }
  };
  for (const auto& o : ops) collect(o);
  bool is_min = fn == Fn::min;
  std::vector<bool> dead(flat.size(), false);
  for (size_t i = 0; i < flat.size(); ++i) {
    if (dead[i]) continue;
    for (size_t j = 0; j < flat.size(); ++j) {
      if (i == j || dead[j]) continue;
      // Does flat[i] beat flat[j] for sure (i.e. j can be dropped)?
      bool beats = is_min ? provably_ge(flat[j], flat[i], scope) : provably_ge(flat[i], flat[j], scope);
      if (beats) dead[j] = true;
    }
  }
  ExprP out;
  for (size_t i = 0; i < flat.size(); ++i) {
    if (dead[i]) continue;
    out = out ? call(fn, {out, flat[i]}, DType::i64) : flat[i];
  }
  return out;
}

}  // namespace

ExprP simplify(const ExprP& e, const RangeScope& scope) {
  if (e->args.empty()) return e;
  std::vector<ExprP> args;
  for (const auto& a : e->args) args.push_back(simplify(a, scope));
  ExprP s = rebuild(e, std::move(args));
  const auto& a = s->args;
  int64_t x, y;
  switch (s->kind) {
    case EK::binary: {
      // Data integers narrower than 64 bits, both sides constant: the wrapped result (`2 * BS * BS`
      // with BS a dimension; left unfolded, a division by it ran lane by lane).
      if (!is_index_int(s) && is_int(s->type) && dtype_bits(s->type) <= 32 && is_const(a[0], &x) && is_const(a[1], &y)) {
        if (s->binop == BinOp::add) return int_imm(wrap_int(x + y, s->type), s->type);
        if (s->binop == BinOp::sub) return int_imm(wrap_int(x - y, s->type), s->type);
        if (s->binop == BinOp::mul) return int_imm(wrap_int(x * y, s->type), s->type);
      }
      if (is_index_int(s) && (s->binop == BinOp::add || s->binop == BinOp::sub || s->binop == BinOp::mul)) {
        Linear l = linear(s);
        fold_divmod(l);
        if (!l.ok) return s;
        // min(a, b) + r == min(a + r, b + r), and -min(a, b) + r == max(r - a, r - b): pushing the rest
        // inside lets terms cancel (`min(x + 31, 99) - x + 1` becomes `min(32, 100 - x)`).
        bool small = minmax_count(s, kMaxMinMaxRewrite + 1) <= kMaxMinMaxRewrite;
        for (size_t k = 0; k < l.terms.size() && small; ++k) {
          const auto& [t, c] = l.terms[k];
          if (!is_minmax(t) || (c != 1 && c != -1) || (l.terms.size() == 1 && l.c == 0)) continue;
          Linear rest = l;
          rest.terms.erase(rest.terms.begin() + static_cast<long>(k));
          ExprP r = build(rest);
          Fn fn = c == 1 ? t->fn : (t->fn == Fn::min ? Fn::max : Fn::min);
          auto side = [&](const ExprP& x) { return simplify(c == 1 ? add(x, r) : sub(r, x), scope); };
          return simplify(call(fn, {side(t->args[0]), side(t->args[1])}, DType::i64), scope);
        }
        return build(l);
      }
      if (is_index_int(s) && (s->binop == BinOp::div || s->binop == BinOp::mod) && is_const(a[1], &y) && y > 0) {
        if (is_const(a[0], &x)) return int_imm(s->binop == BinOp::div ? sem::floor_div(x, y) : sem::floor_mod(x, y));
        if (y == 1) return s->binop == BinOp::div ? a[0] : int_imm(0);
        Linear q, r;
        Linear la = linear(a[0]);
        if (split_by(la, y, scope, q, r)) return s->binop == BinOp::div ? build(q) : build(r);
        // Whole multiples of y leave the division: (y*Q + R) / y = Q + R / y and (y*Q + R) % y = R % y
        // (floor semantics), so the index arithmetic left is small and its low bits are visible.
        if (la.ok && (q.c != 0 || !q.terms.empty()) && (r.c != 0 || !r.terms.empty())) {
          ExprP rest = s->binop == BinOp::div ? floordiv(build(r), a[1]) : floormod(build(r), a[1]);
          return simplify(s->binop == BinOp::div ? add(build(q), rest) : rest, scope);
        }
        // (g*X + c) with g dividing y and c % g = c0 > 0: adding c0 < g to a multiple of g never
        // crosses a multiple of y, so (g*X + c) / y = (g*X + c - c0) / y and the remainder grows by
        // c0 (a thread's 4 neighbouring elements (t*4 + i) / 16 share one quotient).
        if (la.ok && !la.terms.empty()) {
          int64_t g = 0;
          for (const auto& [t, c] : la.terms) g = std::gcd(g, c < 0 ? -c : c);
          int64_t c0 = g > 1 && y % g == 0 ? sem::floor_mod(la.c, g) : 0;
          if (c0 > 0) {
            ExprP base = simplify(sub(a[0], int_imm(c0)), scope);
            return s->binop == BinOp::div ? simplify(floordiv(base, a[1]), scope)
                                          : simplify(add(floormod(base, a[1]), int_imm(c0)), scope);
          }
        }
        auto ra = numeric_range(a[0], scope);
        if (ra) {
          int64_t q = sem::floor_div(ra->lo, y);
          if (q == sem::floor_div(ra->hi, y))  // one quotient over the whole range
            return s->binop == BinOp::div ? int_imm(q) : simplify(sub(a[0], int_imm(q * y)), scope);
        }
        return s;
      }
      if (s->type == DType::boolean && is_int(a[0]->type) && is_const(a[0], &x) && is_const(a[1], &y)) {
        switch (s->binop) {
          case BinOp::lt: return bool_imm(x < y);
          case BinOp::le: return bool_imm(x <= y);
          case BinOp::gt: return bool_imm(x > y);
          case BinOp::ge: return bool_imm(x >= y);
          case BinOp::eq: return bool_imm(x == y);
          case BinOp::ne: return bool_imm(x != y);
          default: break;
        }
      }
      if (s->type == DType::boolean && (s->binop == BinOp::lt || s->binop == BinOp::le) && is_index_int(a[0])) {
        auto ra = numeric_range(a[0], scope), rb = numeric_range(a[1], scope);
        if (ra && rb) {
          if (s->binop == BinOp::lt && ra->hi < rb->lo) return bool_imm(true);
          if (s->binop == BinOp::lt && ra->lo >= rb->hi) return bool_imm(false);
          if (s->binop == BinOp::le && ra->hi <= rb->lo) return bool_imm(true);
          if (s->binop == BinOp::le && ra->lo > rb->hi) return bool_imm(false);
        }
      }
      return s;
    }
    case EK::call:
      if ((s->fn == Fn::min || s->fn == Fn::max) && is_index_int(s)) {
        if (is_const(a[0], &x) && is_const(a[1], &y)) return int_imm(s->fn == Fn::min ? std::min(x, y) : std::max(x, y));
        if ((is_minmax(a[0]) || is_minmax(a[1])) && minmax_count(s, kMaxMinMaxRewrite + 1) <= kMaxMinMaxRewrite) {
          ExprP flat = minmax_list(s->fn, {a[0], a[1]}, scope);
          if (to_string(flat) != to_string(s)) return simplify(flat, scope);
        }
        if (key(a[0]) == key(a[1])) return a[0];
        auto ra = numeric_range(a[0], scope), rb = numeric_range(a[1], scope);
        if (ra && rb) {
          if (ra->hi <= rb->lo) return s->fn == Fn::min ? a[0] : a[1];
          if (rb->hi <= ra->lo) return s->fn == Fn::min ? a[1] : a[0];
        }
        // min(x + c1, x + c2) with the same terms: the smaller constant wins.
        Linear la = linear(a[0]), lb = linear(a[1]);
        Linear d = lb;
        d = scaled(d, -1);
        for (const auto& [t, c] : la.terms) add_term(d, t, c);
        if (ovf_add(d.c, la.c, d.c)) d.ok = false;
        bool same_terms = d.ok;
        for (const auto& [t, c] : d.terms) same_terms = same_terms && c == 0;
        if (same_terms) return (d.c <= 0) == (s->fn == Fn::min) ? a[0] : a[1];
      }
      return s;
    case EK::select:
      if (is_const(a[0], &x)) return x ? a[1] : a[2];
      return s;
    case EK::cast:
      if (is_const(a[0], &x) && is_int(s->type)) return int_imm(wrap_int(x, s->type), s->type);
      if (a[0]->type == s->type) return a[0];
      return s;
    default:
      return s;
  }
}

}  // namespace ekb::lower

namespace ekb::lower {

std::optional<std::pair<int64_t, ExprP>> solve_for(const ExprP& e, const std::string& v) {
  Linear l = linear(e);
  if (!l.ok) return std::nullopt;
  int64_t coef = 0;
  Linear rest;
  rest.c = l.c;
  for (const auto& [t, c] : l.terms) {
    if (t->kind == EK::var && t->name == v) coef += c;
    else if (uses_var(t, v)) return std::nullopt;
    else add_term(rest, t, c);
  }
  return std::make_pair(coef, build(rest));
}

}  // namespace ekb::lower
