// The analytic terms and their refit (cost_model.h).
#include "agent/cost_model.h"

#include "agent/gpu_cost_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "lower/simplify.h"

namespace ekb::agent {

namespace {

using namespace lir;

constexpr double kGhz = 3.0;                 // cycles per ns, for turning cycles into time
constexpr double kArithPerCycle = 2.0;       // vector (or scalar) arithmetic operations per cycle
constexpr double kLoadsPerCycle = 2.0;       // loads per cycle
constexpr double kStoresPerCycle = 1.0;      // stores per cycle
constexpr double kScalarPerCycle = 4.0;      // scalar integer and compare operations per cycle (their own ALUs)
constexpr double kAccumulateLatency = 4.0;   // cycles of an add/FMA feeding the next iteration
constexpr double kForkJoinNs = 4000;         // entering and leaving one parallel region
constexpr double kLoopIterationCycles = 1.0; // compare, branch, induction variable
constexpr double kStridedLineCycles = 2.0;   // a cache line fetched for a strided (non-unit) access
constexpr double kDefaultBandwidthGBs = 16;  // per thread, when nothing better is known
constexpr double kRegisterElements = 256;    // a local buffer this small (a register tile) is kept in registers

// Memory bandwidth per thread's share (GB/s), for bytes that must go to memory and back.
double bandwidth_gbs(const Target& t) { return kDefaultBandwidthGBs * std::min(2, std::max(1, t.threads)); }

struct Loop {
  std::string var;
  double extent;
  LoopKind kind;
};

// The cost of one function call in `fn`'s vector approximation or libm (cycles per value).
double call_cycles(Fn fn, bool vector) {
  switch (fn) {
    case Fn::min: case Fn::max: case Fn::abs: case Fn::clamp: case Fn::sign: case Fn::select:
    case Fn::floor: case Fn::ceil: case Fn::round: case Fn::trunc: case Fn::cast:
      return 1;
    case Fn::sqrt: case Fn::rsqrt: return vector ? 6 : 8;
    case Fn::exp: case Fn::exp2: case Fn::expm1: case Fn::log: case Fn::log2: case Fn::log10: case Fn::log1p:
    case Fn::tanh: case Fn::sigmoid: case Fn::erf:
      return vector ? 14 : 40;
    default:
      return vector ? 40 : 60;  // scalar libm calls per lane either way
  }
}

class Walker {
 public:
  Walker(const lower::LoweredKernel& k, const Target& t) : t_(t) {
    for (const auto* args : {&k.inputs, &k.outputs})
      for (const auto& a : *args) shapes_[a.name] = a.shape;
    threads_ = t.gpu() ? 1 : std::max(1, t.threads);
  }

  CostTerms run(const StmtP& body) {
    walk(body);
    close_body(bodies_.back());
    return terms_;
  }

 private:
  const Target& t_;
  int threads_ = 1;
  std::map<std::string, std::vector<int64_t>> shapes_;
  std::map<std::string, ExprP> lets_;
  std::vector<Loop> loops_;
  CostTerms terms_;

  // Iterations of everything enclosing a statement, per thread: parallel loops split across threads.
  double executions(bool* vectorized, double* lanes) const {
    double n = 1;
    *vectorized = false;
    *lanes = 1;
    for (const auto& l : loops_) {
      double e = l.extent;
      if (l.kind == LoopKind::parallel) e = std::ceil(e / threads_);
      if (l.kind == LoopKind::vectorized) {
        *vectorized = true;
        *lanes = std::max(1.0, e);
        e = 1;  // one vector operation for all lanes
      }
      n *= e;
    }
    return n;
  }

  ExprP expand(const ExprP& e, int depth = 0) const {
    if (!e || depth > 32) return e;
    if (e->kind == EK::var) {
      auto it = lets_.find(e->name);
      return it == lets_.end() ? e : expand(it->second, depth + 1);
    }
    bool changed = false;
    std::vector<ExprP> args;
    for (const auto& a : e->args) {
      args.push_back(expand(a, depth + 1));
      changed = changed || args.back() != a;
    }
    if (!changed) return e;
    auto c = std::make_shared<lir::Expr>(*e);
    c->args = std::move(args);
    return c;
  }

