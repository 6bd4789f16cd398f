// The stage measurements of stage_access.h.
#include "schedule/stage_access.h"

#include <algorithm>
#include <functional>
#include <set>

namespace ekb::default_schedule {

namespace {

using lir::EK;
using lir::ExprP;

bool costly_fn(Fn f) {
  switch (f) {
    case Fn::min: case Fn::max: case Fn::abs: case Fn::clamp: case Fn::sign: case Fn::floor: case Fn::ceil: case Fn::round:
    case Fn::trunc: case Fn::select: case Fn::cast:
      return false;
    default: return true;
  }
}

double ops(const ExprP& e) {
  double own = 0;
  switch (e->kind) {
    case EK::unary: own = 1; break;
    case EK::binary: own = e->binop == BinOp::div || e->binop == BinOp::mod ? 4 : 1; break;
    case EK::call: own = costly_fn(e->fn) ? 10 : 1; break;
    case EK::select: own = 1; break;
    case EK::reduce: {
      double n = 1;
      for (int64_t x : e->rextents) n *= static_cast<double>(x);
      return n * (ops(e->args[0]) + 1);
    }
    case EK::load: return 0;  // (its index arithmetic is the address's)
    default: break;
  }
  for (const auto& a : e->args) own += ops(a);
  return own;
}

int value_bytes(DType t) {
  if (t == DType::boolean) return 4;  // a mask: 32-bit lanes
  if (t == DType::f16 || t == DType::bf16) return 4;
  return dtype_bytes(t);
}

}  // namespace

std::optional<int64_t> affine_coefficient(const ExprP& e, const std::string& v) {
  switch (e->kind) {
    case EK::var: return e->name == v ? 1 : 0;
    case EK::int_imm: return 0;
    case EK::binary: {
      auto a = affine_coefficient(e->args[0], v), b = affine_coefficient(e->args[1], v);
      if (!a || !b) return std::nullopt;
      switch (e->binop) {
        case BinOp::add: return *a + *b;
        case BinOp::sub: return *a - *b;
        case BinOp::mul: {
          int64_t c = 0;
          if (*a == 0 && lir::is_const(e->args[0], &c)) return c * *b;
          if (*b == 0 && lir::is_const(e->args[1], &c)) return c * *a;
          if (*a == 0 && *b == 0) return 0;
          return std::nullopt;
        }
        default: break;
      }
      if (*a == 0 && *b == 0) return 0;  // (floor division or modulo of something without v)
      return std::nullopt;
    }
    case EK::cast: return affine_coefficient(e->args[0], v);
    default: break;
  }
  // Anything else (a load, a call, a select) is fine as long as v is not in it.
  std::function<bool(const ExprP&)> uses = [&](const ExprP& x) {
    if (x->kind == EK::var && x->name == v) return true;
    for (const auto& a : x->args)
      if (uses(a)) return true;
    return false;
  };
  return uses(e) ? std::nullopt : std::optional<int64_t>(0);
}

namespace {

// A reduction in an expression that lower/vector_reductions.h puts in vector lanes: every read in its
// body has its innermost variable only in its last index with coefficient 1, or not at all, and some
// read has it (the pass checks more; an estimate needs no more).
bool reduces_in_lanes(const ExprP& r) {
  const std::string& v = r->rvars.back();
  bool contiguous = false, ok = true;
  std::function<void(const ExprP&)> walk = [&](const ExprP& e) {
    if (e->kind == EK::reduce && e != r) ok = false;
    if (e->kind == EK::load) {
      for (size_t d = 0; d < e->args.size(); ++d) {
        auto c = affine_coefficient(e->args[d], v);
        if (!c) ok = false;
        else if (*c != 0) {
          if (d + 1 != e->args.size() || *c != 1) ok = false;
          contiguous = true;
        }
      }
      return;
    }
    for (const auto& a : e->args) walk(a);
  };
  walk(r->args[0]);
  return ok && contiguous;
}

}  // namespace

std::vector<Access> stage_reads(const lower::LStage& s) {
  std::vector<Access> out;
  double top = 1;
  for (int64_t x : s.rextents) top *= static_cast<double>(x);
  std::function<void(const ExprP&, double, bool)> walk = [&](const ExprP& e, double repeat, bool lanes) {
    if (e->kind == EK::load) {
      Access a{e->name, e->type, e, repeat, s.has_reduction()};
      a.vector_reduced = lanes;
      out.push_back(a);
      for (const auto& i : e->args) walk(i, repeat, false);  // (a gather's index is read too)
      return;
    }
    double r = repeat;
    if (e->kind == EK::reduce) {
      for (int64_t x : e->rextents) r *= static_cast<double>(x);
      lanes = reduces_in_lanes(e);
    }
    for (const auto& a : e->args) walk(a, r, lanes);
  };
  walk(s.value, top, false);
  return out;
}

int varying_integer_divisions(const lower::LStage& s, const std::string& v) {
  int n = 0;
  std::function<bool(const ExprP&)> varies = [&](const ExprP& e) -> bool {
    if (e->kind == EK::var && e->name == v) return true;
    for (const auto& a : e->args)
      if (varies(a)) return true;
    return false;
  };
  std::function<void(const ExprP&)> walk = [&](const ExprP& e) {
    if (e->kind == EK::load) return;  // (index arithmetic is the address's)
    if (e->kind == EK::binary && !is_float(e->type) && (e->binop == BinOp::div || e->binop == BinOp::mod) && varies(e)) {
      int64_t c = 0;
      if (!(lir::is_signed_const(e->args[1], &c) && (c > 0 || (c < 0 && is_signed_int(e->type))))) ++n;
    }
    for (const auto& a : e->args) walk(a);
  };
  walk(s.value);
  return n;
}

std::optional<int64_t> read_stride(const lower::Graph& g, const lir::ExprP& load, const std::string& v) {
  std::vector<int64_t> shape = g.shape_of(load->name);
  if (shape.size() != load->args.size()) return std::nullopt;
  int64_t stride = 1, total = 0;
  for (size_t d = shape.size(); d-- > 0;) {
    auto c = affine_coefficient(load->args[d], v);
    if (!c) return std::nullopt;
    total += *c * stride;
    stride *= shape[d];
  }
  return total;
}

int64_t write_stride(const lower::LStage& s, const std::string& v) {
  int64_t stride = 1;
  for (size_t d = s.vars.size(); d-- > 0;) {
    if (s.vars[d] == v) return stride;
    stride *= s.extents[d];
  }
  return 0;
}

double weighted_ops_per_point(const lower::LStage& s) {
  double n = ops(s.value);
  if (s.has_reduction()) {
    double r = 1;
    for (int64_t x : s.rextents) r *= static_cast<double>(x);
    n = r * (n + 1);
  }
  return n;
}

namespace {
bool indexed_through_a_read(const ExprP& load) {
  std::function<bool(const ExprP&)> has_load = [&](const ExprP& e) {
    if (e->kind == EK::load) return true;
    for (const auto& a : e->args)
      if (has_load(a)) return true;
    return false;
  };
  for (const auto& i : load->args)
    if (has_load(i)) return true;
  return false;
}
}  // namespace

double touched_bytes(const lower::Graph& g, const lower::LStage& s) {
  std::set<std::string> seen;
  double bytes = points(s) * dtype_bytes(s.type);
  for (const auto& a : stage_reads(s)) {
    if (!seen.insert(a.buffer).second) continue;
    double n = 1;
    for (int64_t x : g.shape_of(a.buffer)) n *= static_cast<double>(x);
    // (Through a table's entries, no more than the stage reads: an embedding's 64 rows of a table of
    // 8000, whose 4 MB made 8192 points look worth two threads, 1.8x slower than one. An affine read
    // keeps its buffer's size: a slice's estimate that small lost the threads that made the last
    // step of an LSTM's logits 1.5x faster.)
    bytes += (indexed_through_a_read(a.load) ? std::min(n, points(s) * a.repeat) : n) * dtype_bytes(a.type);
  }
  return bytes;
}

double points(const lower::LStage& s) {
  double n = 1;
  for (int64_t x : s.extents) n *= static_cast<double>(x);
  return n;
}

int widest_value_bytes(const lower::LStage& s) {
  int w = value_bytes(s.type);
  // Values computed from data count; index arithmetic that reads nothing (a bound's comparison, a
  // padded index) is the same in every lane of a row and costs no vector register, except where it
  // becomes data (converted to a float).
  std::function<bool(const ExprP&)> walk = [&](const ExprP& e) -> bool {
    if (e->kind == EK::load) {
      w = std::max(w, value_bytes(e->type));
      return true;  // (its index arithmetic is not vector data)
    }
    bool data = false;
    for (const auto& a : e->args) data = walk(a) || data;
    if (data || (is_float(e->type) && e->kind != EK::float_imm)) w = std::max(w, value_bytes(e->type));
    return data;
  };
  walk(s.value);
  return w;
}

int lanes_for(const lower::LStage& s, const Target& t) {
  if (t.vector_bytes <= 0) return 1;
  return std::clamp(t.vector_bytes / std::max(1, widest_value_bytes(s)), 1, 64);
}

int scalar_only_calls(const lower::LStage& s) {
  int n = 0;
  std::function<void(const ExprP&)> walk = [&](const ExprP& e) {
    if (e->kind == EK::call) switch (e->fn) {
        case Fn::pow: case Fn::atan2: case Fn::sin: case Fn::cos: case Fn::tan: case Fn::asin: case Fn::acos: case Fn::atan:
        case Fn::sinh: case Fn::cosh: case Fn::cbrt:
          ++n;
          break;
        default: break;
      }
    for (const auto& a : e->args) walk(a);
  };
  walk(s.value);
  return n;
}

bool has_data_dependent_read(const lir::ExprP& e) {
  if (e->kind == EK::load)
    for (const auto& i : e->args) {
      std::function<bool(const ExprP&)> has_load = [&](const ExprP& x) {
        if (x->kind == EK::load) return true;
        for (const auto& a : x->args)
          if (has_load(a)) return true;
        return false;
      };
      if (has_load(i)) return true;
    }
  for (const auto& a : e->args)
    if (has_data_dependent_read(a)) return true;
  return false;
}

}  // namespace ekb::default_schedule
