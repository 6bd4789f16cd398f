// Vectorised tree evaluation. Each stage is evaluated over chunks of up to kLanes output elements
// (contiguous ranges of chunks on several threads when the stage is large, each thread with its own
// tree); every expression node owns a lane buffer. Reductions either loop over their points with all lanes
// at once, or, when few lanes are active (a global sum), turn their points into lanes.
#include "interp/interpreter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <thread>

#include "ir/printer.h"
#include "ir/semantics.h"

namespace ekb {
namespace {

constexpr int kLanes = 1024;
constexpr double kMaxInterpreterBytes = 8.0 * (1 << 30);

// Steps a row-major multi-index to the next point of the box `extents` (wrapping to all zeros).
void next_point(std::vector<int64_t>& point, const std::vector<int64_t>& extents) {
  for (size_t k = point.size(); k-- > 0;) {
    if (++point[k] < extents[k]) return;
    point[k] = 0;
  }
}

struct Val {
  const double* f = nullptr;
  const int64_t* i = nullptr;
};

struct Frame {
  int n = 0;
  std::vector<std::vector<int64_t>> storage;  // per stage variable
  std::vector<const int64_t*> vars;
  explicit Frame(size_t nvars) : storage(nvars, std::vector<int64_t>(kLanes)), vars(nvars) {
    for (size_t v = 0; v < nvars; ++v) vars[v] = storage[v].data();
  }
};

struct RuntimeFault {
  Loc loc;
  std::string message;
};

struct Node {
  ExprKind kind;
  const Expr* expr;
  bool fl;  // lanes are double (float types) or int64
  DType type;
  std::vector<std::unique_ptr<Node>> kids;
  // payload
  double fconst = 0;
  int64_t iconst = 0;
  int var = -1;
  const TensorData* tensor = nullptr;
  std::vector<int64_t> strides;
  // buffers
  std::vector<double> fb;
  std::vector<int64_t> ib;
  std::vector<double> cvt;     // this node's value converted to double, when a parent needs it
  std::vector<uint8_t> mask_a, mask_b;
  std::vector<double> acc_f;
  std::vector<int64_t> acc_i;
  std::unique_ptr<Frame> sub;  // reductions: a frame whose lanes are reduction points
  std::array<int64_t, 3>* counts = nullptr;  // a choice's outcomes, when coverage is counted
};

class Evaluator {
 public:
  Evaluator(std::vector<TensorData>& store, BranchCoverage* coverage) : store_(store), coverage_(coverage) {}
  ~Evaluator() {
    if (!coverage_ || counts_.empty()) return;
    std::lock_guard<std::mutex> lock(coverage_->mutex);
    for (const auto& [e, c] : counts_) {
      auto& into = coverage_->counts[e];
      for (size_t k = 0; k < c.size(); ++k) into[k] += c[k];
    }
  }
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  // Elements [begin, end) of the stage's output (row-major); the chunks of kLanes start at `begin`.
  void run_stage(const StageInfo& st, TensorData& out, int64_t begin, int64_t end) {
    st_ = &st;
    std::unique_ptr<Node> root = build(*st.body);
    Frame frame(st.vars.size());
    std::vector<int64_t> extents;
    for (int v = 0; v < st.n_lhs; ++v) extents.push_back(st.vars[v].extent);
    std::vector<int64_t> counter(extents.size(), 0);
    for (size_t k = extents.size(), rest = static_cast<size_t>(begin); k-- > 0;) {
      counter[k] = static_cast<int64_t>(rest % static_cast<size_t>(extents[k]));
      rest /= static_cast<size_t>(extents[k]);
    }
    for (int64_t start = begin; start < end; start += kLanes) {
      int n = static_cast<int>(std::min<int64_t>(kLanes, end - start));
      frame.n = n;
      // Row-major decomposition of flat indices start..start+n-1 into the left-side variables.
      for (int l = 0; l < n; ++l) {
        for (size_t v = 0; v < extents.size(); ++v) frame.storage[v][l] = counter[v];
        next_point(counter, extents);
      }
      Val val = eval(*root, frame, nullptr);
      if (out.holds_float()) {
        const double* src = root->fl ? val.f : to_double(*root, val, n);
        std::copy(src, src + n, out.f.begin() + start);
      } else {
        for (int l = 0; l < n; ++l) out.i[start + l] = wrap_int(val.i[l], out.dtype);
      }
    }
  }