  // The coefficient of `v` in an affine index expression; nullopt when it is not affine in v.
  static std::optional<double> coefficient(const ExprP& e, const std::string& v) {
    if (!e) return 0.0;
    switch (e->kind) {
      case EK::int_imm: case EK::float_imm: return 0.0;
      case EK::var: return e->name == v ? 1.0 : 0.0;
      case EK::binary: {
        auto a = coefficient(e->args[0], v), b = coefficient(e->args[1], v);
        if (!a || !b) return std::nullopt;
        int64_t c;
        switch (e->binop) {
          case BinOp::add: return *a + *b;
          case BinOp::sub: return *a - *b;
          case BinOp::mul:
            if (is_const(e->args[1], &c)) return *a * static_cast<double>(c);
            if (is_const(e->args[0], &c)) return *b * static_cast<double>(c);
            return *a == 0 && *b == 0 ? std::optional<double>(0.0) : std::nullopt;
          case BinOp::div: case BinOp::mod:
            if (*a == 0 && *b == 0) return 0.0;
            // Within one piece of a panel (`n / 16`, `n % 16`): the quotient stays, the remainder moves.
            if (is_const(e->args[1], &c) && c > 0 && std::abs(*a) < static_cast<double>(c) && *b == 0)
              return e->binop == BinOp::div ? 0.0 : *a;
            return std::nullopt;
          default: return *a == 0 && *b == 0 ? std::optional<double>(0.0) : std::nullopt;
        }
      }
      default: {
        bool any = false;
        for (const auto& a : e->args) any = any || lower::uses_var(a, v);
        return any ? std::nullopt : std::optional<double>(0.0);
      }
    }
  }

  // The element stride of an access along loop variable v (row-major flattening), nullopt if unknown.
  std::optional<double> stride(const std::string& buffer, const std::vector<ExprP>& indices, const std::string& v) const {
    auto it = shapes_.find(buffer);
    double s = 0, mult = 1;
    for (size_t d = indices.size(); d-- > 0;) {
      auto c = coefficient(expand(indices[d]), v);
      if (!c) return std::nullopt;
      s += *c * mult;
      if (it != shapes_.end() && d < it->second.size()) mult *= static_cast<double>(it->second[d]);
      else mult *= 64;
    }
    return s;
  }

  // The innermost enclosing loop that is not a vector loop, and the vector loop (if any).
  const Loop* innermost(LoopKind want_vector) const {
    for (auto it = loops_.rbegin(); it != loops_.rend(); ++it)
      if ((it->kind == LoopKind::vectorized) == (want_vector == LoopKind::vectorized)) return &*it;
    return nullptr;
  }

