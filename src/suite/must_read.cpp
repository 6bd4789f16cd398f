// The must-read analysis of must_read.h: each stage's body is walked once, carrying whether some
// operation between the node and the stage's value can absorb it; what a stage reads whole on a
// non-absorbing path is then followed back from the outputs.
#include "suite/must_read.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

namespace ekb {
namespace {

// The value of a constant expression (numbers, dims, consts and arithmetic on them), if it is one.
std::optional<double> constant_value(const Expr& e) {
  switch (e.kind) {
    case ExprKind::int_lit: case ExprKind::bool_lit:
      return static_cast<double>(e.ival);
    case ExprKind::float_lit:
      return e.fval;
    case ExprKind::name:
      if (e.ref == NameRef::dim) return static_cast<double>(e.ival);
      if (e.ref == NameRef::constant) return is_float(e.type) ? e.fval : static_cast<double>(e.ival);
      return std::nullopt;
    case ExprKind::unary: {
      auto a = constant_value(*e.args[0]);
      if (!a || e.unop != UnOp::neg) return std::nullopt;
      return -*a;
    }
    case ExprKind::binary: {
      auto a = constant_value(*e.args[0]), b = constant_value(*e.args[1]);
      if (!a || !b || is_int(e.type)) return std::nullopt;  // (integer arithmetic wraps and floors: not folded here)
      switch (e.binop) {
        case BinOp::add: return *a + *b;
        case BinOp::sub: return *a - *b;
        case BinOp::mul: return *a * *b;
        case BinOp::div: return *a / *b;
        default: return std::nullopt;
      }
    }
    default:
      return std::nullopt;
  }
}

// The smallest positive normal number of a float type.
double smallest_normal(DType t) {
  switch (t) {
    case DType::f64: return 2.2250738585072014e-308;
    case DType::f16: return 6.103515625e-05;
    default: return 1.1754943508222875e-38;  // f32, bf16
  }
}

// No value the harness generates for this input is 0 (its declared distribution excludes it, and
// its type keeps the smallest magnitude nonzero).
bool input_never_zero(const TensorInfo& t) {
  if (t.role != TensorRole::input) return false;
  using K = DistSpec::Kind;
  const DistSpec& d = t.dist;
  double nearest = 0;  // the smallest magnitude it takes
  switch (d.kind) {
    case K::positive: nearest = d.a; break;
    case K::uniform: nearest = d.a > 0 ? d.a : d.b < 0 ? -d.b : 0; break;
    case K::mixed: nearest = std::pow(10.0, d.a); break;
    case K::int_range: return d.a > 0 || d.b < 0;
    default: return false;  // normal (any value), bernoulli (false is 0)
  }
  return nearest > 0 && is_float(t.dtype) && nearest >= smallest_normal(t.dtype);
}

// Provably never 0 (nor otherwise absorbing: finite) for any input the harness generates.
bool never_zero(const Expr& e, const Program& p) {
  if (auto c = constant_value(e)) return std::isfinite(*c) && *c != 0;
  switch (e.kind) {
    case ExprKind::access:
      return input_never_zero(p.tensors[static_cast<size_t>(e.id)]);
    case ExprKind::name:
      return e.ref == NameRef::scalar_tensor && input_never_zero(p.tensors[static_cast<size_t>(e.id)]);
    case ExprKind::unary:
      return e.unop == UnOp::neg && never_zero(*e.args[0], p);
    case ExprKind::call:
      return e.fn == Fn::abs && never_zero(*e.args[0], p);
    default:
      return false;
  }
}

bool has_access(const Expr& e) {
  if (e.kind == ExprKind::access) return true;
  for (const auto& a : e.args)
    if (has_access(*a)) return true;
  return false;
}

// Each index is a distinct bare index variable whose range is that dimension's extent.
bool covers(const Expr& read, const StageInfo& st, const TensorInfo& t) {
  if (read.args.size() != t.shape.size()) return false;
  std::vector<bool> used(st.vars.size(), false);
  for (size_t d = 0; d < read.args.size(); ++d) {
    const Expr& i = *read.args[d];
    if (i.kind != ExprKind::name || i.ref != NameRef::index_var || i.id < 0 || static_cast<size_t>(i.id) >= st.vars.size()) return false;
    auto v = static_cast<size_t>(i.id);
    if (used[v] || st.vars[v].extent != t.shape[d]) return false;
    used[v] = true;
  }
  return true;
}

// One stage's body: the tensors it reads whole on a non-absorbing path.
class StageWalk {
 public:
  StageWalk(const Program& p, const StageInfo& st) : p_(p), st_(st) {}