  // A recurrence: its steps in increasing order of the scan variable, each step's points (every
  // other left-side variable, row-major) in chunks of kLanes; a step reads the steps before it.
  void run_scan(const StageInfo& st, TensorData& out) {
    st_ = &st;
    std::unique_ptr<Node> root = build(*st.body);
    Frame frame(st.vars.size());
    std::vector<int64_t> strides(static_cast<size_t>(st.n_lhs), 1);
    for (int v = st.n_lhs - 1; v > 0; --v) strides[v - 1] = strides[v] * st.vars[v].extent;
    std::vector<int> others;  // the step's own variables, outermost first
    std::vector<int64_t> extents;
    for (int v = 0; v < st.n_lhs; ++v)
      if (v != st.scan_var) {
        others.push_back(v);
        extents.push_back(st.vars[v].extent);
      }
    int64_t per_step = 1;
    for (int64_t e : extents) per_step *= e;
    std::vector<int64_t> flat(kLanes);
    for (int64_t t = 0; t < st.vars[st.scan_var].extent; ++t) {
      std::vector<int64_t> counter(extents.size(), 0);
      for (int64_t start = 0; start < per_step; start += kLanes) {
        int n = static_cast<int>(std::min<int64_t>(kLanes, per_step - start));
        frame.n = n;
        for (int l = 0; l < n; ++l) {
          frame.storage[st.scan_var][l] = t;
          flat[l] = t * strides[st.scan_var];
          for (size_t k = 0; k < others.size(); ++k) {
            frame.storage[others[k]][l] = counter[k];
            flat[l] += counter[k] * strides[others[k]];
          }
          next_point(counter, extents);
        }
        Val val = eval(*root, frame, nullptr);
        if (out.holds_float()) {
          const double* src = root->fl ? val.f : to_double(*root, val, n);
          for (int l = 0; l < n; ++l) out.f[flat[l]] = src[l];
        } else {
          for (int l = 0; l < n; ++l) out.i[flat[l]] = wrap_int(val.i[l], out.dtype);
        }
      }
    }
  }

 private:
  std::vector<TensorData>& store_;  // indexed by tensor id
  const StageInfo* st_ = nullptr;
  BranchCoverage* coverage_;
  std::map<const Expr*, std::array<int64_t, 3>> counts_;  // this evaluator's, added to coverage_ at the end

  static bool is_choice(const Expr& e) {
    return e.kind == ExprKind::call &&
           (e.fn == Fn::select || e.fn == Fn::clamp || ((e.fn == Fn::min || e.fn == Fn::max) && e.args.size() == 2));
  }
  // Counts the active lanes' outcomes of a clamp (below, inside, above) or a min/max (first, second, tie).
  template <typename T>
  void count_choice(Node& n, const uint8_t* mask, int N, const T* x, const T* y, const T* z) {
    if (!n.counts) return;
    auto& c = *n.counts;
    Fn fn = n.expr->fn;
    for (int l = 0; l < N; ++l) {
      if (mask && !mask[l]) continue;
      if (fn == Fn::clamp) ++c[x[l] < y[l] ? 0 : x[l] > z[l] ? 2 : 1];
      else if (x[l] == y[l]) ++c[2];
      else ++c[(fn == Fn::max) == (x[l] > y[l]) ? 0 : 1];
    }
  }