  // What evaluating `e` once issues (a vector of lanes when `vector`): arithmetic and loads, the loads
  // classified by their stride along the vector lane and the innermost serial loop (an invariant
  // load is hoisted out of it).
  struct Ops {
    double arith = 0, scalar = 0, loads = 0, strided_lines = 0;
  };
  // Whether `e` reads no memory: then, when it is also the same in every vector lane, it is scalar work.
  static bool load_free(const ExprP& e) {
    if (!e) return true;
    if (e->kind == EK::load || e->kind == EK::reduce) return false;
    for (const auto& a : e->args)
      if (!load_free(a)) return false;
    return true;
  }
  static double op_count(const ExprP& e) {
    if (!e || e->kind == EK::int_imm || e->kind == EK::float_imm || e->kind == EK::var) return 0;
    double n = 1;
    for (const auto& a : e->args) n += op_count(a);
    return n;
  }
  double expr_cycles(const ExprP& e, bool vector, double lanes, double inner_extent, const Loop* serial, const Loop* vec,
                     Ops& ops) const {
    if (!e) return 0;
    double c = 0;
    // In a vector body, arithmetic that is the same in every lane and reads nothing (a padded
    // input's bounds test, an index) is scalar work on the integer ALUs, not a vector operation.
    if (vector && vec && e->kind != EK::load && e->kind != EK::reduce && load_free(e)) {
      ExprP x = expand(e);
      if (!lower::uses_var(x, vec->var) && load_free(x)) {
        ops.scalar += op_count(e);
        return 0;
      }
    }
    switch (e->kind) {
      case EK::int_imm: case EK::float_imm: case EK::var: return 0;
      case EK::load: {
        // A small local buffer (a register tile) lives in registers; a load the body already made
        // is reused (the compiler's CSE).
        if (registers_.count(e->name)) return 0;
        if (!loads_seen_.insert(e->name + "[" + to_string_args(e->args) + "]").second) return 0;  // (lets expanded)
        double cost = 1;
        if (vector && vec) {
          auto s = stride(e->name, e->args, vec->var);
          if (!s || (*s != 0 && std::abs(*s) != 1)) cost = lanes;  // a gather: one load per lane
        }
        if (serial) {
          auto s = stride(e->name, e->args, serial->var);
          if (s && *s == 0) cost /= std::max(1.0, inner_extent);  // invariant in the innermost loop: hoisted
          else if (!s || std::abs(*s) * 4 > 64) ops.strided_lines += 1;  // a cache line skipped each iteration
        }
        ops.loads += cost;
        return 0;
      }
      case EK::binary:
        c = e->binop == BinOp::div || e->binop == BinOp::mod ? (is_float(e->type) ? 5 : 20) : 1;
        if (e->type == DType::i64 && !vector) c = 0.5;  // index arithmetic folds into addressing
        // a * b + c is one fused multiply-add
        if (t_.fma && is_float(e->type) && (e->binop == BinOp::add || e->binop == BinOp::sub))
          for (const auto& x : e->args)
            if (x->kind == EK::binary && x->binop == BinOp::mul) c = 0;
        break;
      case EK::unary: c = 1; break;
      case EK::select: c = 1; break;
      case EK::cast: c = 1; break;
      case EK::call: c = call_cycles(e->fn, vector); break;
      case EK::reduce: {
        double n = 1;
        for (int64_t x : e->rextents) n *= static_cast<double>(x);
        Ops inner;
        expr_cycles(e->args[0], vector, lanes, inner_extent, serial, vec, inner);
        ops.arith += n * (inner.arith + 1);
        ops.loads += n * inner.loads;
        ops.strided_lines += n * inner.strided_lines;
        return 0;
      }
    }
    ops.arith += c;
    for (const auto& a : e->args) expr_cycles(a, vector, lanes, inner_extent, serial, vec, ops);
    return 0;
  }

  // What the statements of one loop body issue per execution of the body, summed over the body.
  struct Body {
    double executions = 0;  // of the body (the largest over its statements)
    double arith = 0, scalar = 0, loads = 0, stores = 0, strided_lines = 0;
    bool accumulates = false;  // a loop-carried accumulation through this loop
  };
  std::vector<Body> bodies_ = {Body{}};

  void store(const StmtP& s) {
    bool vector = false;
    double lanes = 1;
    double n = executions(&vector, &lanes);
    const Loop* serial = innermost(LoopKind::serial);
    const Loop* vec = vector ? innermost(LoopKind::vectorized) : nullptr;
    double inner = serial ? serial->extent : 1;
    Ops ops;
    expr_cycles(s->value, vector, lanes, inner, serial, vec, ops);
    double stores = registers_.count(s->buffer) ? 0 : 1;
    if (vector && vec) {
      auto st = stride(s->buffer, s->indices, vec->var);
      if (!st || (*st != 0 && std::abs(*st) != 1)) stores = lanes;  // a scatter
    }
    Body& b = bodies_.back();
    b.executions = std::max(b.executions, n);
    b.arith += n * ops.arith;
    b.scalar += n * ops.scalar;
    b.loads += n * ops.loads;
    b.stores += n * stores;
    b.strided_lines += n * ops.strided_lines;
    // An accumulation into a location the innermost loop does not move: a chain through that loop.
    if (serial && reads_itself(s)) {
      auto st = stride(s->buffer, s->indices, serial->var);
      if (st && *st == 0) b.accumulates = true;
    }
  }