  std::vector<int> reads_whole() {
    walk(*st_.body, false);
    // An element read twice at the same point can cancel itself (`A[i] + B[i] - A[i]`, `X + (C -
    // X) * s` is X * (1 - s)): such a read counts nothing, unless the other reads are in the
    // branches of a select whose condition it is in (`select(X > 0, X, 0.1 * X)`: the condition
    // picks which of them is the value).
    std::vector<int> whole;
    for (size_t f = 0; f < reads_.size(); ++f) {
      const Read& r = reads_[f];
      if (!r.counts) continue;
      bool alone = true;
      for (size_t o = 0; o < reads_.size(); ++o)
        alone = alone && (o == f || !reads_[o].same_element(r) || r.decides(reads_[o]));
      if (alone) whole.push_back(r.tensor);
    }
    return whole;
  }

 private:
  // A read of the stage's body: which tensor at which index variables ({-1} where an index is not a
  // bare variable), the selects it is inside (and whether in their condition), and whether it
  // covers its tensor on a non-absorbing path.
  struct Read {
    int tensor = -1;
    std::vector<int> indices;
    std::vector<std::pair<const Expr*, bool>> selects;
    bool counts = false;
    bool same_element(const Read& o) const { return tensor == o.tensor && indices == o.indices; }
    // This read is in the condition of a select that `o` is a branch of.
    bool decides(const Read& o) const {
      for (const auto& [sel, in_condition] : selects)
        if (in_condition && std::find(o.selects.begin(), o.selects.end(), std::make_pair(sel, false)) != o.selects.end()) return true;
      return false;
    }
  };

  void read(const Expr& e, bool absorbed, bool covering) {
    Read r;
    r.tensor = e.id;
    for (const auto& i : e.args) r.indices.push_back(i->kind == ExprKind::name && i->ref == NameRef::index_var ? i->id : -1);
    r.selects = selects_;
    r.counts = !absorbed && covering && e.id != st_.tensor;  // (a recurrence's reads of its own earlier steps count nothing)
    reads_.push_back(std::move(r));
  }

  void walk(const Expr& e, bool absorbed) {
    switch (e.kind) {
      case ExprKind::int_lit: case ExprKind::float_lit: case ExprKind::bool_lit:
        return;
      case ExprKind::name:
        if (e.ref == NameRef::scalar_tensor) read(e, absorbed, true);
        return;
      case ExprKind::access: {
        // An index's value picks the element, and reads inside an index are data-dependent ones.
        bool data_index = false;
        for (const auto& i : e.args) {
          data_index = data_index || has_access(*i);
          walk(*i, true);
        }
        read(e, absorbed, !data_index && covers(e, st_, p_.tensors[static_cast<size_t>(e.id)]));
        return;
      }
      case ExprKind::unary:
        walk(*e.args[0], absorbed);  // - ! ~: a bijection
        return;
      case ExprKind::binary:
        binary(e, absorbed);
        return;
      case ExprKind::call:
        call(e, absorbed);
        return;
      case ExprKind::reduce:
        // sum, max, min: every point counts; prod: each point's factor is absorbed by another point's zero.
        walk(*e.args[0], absorbed || (e.redop == ReduceOp::prod && !never_zero(*e.args[0], p_)));
        return;
    }
  }