  std::unique_ptr<Node> build(const Expr& e) {
    auto n = std::make_unique<Node>();
    n->kind = e.kind;
    n->expr = &e;
    n->type = e.type;
    n->fl = is_float(e.type);
    for (const auto& a : e.args) n->kids.push_back(build(*a));
    if (coverage_ && is_choice(e)) n->counts = &counts_[&e];
    switch (e.kind) {
      case ExprKind::int_lit:
      case ExprKind::bool_lit:
        n->iconst = e.ival;
        n->fconst = static_cast<double>(e.ival);
        break;
      case ExprKind::float_lit:
        n->fconst = e.fval;
        break;
      case ExprKind::name:
        if (e.ref == NameRef::index_var) n->var = e.id;
        else if (e.ref == NameRef::scalar_tensor) n->tensor = &store_[e.id];
        else if (is_float(e.type)) n->fconst = const_value_f(e);
        else n->iconst = e.ival;
        break;
      case ExprKind::access: {
        n->tensor = &store_[e.id];
        const auto& shape = n->tensor->shape;
        n->strides.assign(shape.size(), 1);
        for (size_t d = shape.size(); d-- > 1;) n->strides[d - 1] = n->strides[d] * shape[d];
        break;
      }
      default:
        break;
    }
    n->fb.resize(n->fl ? kLanes : 0);
    n->ib.resize(n->fl ? 0 : kLanes);
    return n;
  }

  // A dim or const where a float is wanted. Integer consts carry their value in ival (fval is 0),
  // float consts in fval (ival is 0).
  static double const_value_f(const Expr& e) {
    if (e.ref == NameRef::dim) return static_cast<double>(e.ival);
    return e.fval != 0 ? e.fval : static_cast<double>(e.ival);
  }

  [[noreturn]] void fault(const Node& n, std::string msg) { throw RuntimeFault{n.expr->loc, std::move(msg)}; }

  const double* to_double(Node& n, Val v, int lanes) {
    if (n.fl) return v.f;
    n.cvt.resize(kLanes);
    for (int l = 0; l < lanes; ++l) n.cvt[l] = static_cast<double>(v.i[l]);
    return n.cvt.data();
  }

  Val eval(Node& n, Frame& fr, const uint8_t* mask) {
    const int N = fr.n;
    switch (n.kind) {
      case ExprKind::int_lit:
      case ExprKind::bool_lit:
      case ExprKind::float_lit:
        return fill_const(n, N);
      case ExprKind::name:
        if (n.var >= 0) return Val{nullptr, fr.vars[n.var]};
        if (n.tensor) {
          if (n.fl) std::fill(n.fb.begin(), n.fb.begin() + N, n.tensor->f[0]);
          else std::fill(n.ib.begin(), n.ib.begin() + N, n.tensor->i[0]);
          return own(n);
        }
        return fill_const(n, N);
      case ExprKind::access:
        return load(n, fr, mask);
      case ExprKind::unary:
        return unary(n, fr, mask);
      case ExprKind::binary:
        return binary(n, fr, mask);
      case ExprKind::call:
        return call(n, fr, mask);
      case ExprKind::reduce:
        return reduce(n, fr, mask);
    }
    return {};
  }

  static Val own(Node& n) { return n.fl ? Val{n.fb.data(), nullptr} : Val{nullptr, n.ib.data()}; }

  Val fill_const(Node& n, int N) {
    if (n.fl) std::fill(n.fb.begin(), n.fb.begin() + N, n.fconst);
    else std::fill(n.ib.begin(), n.ib.begin() + N, wrap_int(n.iconst, n.type));
    return own(n);
  }

  Val load(Node& n, Frame& fr, const uint8_t* mask) {
    const int N = fr.n;
    const size_t rank = n.kids.size();
    const int64_t* idx[8];
    std::vector<const int64_t*> idx_heap;
    const int64_t** ix = idx;
    if (rank > 8) {
      idx_heap.resize(rank);
      ix = idx_heap.data();
    }
    for (size_t d = 0; d < rank; ++d) ix[d] = eval(*n.kids[d], fr, mask).i;
    const auto& shape = n.tensor->shape;
    for (int l = 0; l < N; ++l) {
      if (mask && !mask[l]) {
        if (n.fl) n.fb[l] = 0;
        else n.ib[l] = 0;
        continue;
      }
      int64_t off = 0;
      for (size_t d = 0; d < rank; ++d) {
        int64_t v = ix[d][l];
        if (v < 0 || v >= shape[d]) {
          std::vector<int64_t> at;
          for (size_t k = 0; k < rank; ++k) at.push_back(ix[k][l]);
          fault(n, fmt::format("`{}` read index {} of dimension {} of `{}`, which has size {} (indices [{}])",
                               print_expr(*n.expr), v, d, n.tensor->name, shape[d], fmt::join(at, ", ")));
        }
        off += v * n.strides[d];
      }
      if (n.fl) n.fb[l] = n.tensor->f[off];
      else n.ib[l] = n.tensor->i[off];
    }
    return own(n);
  }