  // A body's cost: its busiest port (two arithmetic pipes, four scalar ALUs, two loads, one store per
  // cycle), and the latency of an accumulation chain where the body issues less than one chain step
  // per iteration.
  void close_body(const Body& b) {
    double cycles = std::max({b.arith / kArithPerCycle, b.scalar / kScalarPerCycle, b.loads / kLoadsPerCycle,
                              b.stores / kStoresPerCycle});
    terms_.compute += cycles / kGhz;
    terms_.memory += b.strided_lines * kStridedLineCycles / kGhz;
    if (b.accumulates && b.executions > 0) terms_.latency += std::max(0.0, b.executions * kAccumulateLatency - cycles) / kGhz;
  }

  static bool reads_location(const ExprP& e, const StmtP& s) {
    if (!e) return false;
    if (e->kind == EK::load && e->name == s->buffer && e->args.size() == s->indices.size()) {
      bool same = true;
      for (size_t i = 0; same && i < e->args.size(); ++i) same = to_string(e->args[i]) == to_string(s->indices[i]);
      if (same) return true;
    }
    for (const auto& a : e->args)
      if (reads_location(a, s)) return true;
    return false;
  }
  static bool reads_itself(const StmtP& s) { return reads_location(s->value, s); }

  std::set<std::string> registers_;   // small local buffers: register tiles
  mutable std::set<std::string> loads_seen_;  // loads made in the current loop body

  std::string to_string_args(const std::vector<ExprP>& args) const {
    std::string out;
    for (const auto& a : args) out += lir::to_string(expand(a)) + ",";
    return out;
  }

  void walk(const StmtP& s) {
    if (!s) return;
    switch (s->kind) {
      case SK::block:
        for (const auto& b : s->body) walk(b);
        return;
      case SK::for_: {
        int64_t e = 0;
        double extent = is_const(s->extent, &e) ? static_cast<double>(e) : estimate_extent(s->extent);
        bool vector_loop = s->loop == LoopKind::vectorized;
        if (s->loop == LoopKind::parallel) {
          bool dummy;
          double lanes;
          terms_.parallel += executions(&dummy, &lanes) * kForkJoinNs;
        }
        if (!vector_loop) {
          bool dummy;
          double lanes;
          double n = executions(&dummy, &lanes);
          double per = s->loop == LoopKind::parallel ? std::ceil(extent / threads_) : extent;
          terms_.loops += n * per * kLoopIterationCycles / kGhz;
        }
        loops_.push_back({s->var, extent, s->loop});
        std::set<std::string> saved_loads;
        if (!vector_loop) {
          bodies_.push_back(Body{});
          saved_loads.swap(loads_seen_);  // a new body: its loads are made anew each iteration
        }
        walk(s->body[0]);
        if (!vector_loop) {
          loads_seen_.swap(saved_loads);
          close_body(bodies_.back());
          bodies_.pop_back();
        }
        loops_.pop_back();
        return;
      }
      case SK::store:
        store(s);
        return;
      case SK::let:
        lets_[s->var] = s->value;
        walk(s->body[0]);
        lets_.erase(s->var);
        return;
      case SK::if_:
        walk(s->body[0]);
        if (s->body.size() > 1) walk(s->body[1]);
        return;
      case SK::allocate: {
        shapes_[s->alloc.name] = s->alloc.extents;
        double elements = 1;
        for (int64_t e : s->alloc.extents) elements *= static_cast<double>(e);
        bool reg = s->alloc.scope == MemScope::local && elements <= kRegisterElements;
        if (reg) registers_.insert(s->alloc.name);
        // An intermediate larger than a core's L2 (a padded copy of a whole image) is written to
        // memory and read back: traffic beyond the kernel's own inputs and outputs.
        double bytes = elements * dtype_bytes(s->alloc.type);
        if (!t_.gpu() && s->alloc.scope == MemScope::global && bytes > static_cast<double>(t_.l2_bytes)) {
          bool dummy;
          double lanes;
          terms_.memory += executions(&dummy, &lanes) * 2 * bytes / bandwidth_gbs(t_);
        }
        walk(s->body[0]);
        if (reg) registers_.erase(s->alloc.name);
        return;
      }
      default:
        for (const auto& b : s->body) walk(b);
        return;
    }
  }