  void binary(const Expr& e, bool absorbed) {
    const Expr& a = *e.args[0];
    const Expr& b = *e.args[1];
    bool a_absorbed = true, b_absorbed = true;
    switch (e.binop) {
      case BinOp::add: case BinOp::sub: case BinOp::bxor:
      case BinOp::lt: case BinOp::le: case BinOp::gt: case BinOp::ge: case BinOp::eq: case BinOp::ne:
        a_absorbed = b_absorbed = false;
        break;
      case BinOp::mul: case BinOp::band:  // x * 0 and x & 0 are 0 whatever x is
        a_absorbed = !never_zero(b, p_);
        b_absorbed = !never_zero(a, p_);
        break;
      case BinOp::div:  // the numerator always matters; 0 / x is 0 whatever x is
        a_absorbed = false;
        b_absorbed = !never_zero(a, p_);
        break;
      case BinOp::bor: {  // x | -1 is -1 whatever x is
        auto not_all_ones = [&](const Expr& x) {
          auto c = constant_value(x);
          return c && *c >= 0 && *c < static_cast<double>(int_max(e.type));
        };
        a_absorbed = !not_all_ones(b);
        b_absorbed = !not_all_ones(a);
        break;
      }
      case BinOp::shl: case BinOp::shr: {  // x shifted by a constant within its width keeps some of x's bits
        auto c = constant_value(b);
        a_absorbed = !(c && *c >= 0 && *c < dtype_bits(e.type));
        break;
      }
      case BinOp::mod: case BinOp::land: case BinOp::lor:
        break;
    }
    walk(a, absorbed || a_absorbed);
    walk(b, absorbed || b_absorbed);
  }

  void call(const Expr& e, bool absorbed) {
    switch (e.fn) {
      case Fn::select:  // the condition decides; the branch not taken is never read
        selects_.emplace_back(&e, true);
        walk(*e.args[0], absorbed);
        selects_.back().second = false;
        for (size_t i = 1; i < e.args.size(); ++i) walk(*e.args[i], true);
        selects_.pop_back();
        return;
      case Fn::pow: {  // pow(x, 0) and pow(1, y) are 1
        auto c = constant_value(*e.args[1]);
        walk(*e.args[0], absorbed || !(c && std::isfinite(*c) && *c != 0));
        walk(*e.args[1], true);
        return;
      }
      case Fn::atan2:
        for (const auto& a : e.args) walk(*a, true);
        return;
      default:  // min max clamp abs sign, the one-argument math functions, conversions
        for (const auto& a : e.args) walk(*a, absorbed);
        return;
    }
  }

  const Program& p_;
  const StageInfo& st_;
  std::vector<Read> reads_;
  std::vector<std::pair<const Expr*, bool>> selects_;  // the selects the walk is inside (in their condition?)
};

}  // namespace

MustRead must_read(const Program& p) {
  std::vector<std::vector<int>> reads;
  for (const auto& st : p.stages) reads.push_back(StageWalk(p, st).reads_whole());
  // Stages whose every element is needed: the outputs', then what they read whole, and so on.
  std::vector<bool> needed(p.stages.size(), false), counted(p.tensors.size(), false);
  std::vector<int> work;
  for (int t : p.outputs) {
    int s = p.tensors[static_cast<size_t>(t)].stage;
    if (s >= 0 && !needed[static_cast<size_t>(s)]) needed[static_cast<size_t>(s)] = true, work.push_back(s);
  }
  while (!work.empty()) {
    int s = work.back();
    work.pop_back();
    for (int t : reads[static_cast<size_t>(s)]) {
      const TensorInfo& ti = p.tensors[static_cast<size_t>(t)];
      if (ti.role == TensorRole::input) {
        counted[static_cast<size_t>(t)] = true;
      } else if (ti.stage >= 0 && !needed[static_cast<size_t>(ti.stage)]) {
        needed[static_cast<size_t>(ti.stage)] = true;
        work.push_back(ti.stage);
      }
    }
  }
  MustRead m;
  for (int t : p.inputs)
    if (counted[static_cast<size_t>(t)]) {
      m.inputs.push_back(t);
      m.bytes += p.tensors[static_cast<size_t>(t)].elements() * dtype_bytes(p.tensors[static_cast<size_t>(t)].dtype);
    }
  return m;
}

}  // namespace ekb