  Val unary(Node& n, Frame& fr, const uint8_t* mask) {
    const int N = fr.n;
    Node& k = *n.kids[0];
    Val a = eval(k, fr, mask);
    switch (n.expr->unop) {
      case UnOp::neg:
        if (n.fl) {
          const double* x = to_double(k, a, N);
          for (int l = 0; l < N; ++l) n.fb[l] = -x[l];
        } else {
          for (int l = 0; l < N; ++l) n.ib[l] = wrap_int(sem::wneg(a.i[l]), n.type);
        }
        break;
      case UnOp::lnot:
        for (int l = 0; l < N; ++l) n.ib[l] = !a.i[l];
        break;
      case UnOp::bnot:
        for (int l = 0; l < N; ++l) n.ib[l] = wrap_int(~a.i[l], n.type);
        break;
    }
    return own(n);
  }

  // Builds mask_out = mask AND (cond == want); returns the number of active lanes.
  static int and_mask(const uint8_t* mask, const int64_t* cond, bool want, int N, std::vector<uint8_t>& out) {
    out.resize(kLanes);
    int active = 0;
    for (int l = 0; l < N; ++l) {
      out[l] = (!mask || mask[l]) && ((cond[l] != 0) == want);
      active += out[l];
    }
    return active;
  }

  Val binary(Node& n, Frame& fr, const uint8_t* mask) {
    const int N = fr.n;
    BinOp op = n.expr->binop;
    Node& ka = *n.kids[0];
    Node& kb = *n.kids[1];
    if (op == BinOp::land || op == BinOp::lor) {
      Val a = eval(ka, fr, mask);
      bool need = op == BinOp::land;  // b matters where a is true (&&) or false (||)
      int active = and_mask(mask, a.i, need, N, n.mask_a);
      const int64_t* b = nullptr;
      if (active) b = eval(kb, fr, n.mask_a.data()).i;
      for (int l = 0; l < N; ++l) n.ib[l] = n.mask_a[l] ? (b[l] != 0) : !need;
      return own(n);
    }
    Val a = eval(ka, fr, mask);
    Val b = eval(kb, fr, mask);
    switch (op) {
      case BinOp::lt: case BinOp::le: case BinOp::gt: case BinOp::ge: case BinOp::eq: case BinOp::ne: {
        if (is_float(n.expr->cast_to)) {
          const double* x = to_double(ka, a, N);
          const double* y = to_double(kb, b, N);
          for (int l = 0; l < N; ++l) n.ib[l] = compare(op, x[l], y[l]);
        } else {
          for (int l = 0; l < N; ++l) n.ib[l] = compare(op, a.i[l], b.i[l]);
        }
        return own(n);
      }
      default:
        break;
    }
    if (n.fl) {
      const double* x = to_double(ka, a, N);
      const double* y = to_double(kb, b, N);
      double* r = n.fb.data();
      switch (op) {
        case BinOp::add: for (int l = 0; l < N; ++l) r[l] = x[l] + y[l]; break;
        case BinOp::sub: for (int l = 0; l < N; ++l) r[l] = x[l] - y[l]; break;
        case BinOp::mul: for (int l = 0; l < N; ++l) r[l] = x[l] * y[l]; break;
        case BinOp::div: for (int l = 0; l < N; ++l) r[l] = x[l] / y[l]; break;
        case BinOp::mod: for (int l = 0; l < N; ++l) r[l] = sem::float_mod(x[l], y[l]); break;
        default: fault(n, "internal: bad float operator");
      }
      return own(n);
    }
    const int64_t* x = a.i;
    const int64_t* y = b.i;
    int64_t* r = n.ib.data();
    DType t = n.type;
    int bits = dtype_bits(t);
    switch (op) {
      case BinOp::add: for (int l = 0; l < N; ++l) r[l] = wrap_int(sem::wadd(x[l], y[l]), t); break;
      case BinOp::sub: for (int l = 0; l < N; ++l) r[l] = wrap_int(sem::wsub(x[l], y[l]), t); break;
      case BinOp::mul: for (int l = 0; l < N; ++l) r[l] = wrap_int(sem::wmul(x[l], y[l]), t); break;
      case BinOp::div:
      case BinOp::mod:
        for (int l = 0; l < N; ++l) {
          if (y[l] == 0) {
            if (!mask || mask[l]) fault(n, fmt::format("integer division by zero in `{}`", print_expr(*n.expr)));
            r[l] = 0;
            continue;
          }
          r[l] = wrap_int(op == BinOp::div ? sem::floor_div(x[l], y[l]) : sem::floor_mod(x[l], y[l]), t);
        }
        break;
      case BinOp::band: for (int l = 0; l < N; ++l) r[l] = wrap_int(x[l] & y[l], t); break;
      case BinOp::bor: for (int l = 0; l < N; ++l) r[l] = wrap_int(x[l] | y[l], t); break;
      case BinOp::bxor: for (int l = 0; l < N; ++l) r[l] = wrap_int(x[l] ^ y[l], t); break;
      case BinOp::shl:
      case BinOp::shr:
        for (int l = 0; l < N; ++l) {
          if (y[l] < 0 || y[l] >= bits) {
            if (!mask || mask[l])
              fault(n, fmt::format("shift by {} in `{}`: the amount must be in 0..{} for {}", y[l], print_expr(*n.expr),
                                   bits - 1, dtype_name(t)));
            r[l] = 0;
            continue;
          }
          if (op == BinOp::shl) r[l] = wrap_int(static_cast<int64_t>(static_cast<uint64_t>(x[l]) << y[l]), t);
          else r[l] = x[l] >> y[l];  // arithmetic shift for signed types; u8 values are non-negative
        }
        break;
      default:
        fault(n, "internal: bad integer operator");
    }
    return own(n);
  }