  double estimate_extent(const ExprP& e) const {
    auto r = lower::numeric_range(e, lower::RangeScope{});
    return r ? std::max<double>(1.0, static_cast<double>(r->hi)) : 16.0;
  }
};

}  // namespace

double compulsory_bytes(const lower::LoweredKernel& k) {
  double b = 0;
  for (const auto* args : {&k.inputs, &k.outputs})
    for (const auto& a : *args) {
      double n = dtype_bytes(a.type);
      for (int64_t e : a.shape) n *= static_cast<double>(e);
      b += n;
    }
  return b;
}

CostTerms cost_terms(const lower::LoweredKernel& k, const Target& t) {
  if (t.gpu()) return gpu_cost_terms(k, t);
  CostTerms c = Walker(k, t).run(k.body);
  c.memory += compulsory_bytes(k) / bandwidth_gbs(t);  // bytes / (GB/s) = ns
  return c;
}

double CostModel::combine(const CostTerms& c) const {
  // A weighted sum (what refit() fits): each term is time the others do not hide at its weight.
  auto v = c.as_array();
  double t = 0;
  for (size_t i = 0; i < v.size(); ++i) t += w_[i] * v[i];
  return t;
}

void CostModel::observe(const CostTerms& c, double measured) { seen_.push_back({c, measured}); }

void CostModel::refit() {
  constexpr size_t K = CostTerms::kCount + 1;  // the weights and an intercept (the call's fixed cost)
  if (seen_.size() < 3) return;
  // Least squares on measured = b + sum_i w_i x_i, with a ridge pulling each w_i toward 1 (its
  // analytic value), scaled to the data so that a few points move the weights only a little.
  double scale = 0;
  for (const auto& [c, m] : seen_) scale = std::max(scale, m);
  if (scale <= 0) return;
  double A[K][K] = {}, y[K] = {};
  for (const auto& [c, m] : seen_) {
    auto v = c.as_array();
    double x[K];
    for (size_t i = 0; i < CostTerms::kCount; ++i) x[i] = v[i] * 1e-6 / scale;  // ns -> ms, normalised
    x[K - 1] = 1;
    for (size_t i = 0; i < K; ++i) {
      for (size_t j = 0; j < K; ++j) A[i][j] += x[i] * x[j];
      y[i] += x[i] * (m / scale);
    }
  }
  double lambda = 0.5;
  for (size_t i = 0; i + 1 < K; ++i) {
    A[i][i] += lambda;
    y[i] += lambda * 1.0;
  }
  // Gaussian elimination with partial pivoting.
  for (size_t c = 0; c < K; ++c) {
    size_t p = c;
    for (size_t r = c + 1; r < K; ++r)
      if (std::abs(A[r][c]) > std::abs(A[p][c])) p = r;
    if (std::abs(A[p][c]) < 1e-12) return;
    std::swap(A[p], A[c]);
    std::swap(y[p], y[c]);
    for (size_t r = 0; r < K; ++r) {
      if (r == c) continue;
      double f = A[r][c] / A[c][c];
      for (size_t j = c; j < K; ++j) A[r][j] -= f * A[c][j];
      y[r] -= f * y[c];
    }
  }
  for (size_t i = 0; i + 1 < K; ++i) w_[i] = std::clamp(y[i] / A[i][i], 0.05, 20.0);
}

}  // namespace ekb::agent