  template <typename T>
  static int64_t compare(BinOp op, T x, T y) {
    switch (op) {
      case BinOp::lt: return x < y;
      case BinOp::le: return x <= y;
      case BinOp::gt: return x > y;
      case BinOp::ge: return x >= y;
      case BinOp::eq: return x == y;
      default: return x != y;
    }
  }

  Val call(Node& n, Frame& fr, const uint8_t* mask) {
    const int N = fr.n;
    Fn fn = n.expr->fn;
    if (fn == Fn::select) {
      Val c = eval(*n.kids[0], fr, mask);
      int ta = and_mask(mask, c.i, true, N, n.mask_a);
      int tb = and_mask(mask, c.i, false, N, n.mask_b);
      if (n.counts) {
        (*n.counts)[0] += ta;
        (*n.counts)[1] += tb;
      }
      Val a{}, b{};
      const double *af = nullptr, *bf = nullptr;
      if (ta) {
        a = eval(*n.kids[1], fr, n.mask_a.data());
        if (n.fl) af = to_double(*n.kids[1], a, N);
      }
      if (tb) {
        b = eval(*n.kids[2], fr, n.mask_b.data());
        if (n.fl) bf = to_double(*n.kids[2], b, N);
      }
      for (int l = 0; l < N; ++l) {
        bool pick_a = n.mask_a[l];
        bool pick_b = n.mask_b[l];
        if (n.fl) n.fb[l] = pick_a ? af[l] : pick_b ? bf[l] : 0.0;
        else n.ib[l] = pick_a ? a.i[l] : pick_b ? b.i[l] : 0;
      }
      return own(n);
    }
    if (fn == Fn::cast) {
      Node& k = *n.kids[0];
      Val a = eval(k, fr, mask);
      DType to = n.expr->cast_to;
      if (is_float(to)) {
        const double* x = to_double(k, a, N);
        std::copy(x, x + N, n.fb.begin());  // float results are carried in double (docs/ir.md)
      } else if (k.fl) {
        for (int l = 0; l < N; ++l) n.ib[l] = sem::float_to_int(a.f[l], to);
      } else {
        for (int l = 0; l < N; ++l) n.ib[l] = wrap_int(a.i[l], to);
      }
      return own(n);
    }
    std::vector<Val> args;
    for (auto& k : n.kids) args.push_back(eval(*k, fr, mask));
    if (n.fl) {
      std::vector<const double*> x;
      for (size_t i = 0; i < n.kids.size(); ++i) x.push_back(to_double(*n.kids[i], args[i], N));
      if (n.counts) count_choice(n, mask, N, x[0], x[1], fn == Fn::clamp ? x[2] : x[1]);
      double* r = n.fb.data();
      switch (fn) {
        case Fn::min: for (int l = 0; l < N; ++l) r[l] = sem::fmin_nan(x[0][l], x[1][l]); break;
        case Fn::max: for (int l = 0; l < N; ++l) r[l] = sem::fmax_nan(x[0][l], x[1][l]); break;
        case Fn::clamp:
          for (int l = 0; l < N; ++l) r[l] = sem::fmin_nan(sem::fmax_nan(x[0][l], x[1][l]), x[2][l]);
          break;
        case Fn::pow: for (int l = 0; l < N; ++l) r[l] = std::pow(x[0][l], x[1][l]); break;
        case Fn::atan2: for (int l = 0; l < N; ++l) r[l] = std::atan2(x[0][l], x[1][l]); break;
        default:
          for (int l = 0; l < N; ++l) r[l] = sem::apply_unary_fn(fn, x[0][l]);
          break;
      }
      return own(n);
    }
    if (n.counts) count_choice(n, mask, N, args[0].i, args[1].i, fn == Fn::clamp ? args[2].i : args[1].i);
    int64_t* r = n.ib.data();
    DType t = n.type;
    switch (fn) {
      case Fn::min: for (int l = 0; l < N; ++l) r[l] = std::min(args[0].i[l], args[1].i[l]); break;
      case Fn::max: for (int l = 0; l < N; ++l) r[l] = std::max(args[0].i[l], args[1].i[l]); break;
      case Fn::clamp:
        for (int l = 0; l < N; ++l) r[l] = std::min(std::max(args[0].i[l], args[1].i[l]), args[2].i[l]);
        break;
      case Fn::abs:
        for (int l = 0; l < N; ++l) r[l] = wrap_int(args[0].i[l] < 0 ? sem::wneg(args[0].i[l]) : args[0].i[l], t);
        break;
      case Fn::sign: for (int l = 0; l < N; ++l) r[l] = (args[0].i[l] > 0) - (args[0].i[l] < 0); break;
      default: fault(n, fmt::format("internal: `{}` on integers", n.expr->text));
    }
    return own(n);
  }

  // ---- reductions ----
  struct Space {
    std::vector<int> vars;
    std::vector<int64_t> extents;
    int64_t size = 1;
  };

  Space space_of(const Node& n) {
    Space s;
    for (int v : n.expr->rvar_ids) {
      s.vars.push_back(v);
      s.extents.push_back(st_->vars[v].extent);
      s.size *= st_->vars[v].extent;
    }
    return s;
  }

  void init_acc(Node& n, int N) {
    ReduceOp op = n.expr->redop;
    if (n.fl) {
      double init = op == ReduceOp::sum ? 0.0 : op == ReduceOp::prod ? 1.0 : op == ReduceOp::max ? -INFINITY : INFINITY;
      n.acc_f.assign(static_cast<size_t>(N), init);
    } else {
      int64_t init = op == ReduceOp::sum ? 0 : op == ReduceOp::prod ? 1 : op == ReduceOp::max ? int_min(n.type) : int_max(n.type);
      n.acc_i.assign(static_cast<size_t>(N), init);
    }
  }

  static void fold_f(ReduceOp op, double& acc, double v) {
    switch (op) {
      case ReduceOp::sum: acc += v; break;
      case ReduceOp::prod: acc *= v; break;
      case ReduceOp::max: acc = sem::fmax_nan(acc, v); break;
      case ReduceOp::min: acc = sem::fmin_nan(acc, v); break;
    }
  }
  static void fold_i(ReduceOp op, int64_t& acc, int64_t v) {
    switch (op) {
      case ReduceOp::sum: acc = sem::wadd(acc, v); break;
      case ReduceOp::prod: acc = sem::wmul(acc, v); break;
      case ReduceOp::max: acc = std::max(acc, v); break;
      case ReduceOp::min: acc = std::min(acc, v); break;
    }
  }

  Val reduce(Node& n, Frame& fr, const uint8_t* mask) {
    const int N = fr.n;
    Space sp = space_of(n);
    init_acc(n, N);
    ReduceOp op = n.expr->redop;
    Node& body = *n.kids[0];
    if (N < 32 && sp.size > N) {
      reduce_points_as_lanes(n, fr, mask, sp);
    } else {
      // Every lane at once, one reduction point after another.
      std::vector<int64_t> point(sp.vars.size(), 0);
      std::vector<int64_t*> slots;
      for (int v : sp.vars) slots.push_back(fr.storage[v].data());
      for (int64_t r = 0; r < sp.size; ++r) {
        for (size_t k = 0; k < sp.vars.size(); ++k) std::fill(slots[k], slots[k] + N, point[k]);
        Val b = eval(body, fr, mask);
        if (n.fl) {
          const double* x = to_double(body, b, N);
          for (int l = 0; l < N; ++l) fold_f(op, n.acc_f[l], x[l]);
        } else {
          for (int l = 0; l < N; ++l) fold_i(op, n.acc_i[l], b.i[l]);
        }
        next_point(point, sp.extents);
      }
    }
    if (n.fl) std::copy(n.acc_f.begin(), n.acc_f.end(), n.fb.begin());
    else for (int l = 0; l < N; ++l) n.ib[l] = wrap_int(n.acc_i[l], n.type);
    return own(n);
  }

  // For few lanes (e.g. a sum over a whole tensor): each lane's reduction runs with its points as lanes.
  void reduce_points_as_lanes(Node& n, Frame& fr, const uint8_t* mask, const Space& sp) {
    const int N = fr.n;
    ReduceOp op = n.expr->redop;
    Node& body = *n.kids[0];
    if (!n.sub) n.sub = std::make_unique<Frame>(fr.storage.size());
    Frame& g = *n.sub;
    for (int l = 0; l < N; ++l) {
      if (mask && !mask[l]) continue;
      std::vector<int64_t> point(sp.vars.size(), 0);
      for (int64_t start = 0; start < sp.size; start += kLanes) {
        int m = static_cast<int>(std::min<int64_t>(kLanes, sp.size - start));
        g.n = m;
        for (size_t v = 0; v < fr.storage.size(); ++v) std::fill(g.storage[v].begin(), g.storage[v].begin() + m, fr.vars[v][l]);
        for (int q = 0; q < m; ++q) {
          for (size_t k = 0; k < sp.vars.size(); ++k) g.storage[sp.vars[k]][q] = point[k];
          next_point(point, sp.extents);
        }
        Val b = eval(body, g, nullptr);
        if (n.fl) {
          const double* x = to_double(body, b, m);
          for (int q = 0; q < m; ++q) fold_f(op, n.acc_f[l], x[q]);
        } else {
          for (int q = 0; q < m; ++q) fold_i(op, n.acc_i[l], b.i[q]);
        }
      }
    }
  }
};

}  // namespace

namespace {

// One stage over contiguous ranges of its output, a thread each when there is enough work (at least
// kChunksPerThread chunks of kLanes per thread). Every element is computed exactly as by one thread;
// a fault is the one of the lowest range that had one, as one thread would have stopped at it.
constexpr int64_t kChunksPerThread = 16;

void run_stage_on_threads(std::vector<TensorData>& store, const StageInfo& st, TensorData& out, unsigned threads,
                          BranchCoverage* coverage) {
  if (st.is_scan()) {  // steps in order, each on one thread (a step's points are the lanes)
    Evaluator(store, coverage).run_scan(st, out);
    return;
  }
  int64_t total = out.size();
  int64_t chunks = (total + kLanes - 1) / kLanes;
  int64_t parts = std::min<int64_t>(threads, chunks / kChunksPerThread);
  if (parts <= 1) {
    Evaluator(store, coverage).run_stage(st, out, 0, total);
    return;
  }
  std::vector<std::exception_ptr> failed(static_cast<size_t>(parts));
  std::vector<std::thread> pool;
  for (int64_t t = 0; t < parts; ++t)
    pool.emplace_back([&, t] {
      int64_t begin = chunks * t / parts * kLanes, end = std::min(total, chunks * (t + 1) / parts * kLanes);
      try {
        Evaluator(store, coverage).run_stage(st, out, begin, end);
      } catch (...) {
        failed[static_cast<size_t>(t)] = std::current_exception();
      }
    });
  for (auto& th : pool) th.join();
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);
}

}  // namespace

void check_interpretable(const Program& p) {
  // Every tensor is held in 8-byte values; refuse clearly rather than fail deep inside an allocation.
  double bytes = 0;
  for (const auto& t : p.tensors) bytes += static_cast<double>(t.elements()) * 8;
  if (bytes > kMaxInterpreterBytes)
    throw std::runtime_error(fmt::format("kernel `{}` needs {:.1f} GiB to interpret (all tensors in 8-byte values); "
                                         "the reference interpreter stops at {:.0f} GiB: reduce the dims",
                                         p.name, bytes / (1 << 30), kMaxInterpreterBytes / (1 << 30)));
}

std::vector<TensorData> interpret(const Program& p, const std::vector<TensorData>& inputs, const InterpretOptions& opts) {
  if (inputs.size() != p.inputs.size())
    throw std::invalid_argument(fmt::format("interpret: {} inputs given, kernel `{}` has {}", inputs.size(), p.name, p.inputs.size()));
  check_interpretable(p);
  std::vector<TensorData> store(p.tensors.size());
  for (size_t k = 0; k < p.inputs.size(); ++k) {
    const TensorInfo& t = p.tensors[p.inputs[k]];
    if (inputs[k].dtype != t.dtype || inputs[k].shape != t.shape)
      throw std::invalid_argument(fmt::format("interpret: input `{}` should be {}[{}], got {}", t.name,
                                              dtype_name(t.dtype), fmt::join(t.shape, ", "), inputs[k].shape_text()));
    store[p.inputs[k]] = inputs[k];
  }
  unsigned threads = opts.threads > 0 ? static_cast<unsigned>(opts.threads) : std::max(1u, std::thread::hardware_concurrency());
  try {
    for (const auto& st : p.stages) {
      const TensorInfo& t = p.tensors[st.tensor];
      store[st.tensor] = TensorData(t.name, t.dtype, t.shape);
      run_stage_on_threads(store, st, store[st.tensor], threads, opts.coverage);
    }
  } catch (const RuntimeFault& f) {
    DiagnosticList d;
    d.error(p.source(), f.loc, "while evaluating: " + f.message,
            "guard the read with select(...) so it only happens in range, or fix the index arithmetic");
    throw DiagnosticError(std::move(d));
  }
  std::vector<TensorData> out;
  for (int t : p.outputs) out.push_back(std::move(store[t]));
  if (opts.keep_intermediates)
    for (size_t t = 0; t < p.tensors.size(); ++t)
      if (p.tensors[t].role == TensorRole::intermediate) out.push_back(std::move(store[t]));
  return out;
}

}  // namespace ekb
