// The C-like printer. Scalar code follows ekb's semantics exactly (wrapping integer arithmetic done
// in unsigned, floor division helpers, saturating conversions). A vectorized loop prints its body
// with the loop variable as SIMD lanes: each expression is either uniform (a scalar, broadcast when
// mixed with lanes) or varying (a vector); loads and stores are contiguous (stride 1), broadcast
// (stride 0) or per-lane, found by solving the flattened offset for the loop variable, and a load
// stepping by 2 to 4 elements or backwards is whole vectors and shuffles where they lie in the
// buffer (the default CPU rules count it so: default_cpu.cpp's kShortStride). A select whose
// condition varies loads its branches under the condition's mask, so a guarded read stays guarded.
// A vectorized loop whose control flow varies across lanes prints as a serial loop instead.
#include "codegen/c_printer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <bit>
#include <cmath>
#include <initializer_list>
#include <map>
#include <set>
#include <sstream>

#include "codegen/c_prelude.h"
#include "ir/operators.h"
#include "loops/graph.h"
#include "lower/lower_expr.h"
#include "lower/passes.h"
#include "lower/simplify.h"

namespace ekb::codegen {

using namespace lir;
using lower::LoweredKernel;

namespace {

struct BufInfo {
  std::string cname;
  DType type;
  std::vector<int64_t> extents;
  std::vector<std::string> min_names;  // C names of the per-dimension minimum (empty: 0)
  bool scalar_temp = false;            // a rank-0 temporary (a C local variable)
  bool vector_temp = false;            // ... declared inside a vectorized loop: one value per lane
};

struct VecCtx {
  std::string var;      // the loop variable (IR name)
  std::string base;     // C name of its first value
  int width = 0;
  std::set<std::string> varying_lets;  // let names whose value varies
  std::map<std::string, ExprP> let_defs;  // every enclosing let (for offset analysis)
  std::set<std::string> temps;         // scalar temporaries declared inside the loop (vectors)
  bool aligned = false;                // its first value is a constant multiple of the width
};

// A buffer parameter of a GPU kernel: `__global const float* restrict X` (OpenCL), `const float*
// __restrict__ X` (CUDA); without the restrict qualifier when `restricted` is false.
std::string gpu_param(const Dialect& d, const std::string& type, bool is_const, const std::string& name, bool restricted = true) {
  return fmt::format("{}{}{}*{}{} {}", d.global_ptr.empty() ? "" : d.global_ptr + " ", is_const ? "const " : "", type,
                     restricted ? " " : "", restricted ? d.restrict_kw : "", name);
}

// The buffers among `params` that `s` stores to.
void stored_buffers(const StmtP& s, const std::set<std::string>& params, std::set<std::string>& out) {
  if (!s) return;
  if (s->kind == SK::store && params.count(s->buffer)) out.insert(s->buffer);
  for (const auto& b : s->body) stored_buffers(b, params, out);
}

// Whether `s` loads from one of `buffers` anywhere (values, conditions, bounds, indices).
bool loads_any(const StmtP& s, const std::set<std::string>& buffers) {
  bool found = false;
  map_exprs(s, [&](const ExprP& e) {
    for (const auto& b : buffers) found = found || (e && lower::reads(e, b));
    return e;
  });
  return found;
}

// Whether a GPU kernel's nest reads a parameter buffer that it also writes.
bool reads_what_it_writes(const StmtP& nest, const std::set<std::string>& params) {
  std::set<std::string> written;
  stored_buffers(nest, params, written);
  return !written.empty() && loads_any(nest, written);
}

class CPrinter {
 public:
  CPrinter(const LoweredKernel& k, const Dialect& d) : k_(k), d_(d) {}

  std::string signature() {
    std::vector<std::string> params;
    for (const auto& t : k_.inputs) {
      std::string c = ident(t.name, "");
      bufs_[t.name] = {c, t.type, t.shape, {}, false};
      pointer_params_.push_back(c);
      input_params_.insert(c);
      params.push_back(fmt::format("const {}* {} {}", d_.storage_type(t.type), d_.restrict_kw, c));
    }
    for (const auto& t : k_.outputs) {
      std::string c = ident(t.name, "");
      bufs_[t.name] = {c, t.type, t.shape, {}, false};
      pointer_params_.push_back(c);
      params.push_back(fmt::format("{}* {} {}", d_.storage_type(t.type), d_.restrict_kw, c));
    }
    threads_ = ident("num_threads", "");
    params.push_back("int32_t " + threads_);
    return fmt::format("void {}({})", kEntryPoint, fmt::join(params, ", "));
  }

  // A parallel region's copies of the buffer parameters: each thread's own pointer values. Shared
  // (by reference, the default), a store through a byte pointer may change them as far as the
  // compiler knows, so it reloads them after every store and vectorizes nothing (an RGB blend's
  // plain loops, vectorized by clang serially, ran scalar in parallel and 1.4x slower on 2 threads).
  std::string private_pointers() const {
    return pointer_params_.empty() ? "" : fmt::format(" firstprivate({})", fmt::join(pointer_params_, ", "));
  }
  // At the top of a parallel region: every written buffer (an output, a heap buffer) lies apart from
  // every other buffer. `restrict` says so of the kernel's parameters but does not reach the
  // function OpenMP outlines the region into, and without it clang vectorized no loop there that
  // it could not prove free of overlap (a max pool's window, vectorized in the serial kernel, ran
  // scalar in the parallel one: two threads were 1.7x slower than one).
  std::string separate_storage(int ind) const {
    std::string lines;
    for (size_t i = 0; i < pointer_params_.size(); ++i) {
      const std::string& a = pointer_params_[i];
      if (input_params_.count(a)) continue;
      std::string calls;
      for (size_t j = 0; j < pointer_params_.size(); ++j) {
        const std::string& b = pointer_params_[j];
        if (j == i || (j < i && !input_params_.count(b))) continue;  // (each pair once)
        calls += fmt::format(" __builtin_assume_separate_storage({}, {});", a, b);
      }
      if (!calls.empty()) lines += pad(ind) + calls.substr(1) + "\n";
    }
    if (lines.empty()) return "";
    return pad(ind) + "#if defined(__clang__) && __clang_major__ >= 17\n" + lines + pad(ind) + "#endif\n";
  }

  // The translation unit: the prelude's definitions that the kernel and `tail` (the entry wrapper)
  // use, the kernel, then `tail`.
  std::string print(const std::string& tail) {
    std::string sig = signature();
    std::string body;
    stmt(k_.body, 1, body);
    std::string prelude = c_prelude_scalar(d_);
    if (!vec_types_.empty()) prelude += c_prelude_vectors(vec_types_);
    std::string code = fmt::format("\n/* kernel {} */\n{} {{\n", k_.name, sig);
    code += fmt::format("  (void){};\n", threads_);
    code += body;
    code += "}\n\n" + tail;
    return prelude_used_by(prelude, code) + code;
  }

  // GPU: one kernel per root loop nest, launched in order; global allocations at the root become
  // device buffers the host allocates (scratch), passed to every kernel after the outputs.
  GpuProgram print_gpu() {
    GpuProgram g;
    struct Param {
      std::string type, cname;
      bool is_const;
    };
    std::vector<Param> params;
    std::set<std::string> param_buffers;
    // Every kernel's parameter list, with or without restrict (Dialect::restrict_when_reading_written).
    auto param_list = [&](bool restricted) {
      std::vector<std::string> out;
      for (const Param& q : params) out.push_back(gpu_param(d_, q.type, q.is_const, q.cname, restricted));
      return fmt::format("{}", fmt::join(out, ", "));
    };
    std::string aligned;  // the alignment promises, at the top of each kernel
    auto param = [&](const std::string& name, DType t, const std::vector<int64_t>& shape, bool is_const) {
      std::string c = ident(name, "");
      bufs_[name] = {c, t, shape, {}, false};
      param_buffers.insert(name);
      params.push_back({d_.storage_type(t), c, is_const});
      if (!d_.assume_aligned.empty())
        aligned += "  " + fmt::format(fmt::runtime(d_.assume_aligned), fmt::arg("p", c),
                                      fmt::arg("t", fmt::format("{}{}*", is_const ? "const " : "", d_.storage_type(t)))) + "\n";
    };
    for (const auto& t : k_.inputs) param(t.name, t.type, t.shape, true);
    for (const auto& t : k_.outputs) param(t.name, t.type, t.shape, false);
    std::vector<StmtP> scratch;
    std::vector<StmtP> nests = lower::gpu_kernel_nests(k_.body, &scratch);
    for (const auto& s : scratch) {
      int64_t elems = 1;
      for (int64_t e : s->alloc.extents) elems *= e;
      for (const auto& m : s->alloc.mins)
        if (int64_t c; !is_const(m, &c) || c != 0) throw std::runtime_error("a GPU scratch buffer must start at 0");
      g.contract.scratch.push_back({s->alloc.name, static_cast<uint64_t>(elems * dtype_bytes(s->alloc.type))});
      param(s->alloc.name, s->alloc.type, s->alloc.extents, false);
    }
    std::string kernels;
    for (size_t i = 0; i < nests.size(); ++i) {
      gpu::Launch l;
      l.kernel = fmt::format("ekb_k{}", i);
      launch_dims(nests[i], l);
      launch_ = l;
      std::string body;
      stmt(nests[i], 1, body);
      bool restricted = d_.restrict_when_reading_written || !reads_what_it_writes(nests[i], param_buffers);
      std::string promise = d_.block_size_promise.empty()
                                ? ""
                                : fmt::format(fmt::runtime(d_.block_size_promise), fmt::arg("n", l.threads_per_block()));
      kernels += fmt::format("\n{} void {}{}({}) {{\n", d_.kernel_prefix, promise, l.kernel, param_list(restricted));
      kernels += shared_decls_;  // the block's shared arrays, at the kernel's function scope
      kernels += aligned;
      shared_decls_.clear();
      if (l.threads_per_block() == 1 && l.grid[0] * l.grid[1] * l.grid[2] == 1 && !bound_)
        kernels += "  /* no loop bound to blocks or threads: one thread runs it */\n";
      kernels += body + "}\n";
      g.contract.launches.push_back(l);
      bound_ = false;
    }
    std::string plan = fmt::format(
        "/* kernel {}: {} launches, in order; every kernel takes every buffer (inputs, outputs, then the\n"
        " * scratch buffers, which the host allocates){}\n",
        k_.name, nests.size(), d_.assume_aligned.empty() ? "" : ";\n * every buffer 16-byte aligned (device allocations are)");
    plan += gpu::format_launch_contract(g.contract, " * ");
    g.source = plan + " */\n" + d_.device_prelude + prelude_used_by(c_prelude_scalar(d_), kernels) + kernels;
    return g;
  }

  // Grid and block sizes from the loops bound in a nest (each axis: the largest extent bound to it).
  void launch_dims(const StmtP& s, gpu::Launch& l) {
    if (!s) return;
    if (s->kind == SK::for_ && (s->loop == LoopKind::gpu_block || s->loop == LoopKind::gpu_thread)) {
      int64_t n;
      if (!is_const(s->extent, &n))
        throw std::runtime_error(fmt::format("loop `{}` is bound to a GPU axis but its extent is not a constant", s->var));
      if (n < 1 || n > 0x7fffffff)
        throw std::runtime_error(fmt::format("loop `{}` is bound to a GPU axis with extent {}, beyond what a launch can have", s->var, n));
      uint32_t& dim = (s->loop == LoopKind::gpu_block ? l.grid : l.block)[static_cast<size_t>(s->gpu_axis)];
      dim = std::max(dim, static_cast<uint32_t>(n));
      bound_ = true;
    }
    for (const auto& b : s->body) launch_dims(b, l);
  }
  bool bound_ = false;

 private:
  const LoweredKernel& k_;
  const Dialect& d_;
  const bool narrow_indices_ = d_.gpu;  // GPU: 32-bit index arithmetic where it provably fits
  std::map<std::string, BufInfo> bufs_;
  std::map<std::string, std::string> vars_;  // IR variable -> C name
  std::set<std::string> used_names_ = {"int", "float", "double", "char", "short", "long", "void", "for", "if", "else",
                                       "while", "do", "return", "const", "static", "restrict", "inline", "struct",
                                       "union", "enum", "unsigned", "signed", "switch", "case", "default", "break",
                                       "continue", "goto", "sizeof", "typedef", "extern", "register", "auto",
                                       "volatile", "bool", "true", "false", "NULL", "main"};
  std::string threads_;
  std::vector<std::string> pointer_params_;  // the kernel's buffer parameters (C names), then the heap buffers in scope
  std::set<std::string> input_params_;       // those of them that are inputs (read only)
  std::set<VecType> vec_types_;
  const VecCtx* vec_ = nullptr;
  std::string mask_;  // the active lane mask expression in vector mode ("" = all lanes)
  // Vector mode: the loads the statement being printed evaluates whatever its selects choose (outside
  // every select's branches): the same load inside a branch is safe to read in every lane.
  std::set<std::string> unconditional_loads_;
  lower::RangeScope ranges_;  // numeric ranges of enclosing loop variables and lets (for offsets)
  bool in_parallel_ = false;  // inside a loop that forked threads
  bool region_ = false;       // inside a parallel region several nests share (block_stmt)
  int tmp_ = 0;
  gpu::Launch launch_;        // GPU: the launch of the kernel being printed
  std::string shared_decls_;  // GPU: its shared arrays, declared at the top of the kernel

  // ---- names ----
  std::string ident(const std::string& ir, const std::string& prefix) {
    std::string base = prefix;
    for (char c : ir) base += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "v_" + base;
    if (base.rfind("ekb_", 0) == 0) base = "u_" + base;
    std::string name = base;
    for (int n = 2; used_names_.count(name); ++n) name = fmt::format("{}_{}", base, n);
    used_names_.insert(name);
    return name;
  }
  std::string var_name(const std::string& ir) {
    auto it = vars_.find(ir);
    if (it != vars_.end()) return it->second;
    return vars_[ir] = ident(ir, "v_");
  }

  static std::string pad(int ind) { return std::string(static_cast<size_t>(ind) * 2, ' '); }

  // Index variables: 64-bit in C; on a GPU (where 64-bit integer arithmetic takes two instructions
  // or more) 32-bit wherever the variable's range is proven to fit, else 64-bit.
  static bool fits_int32(const std::optional<lower::Range>& r) {
    return r && r->lo >= INT32_MIN && r->hi <= INT32_MAX;
  }
  std::string index_type(const std::optional<lower::Range>& r) const {
    return narrow_indices_ && fits_int32(r) ? "int" : "int64_t";
  }

  // ---- scalar expressions ----
  // (No dialect includes <stdint.h>, so neither INT64_C nor INT64_MIN exists; `long` is 64-bit in
  // OpenCL C, in CUDA and on the LP64 targets the C backend compiles for.)
  std::string int_literal(int64_t v) {
    if (v == INT64_MIN) return "((int64_t)(-9223372036854775807L - 1))";
    if (v >= INT32_MIN && v <= INT32_MAX) return std::to_string(v);
    return fmt::format("((int64_t){}L)", v);
  }
  std::string float_literal(double v, DType t) {
    bool f32 = t != DType::f64;
    if (std::isnan(v)) return f32 ? "NAN" : "(double)NAN";
    if (std::isinf(v)) return v > 0 ? (f32 ? "INFINITY" : "(double)INFINITY") : (f32 ? "(-INFINITY)" : "(-(double)INFINITY)");
    std::string s = f32 ? fmt::format("{:.9g}", v) : fmt::format("{:.17g}", v);
    if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
    return f32 ? s + "f" : s;
  }

  std::string offset(const BufInfo& b, const std::vector<ExprP>& idx, const std::function<std::string(const ExprP&)>& pr) {
    std::string off;
    int64_t stride = 1, elems = 1;
    for (int64_t e : b.extents) elems = e > 0 && elems > INT64_MAX / e ? INT64_MAX : elems * e;
    // 32-bit index variables (GPU) address a buffer of 2^31 elements or more in 64-bit arithmetic.
    const bool wide = narrow_indices_ && elems > INT32_MAX;
    for (size_t d = idx.size(); d-- > 0;) {
      std::string i = pr(idx[d]);
      if (!b.min_names.empty() && !b.min_names[d].empty()) i = fmt::format("({} - {})", i, b.min_names[d]);
      if (wide) i = "(int64_t)" + i;
      std::string term = stride == 1 ? i : fmt::format("{} * {}", i, int_literal(stride));
      off = off.empty() ? term : fmt::format("{} + {}", term, off);
      stride *= b.extents[d];
    }
    return off.empty() ? "0" : off;
  }

  // The flattened offset as an IR expression (for stride analysis), with buffer minimums as vars.
  ExprP offset_expr(const BufInfo& b, const std::vector<ExprP>& idx) {
    ExprP off = int_imm(0);
    int64_t stride = 1;
    for (size_t d = idx.size(); d-- > 0;) {
      ExprP i = idx[d];
      if (!b.min_names.empty() && !b.min_names[d].empty()) i = sub(i, var("$min:" + b.min_names[d]));
      off = add(off, mul(i, int_imm(stride)));
      stride *= b.extents[d];
    }
    return lower::simplify(off, ranges_);
  }

  const BufInfo& buf(const std::string& name) {
    auto it = bufs_.find(name);
    if (it == bufs_.end()) throw std::logic_error("printer: unknown buffer " + name);
    return it->second;
  }

  std::string load_scalar(const std::string& name, const std::vector<ExprP>& idx) {
    const BufInfo& b = buf(name);
    if (b.scalar_temp) return b.cname;
    std::string ref = fmt::format("{}[{}]", b.cname, offset(b, idx, [this](const ExprP& e) { return scalar(e); }));
    return from_storage(ref, b.type);
  }
  std::string from_storage(const std::string& ref, DType t) {
    if (t == DType::bf16) return fmt::format("ekb_bf16_to_f32({})", ref);
    if (t == DType::f16) return fmt::format("((float){})", ref);
    if (t == DType::boolean) return fmt::format("((int32_t){})", ref);
    return ref;
  }
  std::string to_storage(const std::string& v, DType t) {
    if (t == DType::bf16) return fmt::format("ekb_f32_to_bf16({})", v);
    if (t == DType::f16) return fmt::format("(_Float16)({})", v);
    if (t == DType::boolean) return fmt::format("(uint8_t)(({}) != 0)", v);
    return v;
  }

  static bool has_load(const ExprP& e) {
    if (e->kind == EK::load) return true;
    for (const auto& a : e->args)
      if (has_load(a)) return true;
    return false;
  }

  std::string unsigned_of(DType t) {
    switch (t) {
      case DType::i64: return "uint64_t";
      case DType::i32: return "uint32_t";
      default: return "uint32_t";
    }
  }

  std::string scalar(const ExprP& e) {
    switch (e->kind) {
      case EK::int_imm:
        if (is_float(e->type)) return float_literal(static_cast<double>(e->ival), e->type);
        return int_literal(e->ival);
      case EK::float_imm:
        return float_literal(e->fval, e->type);
      case EK::var:
        if (vec_ && e->name == vec_->var) return fmt::format("({} + l)", vec_->base);  // only in per-lane code
        return var_name(e->name);
      case EK::load:
        return load_scalar(e->name, e->args);
      case EK::unary: {
        std::string a = scalar(e->args[0]);
        if (e->unop == UnOp::lnot) return fmt::format("(!{})", a);
        if (e->unop == UnOp::bnot) return fmt::format("(({})~{})", d_.compute_type(e->type), a);
        if (is_float(e->type)) return a.starts_with('-') ? fmt::format("(- {})", a) : fmt::format("(-{})", a);  // not `--`
        return fmt::format("(({})(0u - ({}){}))", d_.compute_type(e->type), unsigned_of(e->type), a);
      }
      case EK::binary:
        return binary_scalar(e);
      case EK::select:
        return fmt::format("({} ? {} : {})", scalar(e->args[0]), scalar(e->args[1]), scalar(e->args[2]));
      case EK::call:
        return call_scalar(e);
      case EK::cast:
        return cast_scalar(e->args[0], e->type, scalar(e->args[0]));
      case EK::reduce:
        throw std::logic_error("printer: a reduction survived lowering");
    }
    return "0";
  }

  std::string binary_scalar(const ExprP& e) {
    std::string a = scalar(e->args[0]), b = scalar(e->args[1]);
    DType t = e->type;
    std::string ct = d_.compute_type(t);
    BinOp op = e->binop;
    if (is_comparison(op)) return fmt::format("({} {} {})", a, spelling(op), b);
    if (is_float(t)) {
      if (op == BinOp::mod) return fmt::format("{}({}, {})", t == DType::f64 ? "ekb_fmod_floor" : "ekb_fmodf_floor", a, b);
      return fmt::format("({} {} {})", a, spelling(op), b);
    }
    const bool index = t == DType::i64 && !has_load(e);
    std::optional<lower::Range> range;
    if (index && narrow_indices_) {
      range = lower::numeric_range(e, ranges_);
      // A GPU index whose value is not proven to fit 32 bits is computed in 64.
      if (!fits_int32(range)) a = "(int64_t)" + a;
    }
    switch (op) {
      case BinOp::div:
      case BinOp::mod: {
        // GPU: a non-negative index over a positive constant divides as C does (no floor helper).
        int64_t k;
        if (index && narrow_indices_ && is_const(e->args[1], &k) && k > 0)
          if (auto ra = lower::numeric_range(e->args[0], ranges_); ra && ra->lo >= 0) {
            // By a power of two, a shift and a mask: the GPU compiler then sees the low bits of the
            // index (signed `%` hides them), which proving neighbouring elements 16-byte aligned
            // for vector loads needs.
            if (std::has_single_bit(static_cast<uint64_t>(k)))
              return op == BinOp::div ? fmt::format("({} >> {})", a, std::countr_zero(static_cast<uint64_t>(k)))
                                      : fmt::format("({} & {})", a, k - 1);
            return fmt::format("({} {} {})", a, op == BinOp::div ? "/" : "%", b);
          }
        return fmt::format("(({}){}({}, {}))", ct, op == BinOp::div ? "ekb_fdiv" : "ekb_fmod", a, b);
      }
      case BinOp::add: case BinOp::sub: case BinOp::mul:
        // Index arithmetic never overflows (bounds are checked); data arithmetic wraps as in ekb.
        if (index) return fmt::format("({} {} {})", a, spelling(op), b);
        return fmt::format("(({})(({}){} {} ({}){}))", ct, unsigned_of(t), a, spelling(op), unsigned_of(t), b);
      case BinOp::shl:
        return fmt::format("(({})(({}){} << {}))", ct, unsigned_of(t), a, b);
      case BinOp::shr:
        return fmt::format("(({})({} >> {}))", ct, a, b);
      default:
        return fmt::format("(({})({} {} {}))", ct, a, spelling(op), b);
    }
  }

  // An operand that the C text repeats (`a < b ? a : b`) is repeated only while it is short; a longer
  // one goes through a prelude helper that takes it once. Otherwise nested min, max, clamp, abs or
  // sign would double the text at every level.
  static bool repeatable(std::initializer_list<const std::string*> operands) {
    for (const auto* o : operands)
      if (o->size() > 64) return false;
    return true;
  }
  // The prelude helper `ekb_NAME_f` (float), `_d` (double) or `_i` (integers, as int64_t, converted back).
  std::string helper_call(const char* name, DType t, const std::vector<std::string>& a) {
    std::string call = fmt::format("ekb_{}_{}({})", name, !is_float(t) ? "i" : t == DType::f64 ? "d" : "f", fmt::join(a, ", "));
    return is_float(t) ? call : fmt::format("(({}){})", d_.compute_type(t), call);
  }

  std::string call_scalar(const ExprP& e) {
    std::vector<std::string> a;
    for (const auto& x : e->args) a.push_back(scalar(x));
    DType t = e->type;
    bool f = is_float(t);
    switch (e->fn) {
      case Fn::min:
        if (!repeatable({&a[0], &a[1]})) return helper_call("min", t, a);
        return fmt::format("({0} < {1} ? {0} : {1})", a[0], a[1]);
      case Fn::max:
        if (!repeatable({&a[0], &a[1]})) return helper_call("max", t, a);
        return fmt::format("({0} > {1} ? {0} : {1})", a[0], a[1]);
      case Fn::clamp:
        if (!repeatable({&a[0], &a[1], &a[2]})) return helper_call("clamp", t, a);
        return fmt::format("({0} < {1} ? {1} : ({0} > {2} ? {2} : {0}))", a[0], a[1], a[2]);
      case Fn::abs:
        if (f) return fmt::format("{}({})", t == DType::f64 ? "fabs" : "fabsf", a[0]);
        if (!repeatable({&a[0]})) return helper_call("abs", t, a);
        return fmt::format("(({}){} < 0 ? ({})(0u - ({}){}) : {})", d_.compute_type(t), a[0], d_.compute_type(t),
                           unsigned_of(t), a[0], a[0]);
      case Fn::sign:
        if (f) return fmt::format("{}({})", t == DType::f64 ? "ekb_sign" : "ekb_signf", a[0]);
        if (!repeatable({&a[0]})) return helper_call("sign", t, a);
        return fmt::format("(({})(({} > 0) - ({} < 0)))", d_.compute_type(t), a[0], a[0]);
      case Fn::sigmoid: return fmt::format("{}({})", t == DType::f64 ? "ekb_sigmoid" : "ekb_sigmoidf", a[0]);
      case Fn::rsqrt: return t == DType::f64 ? fmt::format("(1.0 / sqrt({}))", a[0]) : fmt::format("(1.0f / sqrtf({}))", a[0]);
      case Fn::round: return fmt::format("{}({})", t == DType::f64 ? "rint" : "rintf", a[0]);
      case Fn::pow: return fmt::format("{}({}, {})", t == DType::f64 ? "pow" : "powf", a[0], a[1]);
      case Fn::atan2: return fmt::format("{}({}, {})", t == DType::f64 ? "atan2" : "atan2f", a[0], a[1]);
      default: return fmt::format("{}({})", d_.math_fn(e->fn, t), a[0]);
    }
  }

  std::string cast_scalar(const ExprP& from, DType to, const std::string& v) {
    DType f = from->type;
    std::string ct = d_.compute_type(to);
    if (to == DType::boolean) return fmt::format("(({}) != 0)", v);
    if (is_float(to)) return fmt::format("(({}){})", ct, v);
    if (is_float(f)) return fmt::format("(({})ekb_f2i({}, {}, {}))", ct, v, int_literal(int_min(to)), int_literal(int_max(to)));
    return fmt::format("(({}){})", ct, v);
  }

  // ---- statements ----
  // A loop nest whose outermost loop forks the threads (a comment may name it first).
  bool forks(const StmtP& s) const {
    return s && s->kind == SK::for_ && s->loop == LoopKind::parallel && d_.openmp_parallel_for && !vec_ && !in_parallel_;
  }
  // A block's statements; consecutive loop nests that each fork the threads share one parallel
  // region (`omp for` in each, with its barrier) instead of starting the threads once per nest.
  void block_stmt(const StmtP& s, int ind, std::string& out) {
    const auto& b = s->body;
    for (size_t i = 0; i < b.size();) {
      // The run of forking nests (comments between them belong to them) that starts here.
      size_t end = i, nests = 0;
      for (size_t k = i; k < b.size(); ++k) {
        if (b[k] && b[k]->kind == SK::comment) continue;
        if (!forks(b[k])) break;
        ++nests;
        end = k + 1;
      }
      if (nests < 2) {
        stmt(b[i], ind, out);
        ++i;
        continue;
      }
      out += fmt::format("{}#pragma omp parallel num_threads({}){}\n{}{{\n", pad(ind), threads_, private_pointers(), pad(ind));
      out += separate_storage(ind + 1);
      region_ = true;
      for (size_t k = i; k < end; ++k) stmt(b[k], ind + 1, out);
      region_ = false;
      out += pad(ind) + "}\n";
      i = end;
    }
  }

  void stmt(const StmtP& s, int ind, std::string& out) {
    if (!s) return;
    switch (s->kind) {
      case SK::block:
        block_stmt(s, ind, out);
        return;
      case SK::comment:
        out += pad(ind) + "/* " + s->text + " */\n";
        return;
      case SK::let:
        let_stmt(s, ind, out);
        return;
      case SK::store:
        store_stmt(s, ind, out);
        return;
      case SK::if_:
        if_stmt(s, ind, out);
        return;
      case SK::allocate:
        allocate_stmt(s, ind, out);
        return;
      case SK::for_:
        for_stmt(s, ind, out);
        return;
      case SK::barrier:
        if (!d_.gpu) throw std::logic_error("printer: a barrier outside a GPU kernel");
        out += pad(ind) + d_.barrier + "\n";
        return;
      case SK::thread_reduce:
        thread_reduce_stmt(s, ind, out);
        return;
    }
  }

  // A cross-thread reduction of one scalar per thread (every thread of the block is here): each
  // writes its value to shared memory, a tree halves the values (a barrier between steps), the
  // last 32 lanes finish with warp shuffles where the dialect has them, and every thread reads the
  // total back. The total goes to a second array, so that a following reduction cannot overwrite
  // it before every thread has read it.
  void thread_reduce_stmt(const StmtP& s, int ind, std::string& out) {
    const BufInfo& acc = buf(s->buffer);
    const std::string ty = d_.compute_type(acc.type);
    const int axis = s->gpu_axis;
    int64_t T = 0;
    is_const(s->extent, &T);
    const int64_t bx = launch_.block[0], by = launch_.block[1], nt = int64_t{launch_.block[0]} * launch_.block[1] * launch_.block[2];
    const int64_t stride = axis == 0 ? 1 : axis == 1 ? bx : bx * by;
    std::string rbuf = ident("red_" + s->buffer, ""), rout = ident("red_out_" + s->buffer, "");
    shared_decls_ += fmt::format("  {} {} {}[{}];\n  {} {} {}[{}];\n", d_.shared_qualifier, ty, rbuf, nt, d_.shared_qualifier, ty,
                                 rout, nt);
    std::string v = var_name(s->var), tid = ident("r_tid", ""), base = ident("r_base", "");
    auto combine = [&](const std::string& a, const std::string& b) {
      vars_["$ra"] = a;
      vars_["$rb"] = b;
      std::string c = scalar(lower::reduction_combine(s->redop, var("$ra", acc.type), var("$rb", acc.type)));
      vars_.erase("$ra");
      vars_.erase("$rb");
      return c;
    };
    auto P = pad(ind + 1);
    out += fmt::format("{}{{ /* {} of `{}` across the {} threads of axis {} */\n", pad(ind),
                       reduce_op_name(s->redop),
                       s->buffer, T, "xyz"[axis]);
    const std::string it = index_type(lower::Range{0, nt - 1});
    out += fmt::format("{}const {} {} = {} + {} * ({} + {} * {});\n", P, it, tid, d_.thread_index[0], bx, d_.thread_index[1], by,
                       d_.thread_index[2]);
    out += fmt::format("{}const {} {} = {} - {} * {};\n", P, it, base, tid, v, stride);
    int64_t pow2 = 1;
    while (pow2 * 2 <= T) pow2 *= 2;
    bool shuffle = !d_.shuffle_down.empty() && axis == 0 && pow2 == T && T >= d_.warp_size && bx == T;
    auto step = [&](const std::string& cond, int64_t dist) {
      std::string here = fmt::format("{}[{}]", rbuf, tid), there = fmt::format("{}[{} + {}]", rbuf, tid, dist * stride);
      out += fmt::format("{}if ({}) {} = {};\n{}{}\n", P, cond, here, combine(here, there), P, d_.barrier);
    };
    if (!(shuffle && T == d_.warp_size)) {
      out += fmt::format("{}{}[{}] = {};\n{}{}\n", P, rbuf, tid, acc.cname, P, d_.barrier);
      if (pow2 < T) step(fmt::format("{} < {}", v, T - pow2), pow2);
      for (int64_t h = pow2 / 2; h >= (shuffle ? 2 * d_.warp_size : 1); h /= 2) step(fmt::format("{} < {}", v, h), h);
    }
    if (shuffle) {
      std::string w = ident("r_w", "");
      out += fmt::format("{}if ({} < {}) {{\n", P, v, d_.warp_size);
      if (T == d_.warp_size) out += fmt::format("{}  {} {} = {};\n", P, ty, w, acc.cname);
      else
        out += fmt::format("{}  {} {} = {};\n", P, ty, w,
                           combine(fmt::format("{}[{}]", rbuf, tid), fmt::format("{}[{} + {}]", rbuf, tid, d_.warp_size)));
      std::string o = ident("r_o", "");
      out += fmt::format("{}  {} {};\n", P, ty, o);
      for (int64_t h = d_.warp_size / 2; h >= 1; h /= 2)
        out += fmt::format("{}  {} = {};\n{}  {} = {};\n", P, o,
                           fmt::format(fmt::runtime(d_.shuffle_down), fmt::arg("v", w), fmt::arg("d", h)), P, w, combine(w, o));
      out += fmt::format("{}  if ({} == 0) {}[{}] = {};\n{}}}\n", P, v, rout, base, w, P);
    } else {
      out += fmt::format("{}if ({} == 0) {}[{}] = {}[{}];\n", P, v, rout, base, rbuf, tid);
    }
    out += fmt::format("{}{}\n{}{} = {}[{}];\n{}}}\n", P, d_.barrier, P, acc.cname, rout, base, pad(ind));
  }

  void let_stmt(const StmtP& s, int ind, std::string& out) {
    if (vec_) {
      VecCtx& v = const_cast<VecCtx&>(*vec_);
      v.let_defs[s->var] = s->value;
      if (varies(s->value)) {
        v.varying_lets.insert(s->var);
        stmt(s->body[0], ind, out);
        v.varying_lets.erase(s->var);
        v.let_defs.erase(s->var);
        return;
      }
    }
    out += pad(ind) + "{\n";
    auto r = lower::numeric_range(s->value, ranges_);
    const std::string ty = s->value->type == DType::i64 && !has_load(s->value) ? index_type(r) : d_.compute_type(s->value->type);
    out += fmt::format("{}const {} {} = {};\n", pad(ind + 1), ty, var_name(s->var), scalar(s->value));
    if (r) ranges_.set(s->var, *r);
    stmt(s->body[0], ind + 1, out);
    ranges_.erase(s->var);
    out += pad(ind) + "}\n";
    if (vec_) const_cast<VecCtx&>(*vec_).let_defs.erase(s->var);
  }

  void store_stmt(const StmtP& s, int ind, std::string& out) {
    const BufInfo& b = buf(s->buffer);
    if (vec_) {
      vector_store(s, b, ind, out);
      return;
    }
    std::string value = to_storage(scalar(s->value), b.type);
    if (b.scalar_temp) {
      out += fmt::format("{}{} = {};\n", pad(ind), b.cname, scalar(s->value));
      return;
    }
    out += fmt::format("{}{}[{}] = {};\n", pad(ind), b.cname, offset(b, s->indices, [this](const ExprP& e) { return scalar(e); }),
                       value);
  }

  void if_stmt(const StmtP& s, int ind, std::string& out) {
    out += fmt::format("{}if ({}) {{\n", pad(ind), scalar(s->value));
    stmt(s->body[0], ind + 1, out);
    if (s->body[1]) {
      out += pad(ind) + "} else {\n";
      stmt(s->body[1], ind + 1, out);
    }
    out += pad(ind) + "}\n";
  }

  void allocate_stmt(const StmtP& s, int ind, std::string& out) {
    const Buffer& a = s->alloc;
    if (a.extents.empty()) {
      // A scalar temporary: a local variable (a vector in vectorized code).
      BufInfo b;
      b.cname = ident(a.name, "b_");
      b.type = a.type;
      b.scalar_temp = true;
      b.vector_temp = vec_ != nullptr;
      if (vec_) const_cast<VecCtx&>(*vec_).temps.insert(a.name);
      std::string type = vec_ ? vec_type(a.type) : d_.compute_type(a.type);
      out += fmt::format("{}{} {};\n", pad(ind), type, b.cname);
      bufs_[a.name] = b;
      if (s->body[0]) stmt(s->body[0], ind, out);
      return;
    }
    // A chain of allocations (each one's body the next: the buffers of every stage computed at the
    // root) shares one C block: a block per buffer would nest as deep as the kernel has stages, past
    // the 256 nested blocks C compilers accept.
    std::vector<DeclaredBuffer> chain;
    out += pad(ind) + "{\n";
    StmtP cur = s;
    size_t params = pointer_params_.size();
    for (; cur && cur->kind == SK::allocate && !cur->alloc.extents.empty(); cur = cur->body[0]) {
      chain.push_back(declare_buffer(cur->alloc, ind + 1, out));
      // (A heap buffer's pointer is taken firstprivate by a parallel region as the parameters are:
      // shared by reference, a store through another pointer may change it as far as clang knows.)
      if (chain.back().heap && !d_.gpu) pointer_params_.push_back(chain.back().cname);
    }
    stmt(cur, ind + 1, out);
    pointer_params_.resize(params);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      if (it->heap) out += fmt::format("{}free({});\n", pad(ind + 1), it->cname);
      if (it->saved) bufs_[it->name] = *it->saved;
    }
    out += pad(ind) + "}\n";
  }

  // Declares buffer `a` (not a scalar) at indentation `ind`; returns what ending its scope needs.
  struct DeclaredBuffer {
    std::string name, cname;
    bool heap;
    std::optional<BufInfo> saved;
  };
  DeclaredBuffer declare_buffer(const Buffer& a, int ind, std::string& out) {
    BufInfo b;
    b.cname = ident(a.name, "b_");
    b.type = a.type;
    b.extents = a.extents;
    int64_t elems = 1;
    for (int64_t e : a.extents) elems *= e;
    for (size_t d = 0; d < a.mins.size(); ++d) {
      int64_t c;
      if (is_const(a.mins[d], &c) && c == 0) {
        b.min_names.push_back("");
        continue;
      }
      std::string mn = ident(a.name + "_min" + std::to_string(d), "");
      out += fmt::format("{}const {} {} = {};\n", pad(ind), index_type(lower::numeric_range(a.mins[d], ranges_)), mn, scalar(a.mins[d]));
      b.min_names.push_back(mn);
    }
    std::string st = d_.storage_type(a.type);
    bool heap = a.scope == MemScope::global;
    if (d_.gpu && a.scope == MemScope::shared)  // one per block, declared at the top of the kernel
      // 16-byte aligned, so that the compiler may read and write four floats at once
      shared_decls_ += fmt::format("  {} {} {}[{}] __attribute__((aligned(16)));\n", d_.shared_qualifier, st, b.cname, elems);
    else if (heap)
      out += fmt::format("{}{}* {} = ({}*)ekb_alloc((size_t){} * sizeof({}));\n", pad(ind), st, b.cname, st, elems, st);
    else
      out += fmt::format("{}{} {}[{}] __attribute__((aligned(64)));\n", pad(ind), st, b.cname, elems);
    auto saved = bufs_.find(a.name) != bufs_.end() ? std::optional<BufInfo>(bufs_[a.name]) : std::nullopt;
    bufs_[a.name] = b;
    return {a.name, b.cname, heap, saved};
  }

  void for_stmt(const StmtP& s, int ind, std::string& out) {
    int64_t w;
    // (A target without a vector unit gets the lanes as a plain loop.)
    if (s->loop == LoopKind::vectorized && d_.vector_extensions && (k_.target.gpu() || k_.target.vector_bytes > 0) && !vec_ && is_const(s->extent, &w) && w > 1 && w <= 64 &&
        (w & (w - 1)) == 0 && vectorizable(s)) {
      vector_loop(s, w, ind, out);
      return;
    }
    std::string v = var_name(s->var);
    std::string min = scalar(s->min), ext = scalar(s->extent);
    if (d_.gpu && (s->loop == LoopKind::gpu_block || s->loop == LoopKind::gpu_thread)) {
      // The launch has exactly `extent` blocks (threads) on this axis: the loop is its index.
      // A loop bound to fewer threads (blocks) than the launch has on its axis runs on the first ones.
      const std::string& idx = (s->loop == LoopKind::gpu_block ? d_.block_index : d_.thread_index)[s->gpu_axis];
      int64_t n = 0;
      is_const(s->extent, &n);
      const uint32_t* dims = s->loop == LoopKind::gpu_block ? launch_.grid.data() : launch_.block.data();
      bool guard = n < static_cast<int64_t>(dims[s->gpu_axis]);
      record_range(s);
      out += fmt::format("{}{{\n{}const {} {} = {}{};\n", pad(ind), pad(ind + 1), index_type(ranges_.get(s->var)), v, idx,
                         min == "0" ? "" : " + " + min);
      if (guard) out += fmt::format("{}if ({} < {}) {{\n", pad(ind + 1), idx, n);
      stmt(s->body[0], ind + 1 + guard, out);
      ranges_.erase(s->var);
      if (guard) out += pad(ind + 1) + "}\n";
      out += pad(ind) + "}\n";
      return;
    }
    // Only the outermost parallel loop forks threads; one inside it runs serially in its thread.
    bool fork = s->loop == LoopKind::parallel && d_.openmp_parallel_for && !vec_ && !in_parallel_;
    // (A region of one loop nest: the region, its assumptions, then the loop shared out.)
    bool own_region = fork && !region_;
    if (own_region) {
      out += fmt::format("{}#pragma omp parallel num_threads({}){}\n{}{{\n", pad(ind), threads_, private_pointers(), pad(ind));
      out += separate_storage(ind + 1);
    }
    if (fork) out += fmt::format("{}#pragma omp for schedule(static)\n", pad(ind + (own_region ? 1 : 0)));
    if (own_region) ++ind;
    record_range(s);
    // (The end is one past the largest value: its type must hold that too.)
    auto r = ranges_.get(s->var);
    const std::string it = index_type(r ? std::optional<lower::Range>(lower::Range{r->lo, r->hi + 1}) : std::nullopt);
    if (min == "0") out += fmt::format("{}for ({} {} = 0; {} < {}; ++{}) {{\n", pad(ind), it, v, v, ext, v);
    else
      out += fmt::format("{}for ({t} {v} = {m}, {v}_end = {m} + {e}; {v} < {v}_end; ++{v}) {{\n", pad(ind), fmt::arg("t", it),
                         fmt::arg("v", v), fmt::arg("m", min), fmt::arg("e", ext));
    if (fork) in_parallel_ = true;
    stmt(s->body[0], ind + 1, out);
    if (fork) in_parallel_ = false;
    ranges_.erase(s->var);
    out += pad(ind) + "}\n";
    if (own_region) out += pad(ind - 1) + "}\n";
  }

  // The numeric range a loop's variable takes, for the simplifications inside the loop's body.
  void record_range(const StmtP& s) {
    auto lo = lower::numeric_range(s->min, ranges_), ex = lower::numeric_range(s->extent, ranges_);
    if (lo && ex) ranges_.set(s->var, lower::Range{lo->lo, lo->hi + std::max<int64_t>(ex->hi - 1, 0)});
  }

  // ---- vector mode ----
  // The name of a vector helper of the prelude: H("splat", "ekb_f32x16") == "ekb_splat_f32x16".
  static std::string H(const std::string& fn, const std::string& vec) { return "ekb_" + fn + "_" + vec.substr(4); }
  std::string lane_of(DType t) { return d_.compute_type(t) == "float" ? "float" : d_.compute_type(t); }
  std::string vec_type(DType t) {
    VecType v{lane_of(t), vec_->width};
    vec_types_.insert(v);
    return vec_name(v);
  }
  std::string vec_type_of_lane(const std::string& lane) {
    VecType v{lane, vec_->width};
    vec_types_.insert(v);
    return vec_name(v);
  }
  std::string mask_type(DType t) { return vec_type_of_lane(vec_mask_lane(lane_of(t))); }

  // Does the value differ between lanes?
  bool varies(const ExprP& e) {
    if (e->kind == EK::var) return e->name == vec_->var || vec_->varying_lets.count(e->name);
    if (e->kind == EK::load && vec_->temps.count(e->name)) return true;  // temporaries in vector code are vectors
    for (const auto& a : e->args)
      if (varies(a)) return true;
    return false;
  }

  // Inlines the enclosing lets, so offsets are in terms of loop variables only.
  ExprP expand_lets(const ExprP& e) {
    std::vector<std::pair<std::string, ExprP>> map(vec_->let_defs.begin(), vec_->let_defs.end());
    ExprP x = e;
    for (int round = 0; round < 8; ++round) {
      ExprP y = lower::substitute(x, map);
      if (y == x) break;
      x = y;
    }
    return lower::simplify(x, ranges_);
  }

  // Control flow that differs between lanes cannot be vectorized: check the loop body.
  bool vectorizable(const StmtP& loop) {
    VecCtx probe;
    probe.var = loop->var;
    probe.width = 1;
    const VecCtx* saved = vec_;
    vec_ = &probe;
    bool ok = uniform_control(loop->body[0]);
    vec_ = saved;
    return ok;
  }
  bool uniform_control(const StmtP& s) {
    if (!s) return true;
    VecCtx& v = const_cast<VecCtx&>(*vec_);
    switch (s->kind) {
      case SK::if_:
        if (varies(s->value)) return false;
        break;
      case SK::for_:
        if (varies(s->min) || varies(s->extent) || s->loop == LoopKind::vectorized || s->loop == LoopKind::parallel) return false;
        break;
      case SK::let: {
        bool vary = varies(s->value);
        if (vary) v.varying_lets.insert(s->var);
        bool ok = uniform_control(s->body[0]);
        v.varying_lets.erase(s->var);
        return ok;
      }
      case SK::allocate:
        if (!s->alloc.extents.empty()) return false;  // buffers inside a vector loop: keep it simple
        v.temps.insert(s->alloc.name);
        break;
      default:
        break;
    }
    for (const auto& b : s->body)
      if (!uniform_control(b)) return false;
    return true;
  }

  void vector_loop(const StmtP& s, int64_t w, int ind, std::string& out) {
    VecCtx ctx;
    ctx.var = s->var;
    ctx.width = static_cast<int>(w);
    ctx.base = var_name(s->var) + "_base";
    int64_t first = 0;
    ctx.aligned = lir::is_const(s->min, &first) && first % w == 0;
    out += fmt::format("{}{{ /* vectorized: {} lanes of {} */\n", pad(ind), w, s->var);
    out += fmt::format("{}const int64_t {} = {};\n", pad(ind + 1), ctx.base, scalar(s->min));
    auto lo = lower::numeric_range(s->min, ranges_);
    if (lo) ranges_.set(s->var, lower::Range{lo->lo, lo->hi + w - 1});
    vec_ = &ctx;
    stmt(s->body[0], ind + 1, out);
    vec_ = nullptr;
    ranges_.erase(s->var);
    out += pad(ind) + "}\n";
  }

  // A vector-mode expression: a scalar string if uniform, else a vector of the expression's type.
  struct VVal {
    std::string text;
    bool vec;
  };

  std::string as_vector(const VVal& v, DType t) {
    if (v.vec) return v.text;
    if (t == DType::boolean) return fmt::format("{}(-(int32_t)(({}) != 0))", H("splat", vec_type(t)), v.text);  // a mask
    return fmt::format("{}({})", H("splat", vec_type(t)), v.text);
  }

  VVal vexpr(const ExprP& e) {
    if (!varies(e)) return {scalar(e), false};
    std::string V = vec_type(e->type);
    switch (e->kind) {
      case EK::var: {
        if (e->name == vec_->var) {
          std::string iota;
          for (int l = 0; l < vec_->width; ++l) iota += (l ? ", " : "") + std::to_string(l);
          // (In 32-bit lanes where the index arithmetic was narrowed: the base converted explicitly.)
          bool narrow = e->type == DType::i32;
          std::string I = vec_type(narrow ? DType::i32 : DType::i64);
          return {fmt::format("(({}){{{}}} + {}{})", I, iota, narrow ? "(int32_t)" : "", vec_->base), true};
        }
        return vexpr(vec_->let_defs.at(e->name));  // a varying let: its definition, inline
      }
      case EK::load:
        return {vector_load(e), true};
      case EK::unary: {
        std::string a = as_vector(vexpr(e->args[0]), e->args[0]->type);
        if (e->unop == UnOp::lnot) return {fmt::format("(~{})", a), true};  // masks are 0 / -1
        if (e->unop == UnOp::bnot) return {fmt::format("(~{})", a), true};
        return {fmt::format("(-{})", a), true};
      }
      case EK::binary: {
        BinOp op = e->binop;
        DType ot = e->args[0]->type;
        std::string a = as_vector(vexpr(e->args[0]), ot), b = as_vector(vexpr(e->args[1]), e->args[1]->type);
        // A shift's count may have another integer type than the shifted value (`P[i] >> 4`, an i8
        // by an i64 literal): vector shifts take both operands of one type, the value's.
        if ((op == BinOp::shl || op == BinOp::shr) && e->args[1]->type != ot) {
          VVal count = vexpr(e->args[1]);
          b = count.vec ? fmt::format("__builtin_convertvector({}, {})", count.text, vec_type(ot)) : as_vector(count, ot);
        }
        if (is_comparison(op)) return {canonical_mask(fmt::format("({} {} {})", a, spelling(op), b), ot), true};
        if (is_float(e->type) && op == BinOp::mod) return {per_lane(e), true};
        if (!is_float(e->type) && (op == BinOp::div || op == BinOp::mod)) {
          int64_t c = 0;
          if (is_signed_const(e->args[1], &c) && (c > 0 || (c < 0 && c != INT64_MIN && is_signed_int(e->type))) && ot == e->type)
            return {vector_divide_by_constant(a, op, c, e->type), true};
          return {per_lane(e), true};
        }
        return {fmt::format("({} {} {})", a, spelling(op), b), true};
      }
      case EK::select:
        return {vector_select(e), true};
      case EK::call:
        return {vector_call(e), true};
      case EK::cast:
        return {vector_cast(e), true};
      default:
        return {per_lane(e), true};
    }
  }

  // Comparison results are masks of 32-bit lanes whatever the operands' width (0 or -1).
  std::string canonical_mask(const std::string& cmp, DType operand) {
    std::string m = mask_type(operand);
    std::string c32 = vec_type_of_lane("int32_t");
    if (m == c32) return cmp;
    return fmt::format("__builtin_convertvector({}, {})", cmp, c32);
  }
  // A canonical mask converted to the lane width of type t.
  std::string mask_for(const std::string& mask, DType t) {
    std::string m = mask_type(t);
    if (m == vec_type_of_lane("int32_t")) return mask;
    return fmt::format("__builtin_convertvector({}, {})", mask, m);
  }

  // Floor division (or the matching remainder) of an integer vector `a` by a positive constant, in
  // vector arithmetic: C's division truncates, so a negative `a` is moved down by c - 1 first.
  // A negative constant (signed types): floor(a / c) = floor(-a / -c), and a % c = a - c * that.
  std::string vector_divide_by_constant(const std::string& a, BinOp op, int64_t c, DType t) {
    if (c < 0) {
      std::string V = vec_type(t), x = fmt::format("ekb_d{}", tmp_++);
      std::string q = vector_divide_by_constant(fmt::format("(-{})", x), BinOp::div, -c, t);
      std::string r = op == BinOp::div ? q : fmt::format("({} - {} * {}({}))", x, q, H("splat", V), int_literal(c));
      return fmt::format("({{ {} {} = {}; {}; }})", V, x, a, r);
    }
    std::string V = vec_type(t), C = fmt::format("{}({})", H("splat", V), int_literal(c)), x = fmt::format("ekb_d{}", tmp_++);
    std::string q = is_signed_int(t)
                        ? fmt::format("(({x} - (({x} < {z}) & {m})) / {c})", fmt::arg("x", x), fmt::arg("z", fmt::format("{}(0)", H("splat", V))),
                                      fmt::arg("m", fmt::format("{}({})", H("splat", V), int_literal(c - 1))), fmt::arg("c", C))
                        : fmt::format("({} / {})", x, C);
    std::string r = op == BinOp::div ? q : fmt::format("({} - {} * {})", x, q, C);
    return fmt::format("({{ {} {} = {}; {}; }})", V, x, a, r);
  }

  std::string vector_select(const ExprP& e) {
    DType t = e->type;
    VVal c = vexpr(e->args[0]);
    if (!c.vec) {
      // Uniform condition: an ordinary (lazy) conditional over vectors.
      return fmt::format("({} ? {} : {})", c.text, as_vector(vexpr(e->args[1]), t), as_vector(vexpr(e->args[2]), t));
    }
    std::string m = fmt::format("ekb_m{}", tmp_++);
    std::string c32 = vec_type_of_lane("int32_t");
    std::string saved = mask_;
    // The branches' masks name the condition's mask `m` instead of repeating its text: a condition
    // that is itself a select (`a && b && c`) would otherwise be printed three times per level.
    std::string both = mask_.empty() ? m : fmt::format("({} & {})", mask_, m);
    std::string neg = mask_.empty() ? fmt::format("(~{})", m) : fmt::format("({} & ~{})", mask_, m);
    mask_ = fmt::format("ekb_mt{}", tmp_);
    std::string mt = mask_;
    std::string a = as_vector(vexpr(e->args[1]), t);
    mask_ = fmt::format("ekb_mf{}", tmp_);
    std::string mf = mask_;
    std::string b = as_vector(vexpr(e->args[2]), t);
    mask_ = saved;
    if (t == DType::boolean)
      return fmt::format("({{ {c32} {m} = {c}; {c32} {mt} = {bo}; {c32} {mf} = {ne}; ({m} & {a}) | (~{m} & {b}); }})",
                         fmt::arg("c32", c32), fmt::arg("m", m), fmt::arg("c", c.text), fmt::arg("mt", mt), fmt::arg("bo", both),
                         fmt::arg("mf", mf), fmt::arg("ne", neg), fmt::arg("a", a), fmt::arg("b", b));
    return fmt::format("({{ {c32} {m} = {c}; {c32} {mt} = {bo}; {c32} {mf} = {ne}; (void){mt}; (void){mf}; ekb_blend_{V}({mm}, {a}, {b}); }})",
                       fmt::arg("c32", c32), fmt::arg("m", m), fmt::arg("c", c.text), fmt::arg("mt", mt), fmt::arg("bo", both),
                       fmt::arg("mf", mf), fmt::arg("ne", neg), fmt::arg("V", vec_type(t).substr(4)), fmt::arg("mm", mask_for(m, t)),
                       fmt::arg("a", a), fmt::arg("b", b));
  }

  std::string vector_call(const ExprP& e) {
    DType t = e->type;
    std::string V = vec_type(t);
    std::vector<std::string> a;
    for (const auto& x : e->args) a.push_back(as_vector(vexpr(x), t));
    switch (e->fn) {
      case Fn::min: return fmt::format("{}({}, {})", H("min", V), a[0], a[1]);
      case Fn::max: return fmt::format("{}({}, {})", H("max", V), a[0], a[1]);
      case Fn::clamp: return fmt::format("{}({}({}, {}), {})", H("min", V), H("max", V), a[0], a[1], a[2]);
      case Fn::abs:
        if (!repeatable({&a[0]})) return fmt::format("{}({})", H("abs", V), a[0]);
        return fmt::format("{}({}, -{})", H("max", V), a[0], a[0]);
      case Fn::sign: {  // (as the scalar form: 1, -1, or the value itself — a zero, a NaN)
        std::string x = fmt::format("ekb_t{}", tmp_++), S = V.substr(4);
        return fmt::format("({{ {V} {x} = {a}; ekb_blend_{S}({x} > 0, ekb_splat_{S}(1), ekb_blend_{S}({x} < 0, ekb_splat_{S}(-1), {x})); }})",
                           fmt::arg("V", V), fmt::arg("x", x), fmt::arg("a", a[0]), fmt::arg("S", S));
      }
      default: break;
    }
    if (lane_of(t) == "float") {
      switch (e->fn) {
        case Fn::exp: return fmt::format("{}({})", H("exp", V), a[0]);
        case Fn::log: return fmt::format("{}({})", H("log", V), a[0]);
        case Fn::tanh: return fmt::format("{}({})", H("tanh", V), a[0]);
        case Fn::sigmoid: return fmt::format("{}({})", H("sigmoid", V), a[0]);
        case Fn::erf: return fmt::format("{}({})", H("erf", V), a[0]);
        case Fn::expm1: return fmt::format("{}({})", H("expm1", V), a[0]);
        case Fn::log1p: return fmt::format("{}({})", H("log1p", V), a[0]);
        case Fn::exp2: return fmt::format("{}({})", H("exp2", V), a[0]);
        case Fn::log2: return fmt::format("{}({})", H("log2", V), a[0]);
        case Fn::log10: return fmt::format("{}({})", H("log10", V), a[0]);
        case Fn::round: return fmt::format("{}({})", H("rint", V), a[0]);  // (halves to even, as rintf)
        case Fn::floor: return fmt::format("{}({})", H("floor", V), a[0]);
        case Fn::ceil: return fmt::format("{}({})", H("ceil", V), a[0]);
        case Fn::trunc: return fmt::format("{}({})", H("trunc", V), a[0]);
        case Fn::sqrt: return fmt::format("{}({})", H("sqrt", V), a[0]);
        case Fn::rsqrt: return fmt::format("(1.0f / {}({}))", H("sqrt", V), a[0]);
        default: break;
      }
    }
    return per_lane(e);
  }

  std::string vector_cast(const ExprP& e) {
    DType to = e->type, from = e->args[0]->type;
    std::string x = as_vector(vexpr(e->args[0]), from);
    if (to == DType::boolean) return canonical_mask(fmt::format("({} != 0)", x), from);
    if (from == DType::boolean) return fmt::format("__builtin_convertvector(-{}, {})", x, vec_type(to));
    if (is_float(from) && !is_float(to)) {
      // Saturate, then convert (NaN becomes 0).
      std::string F = vec_type(from);
      std::string lo = float_literal(static_cast<double>(int_min(to)), from), hi = float_literal(static_cast<double>(int_max(to)), from);
      std::string t = fmt::format("ekb_t{}", tmp_++);
      return fmt::format("({{ {F} {t} = {x}; {t} = ekb_blend_{f}({t} != {t}, ekb_splat_{f}(0), {t}); "
                         "__builtin_convertvector(ekb_min_{f}(ekb_max_{f}({t}, ekb_splat_{f}({lo})), ekb_splat_{f}({hi})), {T}); }})",
                         fmt::arg("F", F), fmt::arg("f", F.substr(4)), fmt::arg("t", t), fmt::arg("x", x), fmt::arg("lo", lo), fmt::arg("hi", hi),
                         fmt::arg("T", vec_type(to)));
    }
    if (vec_type(to) == vec_type(from)) return x;
    return fmt::format("__builtin_convertvector({}, {})", x, vec_type(to));
  }

  // Each lane computed by scalar code (functions without a vector form, divisions, gathers).
  std::string per_lane(const ExprP& e) {
    std::string V = vec_type(e->type);
    std::string r = fmt::format("ekb_r{}", tmp_++);
    // Lanes are computed with the loop variable as `base + l` and varying lets inlined.
    ExprP x = expand_lets(e);
    std::string body = scalar_lane(x);
    std::string guard = mask_.empty() ? "" : fmt::format("if ({}[l]) ", mask_);
    return fmt::format("({{ {V} {r} = {{0}}; for (int l = 0; l < {w}; ++l) {g}{r}[l] = {b}; {r}; }})", fmt::arg("V", V),
                       fmt::arg("r", r), fmt::arg("w", vec_->width), fmt::arg("g", guard), fmt::arg("b", body));
  }
  // Scalar code for one lane `l`: vector temporaries are read at lane l.
  std::string scalar_lane(const ExprP& e) {
    if (e->kind == EK::load) {
      auto it = bufs_.find(e->name);
      if (it != bufs_.end() && it->second.vector_temp) return it->second.cname + "[l]";
    }
    if (e->args.empty()) return scalar(e);
    // Rebuild the scalar text with children in lane form: print via a temporary copy whose
    // scalar-temporary loads are renamed. Simplest: scalar() already maps the loop var to base + l.
    return scalar_with_lane_temps(e);
  }
  std::string scalar_with_lane_temps(const ExprP& e) {
    // Temporarily mark vector temporaries so that scalar() prints them indexed by lane.
    std::vector<std::pair<std::string, std::string>> renamed;
    for (auto& [n, b] : bufs_)
      if (b.vector_temp) {
        renamed.push_back({n, b.cname});
        b.cname = b.cname + "[l]";
      }
    std::string s = scalar(e);
    for (const auto& [n, c] : renamed) bufs_[n].cname = c;
    return s;
  }

  // Is `e` a multiple of the lanes' width whatever its variables (constants and variables times
  // constants that are, and their sums)?
  bool multiple_of_width(const ExprP& e) const {
    int64_t c = 0;
    if (lir::is_const(e, &c)) return c % vec_->width == 0;
    if (e->kind != EK::binary) return false;
    if (e->binop == BinOp::add || e->binop == BinOp::sub) return multiple_of_width(e->args[0]) && multiple_of_width(e->args[1]);
    if (e->binop == BinOp::mul)
      return (lir::is_const(e->args[0], &c) && c % vec_->width == 0) || (lir::is_const(e->args[1], &c) && c % vec_->width == 0);
    return false;
  }
  // Index arithmetic with the lanes' floor divisions made uniform where they are: with the lanes
  // starting at a multiple of the width W, `(X + v) / c` for X and c multiples of W is X / c in
  // every lane, and `(X + v) % c` is X % c + v (a group's scale read `Scale[n, k / 128]` along
  // lanes of k is one value, not a gather of sixteen equal ones).
  ExprP lane_uniform_divisions(const ExprP& e) const {
    if (!vec_->aligned) return e;
    int64_t c = 0;
    if (e->kind == EK::binary && (e->binop == BinOp::div || e->binop == BinOp::mod) && !is_float(e->type) &&
        lir::is_const(e->args[1], &c) && c > 0 && c % vec_->width == 0) {
      const ExprP& num = e->args[0];
      if (num->kind == EK::binary && num->binop == BinOp::add)
        for (int side = 0; side < 2; ++side) {
          const ExprP &v = num->args[side], &x = num->args[1 - side];
          if (v->kind == EK::var && v->name == vec_->var && !uses_var(x, vec_->var) && multiple_of_width(x))
            return e->binop == BinOp::div ? lir::floordiv(x, e->args[1]) : lir::add(lir::floormod(x, e->args[1]), v);
        }
    }
    if (e->args.empty()) return e;
    auto r = std::make_shared<lir::Expr>(*e);
    for (auto& a : r->args) a = lane_uniform_divisions(a);
    return r;
  }

  std::string vector_load(const ExprP& e) {
    const BufInfo& b = buf(e->name);
    if (b.vector_temp) return b.cname;
    ExprP off = lane_uniform_divisions(expand_lets(offset_expr(b, e->args)));
    auto solved = lower::solve_for(off, vec_->var);
    bool base_uniform = solved && !uses_var(solved->second, vec_->var);
    if (e->type == DType::boolean) {  // 0/1 in memory, 0/-1 as a mask
      bool all = mask_.empty() || unconditional_loads_.count(lir::to_string(e)) || in_bounds_in_every_lane(b, e->args);
      if (base_uniform && all && solved->first == 1) {
        std::string base = scalar(min_vars_to_names(solved->second));
        return fmt::format("(-__builtin_convertvector({}(&{}[{} + {}]), {}))", H("load", vec_type(DType::u8)), b.cname, base, vec_->base,
                           vec_type_of_lane("int32_t"));
      }
      return "(-" + per_lane(e) + ")";
    }
    std::string V = vec_type(e->type);
    // (Under a select's lane mask, a contiguous read is still read whole where it cannot fault: the
    // same read happens unconditionally in the statement, or every lane's index is in the buffer.)
    bool all_lanes = mask_.empty() || unconditional_loads_.count(lir::to_string(e)) || in_bounds_in_every_lane(b, e->args);
    if (base_uniform && all_lanes && solved->first == 1 && plain_lane(b.type)) {
      std::string base = scalar(min_vars_to_names(solved->second));
      return fmt::format("{}(&{}[{} + {}])", H("load", V), b.cname, base, vec_->base);
    }
    if (base_uniform && all_lanes && solved->first == 0 && plain_lane(b.type))  // (one element for every lane)
      return fmt::format("{}({}[{}])", H("splat", V), b.cname, scalar(min_vars_to_names(solved->second)));
    // (A contiguous read under a lane mask that may fault — a shifted read guarded at the border, as
    // `select(t - k >= 0, X[t - k], 0)` — is read whole where every lane is on, which is every vector
    // but the border's; lane by lane, a causal FIR was 6x slower than plain loops.)
    // (Or where the whole vector lies inside the buffer: the lanes that are off read elements of it
    // that the mask then drops, and nothing faults — a peak detector's `X[t] > X[t - 1] && X[t] >=
    // X[t + 1]` has its later reads under a data-dependent mask that is seldom all on, and lane by
    // lane it ran 2.3x slower than plain loops.)
    if (base_uniform && solved->first == 1 && plain_lane(b.type)) {
      std::string base = scalar(min_vars_to_names(solved->second));
      std::string inside;
      if (int64_t n = flat_elements(b); n >= vec_->width)
        inside = fmt::format("(uint64_t)({} + {}) <= (uint64_t){} || ", base, vec_->base, n - vec_->width);
      return fmt::format("(({}ekb_all_{}({})) ? {}(&{}[{} + {}]) : {})", inside, vec_type_of_lane("int32_t").substr(4), mask_, H("load", V),
                         b.cname, base, vec_->base, per_lane(e));
    }
    // (A read whose lanes step by 2 to 4 elements, or backwards by 1 to 4 — a stride-2 pool's
    // window, a true convolution's reversed taps — is read as whole vectors whose lanes shuffles
    // pick out, as clang's vectorizer reads an interleaved group, wherever those vectors lie inside
    // the buffer (the lanes a mask turns off are dropped by it); lane by lane elsewhere. Lane by
    // lane everywhere, a stride-2 decimating FIR ran 1.4x slower than plain loops.)
    if (base_uniform && plain_lane(b.type) && solved->first != 0 && solved->first != 1 && std::llabs(solved->first) <= kMaxShuffledStep) {
      const int64_t step = solved->first, n = flat_elements(b), span = std::llabs(step) * vec_->width;
      if (n >= span) {
        std::string base = scalar(min_vars_to_names(solved->second));
        // (The lowest element read: lane 0's, or going backwards the last lane's.)
        std::string lo = step > 0 ? fmt::format("{} + {} * {}", base, step, vec_->base)
                                  : fmt::format("{} + {} * ({} + {})", base, step, vec_->base, vec_->width - 1);
        return fmt::format("(((uint64_t)({}) <= (uint64_t){}) ? {} : {})", lo, n - span, shuffled_load(b, V, lo, step), per_lane(e));
      }
    }
    return per_lane(e);
  }
  static constexpr int64_t kMaxShuffledStep = 4;
  // The lanes `lo + step * l` (step > 0) or `lo + |step| * (W - 1 - l)` (step < 0) of buffer `b`, in
  // vector type V: |step| whole vectors read from `lo`, then shuffles that take each lane from the
  // vector holding it (a lane index of -1 is one the next shuffle fills).
  std::string shuffled_load(const BufInfo& b, const std::string& V, const std::string& lo, int64_t step) {
    const int64_t W = vec_->width, m = std::llabs(step);
    auto source = [&](int64_t l) { return step > 0 ? step * l : m * (W - 1 - l); };  // element of lane l, from lo
    std::string p = fmt::format("ekb_p{}", tmp_++), out = fmt::format("({{ const {}* {} = &{}[{}]; ", lane_of(b.type), p, b.cname, lo);
    std::vector<std::string> v;
    for (int64_t k = 0; k < m; ++k) {
      v.push_back(fmt::format("ekb_v{}", tmp_++));
      out += fmt::format("{} {} = {}({} + {}); ", V, v.back(), H("load", V), p, k * W);
    }
    // (The first shuffle takes the lanes held by the first two vectors; each later one keeps the
    // lanes placed so far and takes those its vector holds.)
    std::vector<std::string> idx;
    for (int64_t l = 0; l < W; ++l) idx.push_back(std::to_string(source(l) < 2 * W ? source(l) : -1));
    std::string acc = fmt::format("__builtin_shufflevector({}, {}, {})", v[0], m > 1 ? v[1] : v[0], fmt::join(idx, ", "));
    for (int64_t k = 2; k < m; ++k) {
      idx.clear();
      for (int64_t l = 0; l < W; ++l)
        idx.push_back(std::to_string(source(l) < k * W ? l : source(l) < (k + 1) * W ? W + source(l) - k * W : -1));
      acc = fmt::format("__builtin_shufflevector({}, {}, {})", acc, v[k], fmt::join(idx, ", "));
    }
    return out + acc + "; })";
  }
  static bool uses_var(const ExprP& e, const std::string& v) { return lower::uses_var(e, v); }
  bool plain_lane(DType t) { return t != DType::f16 && t != DType::bf16 && t != DType::boolean; }
  ExprP min_vars_to_names(const ExprP& e) {
    if (e->kind == EK::var && e->name.rfind("$min:", 0) == 0) {
      std::string c = e->name.substr(5);
      vars_[e->name] = c;
      return e;
    }
    auto c = std::make_shared<lir::Expr>(*e);
    for (auto& a : c->args) a = min_vars_to_names(a);
    return c;
  }

  // Whether `b`'s elements start at 0 (not a region computed inside a loop).
  static bool starts_at_zero(const BufInfo& b) {
    for (const auto& m : b.min_names)
      if (!m.empty()) return false;
    return true;
  }
  // The elements of `b` from its start (0 where they do not start at 0).
  static int64_t flat_elements(const BufInfo& b) {
    if (!starts_at_zero(b) || b.scalar_temp || b.vector_temp || b.extents.empty()) return 0;
    int64_t n = 1;
    for (int64_t x : b.extents) n *= x;
    return n;
  }

  // Every index of a read of `b` within its dimension for every lane (the loops' and lanes' ranges);
  // only for buffers whose elements start at 0 (not a region computed inside a loop).
  bool in_bounds_in_every_lane(const BufInfo& b, const std::vector<ExprP>& idx) {
    if (!starts_at_zero(b) || idx.size() != b.extents.size()) return false;
    for (size_t d = 0; d < idx.size(); ++d) {
      auto r = lower::numeric_range(expand_lets(idx[d]), ranges_);
      if (!r || r->lo < 0 || r->hi >= b.extents[d]) return false;
    }
    return true;
  }
  static void collect_unconditional_loads(const ExprP& e, std::set<std::string>& out) {
    if (e->kind == EK::load) out.insert(lir::to_string(e));
    if (e->kind == EK::select) {
      collect_unconditional_loads(e->args[0], out);
      return;
    }
    if (e->kind == EK::binary && (e->binop == BinOp::land || e->binop == BinOp::lor)) {
      collect_unconditional_loads(e->args[0], out);  // (the right side is lazy)
      return;
    }
    for (const auto& a : e->args) collect_unconditional_loads(a, out);
  }

  // Index arithmetic in 32-bit lanes where every value it takes fits: the loop variables are 64-bit,
  // and in 64-bit lanes a border's mask took twice the registers and a division by a constant ran
  // lane by lane (AVX-512 has no 64-bit multiply-high). Narrowed from a boundary inward — a
  // comparison's operands, a conversion's operand — through sums, products, divisions, min, max and
  // the lanes' variable, never into a read's indices.
  bool fits_i32(const ExprP& e) {
    auto r = lower::numeric_range(expand_lets(e), ranges_);
    return r && r->lo > INT32_MIN && r->hi < INT32_MAX;
  }
  bool narrowable(const ExprP& e) {
    if (e->type != DType::i64) return false;
    switch (e->kind) {
      case EK::int_imm: return e->ival > INT32_MIN && e->ival < INT32_MAX;
      case EK::var:
        if (vec_->let_defs.count(e->name) && vec_->varying_lets.count(e->name)) return narrowable(vec_->let_defs.at(e->name));
        return fits_i32(e);
      case EK::binary:
        if (e->binop != BinOp::add && e->binop != BinOp::sub && e->binop != BinOp::mul && e->binop != BinOp::div && e->binop != BinOp::mod)
          return false;
        break;
      case EK::call:
        if (e->fn != Fn::min && e->fn != Fn::max && e->fn != Fn::abs && e->fn != Fn::clamp) return false;
        break;
      default: return false;
    }
    for (const auto& a : e->args)
      if (!narrowable(a)) return false;
    return fits_i32(e);
  }
  ExprP narrowed(const ExprP& e) {
    if (e->kind == EK::var && vec_->varying_lets.count(e->name) && vec_->let_defs.count(e->name)) return narrowed(vec_->let_defs.at(e->name));
    auto c = std::make_shared<lir::Expr>(*e);
    c->type = DType::i32;
    for (auto& a : c->args) a = narrowed(a);
    return c;
  }
  ExprP narrow_lane_indices(const ExprP& e) {
    if (e->kind == EK::load || e->args.empty() || !varies(e)) return e;
    auto c = std::make_shared<lir::Expr>(*e);
    bool boundary = (e->kind == EK::binary && is_comparison(e->binop)) || e->kind == EK::cast;
    bool all = boundary;
    for (const auto& a : e->args) all = all && narrowable(a);
    for (auto& a : c->args) a = all ? narrowed(a) : narrow_lane_indices(a);
    return c;
  }

  void vector_store(const StmtP& st, const BufInfo& b, int ind, std::string& out) {
    auto narrowed_store = std::make_shared<lir::Stmt>(*st);
    narrowed_store->value = narrow_lane_indices(st->value);
    const StmtP s = narrowed_store;
    unconditional_loads_.clear();
    collect_unconditional_loads(s->value, unconditional_loads_);
    struct Clear {
      std::set<std::string>& s;
      ~Clear() { s.clear(); }
    } clear{unconditional_loads_};
    if (b.vector_temp) {
      out += fmt::format("{}{} = {};\n", pad(ind), b.cname, as_vector(vexpr(s->value), b.type));
      return;
    }
    if (b.scalar_temp) {  // declared outside the vector loop: one value for all lanes
      out += fmt::format("{}{} = {};\n", pad(ind), b.cname, scalar(s->value));
      return;
    }
    VVal v = vexpr(s->value);
    ExprP off = expand_lets(offset_expr(b, s->indices));
    auto solved = lower::solve_for(off, vec_->var);
    if (solved && solved->first == 1 && !uses_var(solved->second, vec_->var) && plain_lane(b.type)) {
      std::string base = scalar(min_vars_to_names(solved->second));
      out += fmt::format("{}{}(&{}[{} + {}], {});\n", pad(ind), H("store", vec_type(b.type)), b.cname, base, vec_->base,
                         as_vector(v, s->value->type));
      return;
    }
    if (solved && solved->first == 1 && !uses_var(solved->second, vec_->var) && b.type == DType::boolean) {
      // A mask (0 / -1 per 32-bit lane) stored as bytes 0 / 1.
      std::string base = scalar(min_vars_to_names(solved->second));
      std::string U = vec_type(DType::u8);
      out += fmt::format("{}{}(&{}[{} + {}], __builtin_convertvector(-{}, {}));\n", pad(ind), H("store", U), b.cname, base, vec_->base,
                         as_vector(v, DType::boolean), U);
      return;
    }
    // Lane by lane, in order (a uniform offset keeps the last lane's value, as a serial loop would).
    std::string t = fmt::format("ekb_s{}", tmp_++);
    out += fmt::format("{}{{ {} {} = {};\n", pad(ind), vec_type(s->value->type), t, as_vector(v, s->value->type));
    std::string idx = scalar(min_vars_to_names(off));
    out += fmt::format("{}  for (int l = 0; l < {}; ++l) {}[{}] = {};\n", pad(ind), vec_->width, b.cname, idx,
                       to_storage(t + "[l]", b.type));
    out += pad(ind) + "}\n";
  }
};

}  // namespace

std::string c_signature(const LoweredKernel& k, const Dialect& d) {
  CPrinter p(k, d);
  return p.signature();
}

GpuProgram print_gpu(const LoweredKernel& k, const Dialect& d) {
  CPrinter p(k, d);
  return p.print_gpu();
}

const Dialect& dialect_for(Backend b) {
  switch (b) {
    case Backend::cpu: return c_dialect();
    case Backend::cuda: return cuda_dialect();
    case Backend::opencl: return opencl_dialect();
  }
  return c_dialect();
}

std::string print_for_backend(const LoweredKernel& k) {
  if (k.target.backend == Backend::cpu) return print_c(k, c_dialect());
  return print_gpu(k, dialect_for(k.target.backend)).source;
}

std::string print_c(const LoweredKernel& k, const Dialect& d) {
  CPrinter p(k, d);
  return p.print(c_entry_wrapper(k.inputs, k.outputs, d));
}

std::string c_entry_wrapper(const std::vector<lower::TensorArg>& inputs, const std::vector<lower::TensorArg>& outputs,
                            const Dialect& d) {
  std::vector<std::string> args;
  size_t i = 0;
  for (const auto& t : inputs) args.push_back(fmt::format("(const {}*)args[{}]", d.storage_type(t.type), i++));
  for (const auto& t : outputs) args.push_back(fmt::format("({}*)args[{}]", d.storage_type(t.type), i++));
  args.push_back("num_threads");
  return fmt::format("void {}(void* const* args, int32_t num_threads) {{\n  {}({});\n}}\n", kEntryWrapper, kEntryPoint,
                     fmt::join(args, ", "));
}

std::string raw_submission_source(const std::string& source, bool cplusplus, const std::vector<lower::TensorArg>& inputs,
                                  const std::vector<lower::TensorArg>& outputs, const Dialect& d) {
  std::string out = source;
  if (!out.empty() && out.back() != '\n') out += '\n';
  out += "\n/* --- appended by ekb: the entry the runtime calls --- */\n#include <stdint.h>\n";
  if (!cplusplus) return out + c_entry_wrapper(inputs, outputs, d);
  std::vector<std::string> params;
  for (const auto& t : inputs) params.push_back(fmt::format("const {}*", d.storage_type(t.type)));
  for (const auto& t : outputs) params.push_back(fmt::format("{}*", d.storage_type(t.type)));
  params.push_back("int32_t");
  out += fmt::format("extern \"C\" void {}({});\nextern \"C\" ", kEntryPoint, fmt::join(params, ", "));
  return out + c_entry_wrapper(inputs, outputs, d);
}

std::string c_abi_text(const std::string& task, const std::vector<lower::TensorArg>& inputs,
                       const std::vector<lower::TensorArg>& outputs, const Dialect& d) {
  std::string out = fmt::format(
      "/* Task {}: the C ABI of a raw C (or C++ with extern \"C\") submission for the cpu backend.\n"
      " * Every tensor is dense, row-major (the last index varies fastest), 64-byte aligned, passed as a\n"
      " * pointer to its first element; inputs are read-only, outputs must be fully written.\n"
      " * Types: f64 double, f32 float, f16 _Float16, bf16 uint16_t (bfloat16 bits), i64 int64_t,\n"
      " * i32 int32_t, i16 int16_t, i8 int8_t, u8 uint8_t, bool uint8_t (0 or 1). Include <stdint.h>.\n"
      " * num_threads (>= 1): the kernel may run on at most this many threads (e.g. OpenMP's\n"
      " * num_threads clause); it must return only when all its work is done.\n */\n",
      task);
  std::vector<std::string> params;
  for (const auto& t : inputs)
    params.push_back(fmt::format("    const {}* {} {} /* {}[{}] */", d.storage_type(t.type), d.restrict_kw, t.name,
                                 dtype_name(t.type), fmt::join(t.shape, "][")));
  for (const auto& t : outputs)
    params.push_back(fmt::format("    {}* {} {} /* {}[{}] */", d.storage_type(t.type), d.restrict_kw, t.name,
                                 dtype_name(t.type), fmt::join(t.shape, "][")));
  params.push_back("    int32_t num_threads");
  out += fmt::format("void {}(\n{});\n", kEntryPoint, fmt::join(params, ",\n"));
  return out;
}

std::string gpu_abi_text(const std::string& task, const std::vector<lower::TensorArg>& inputs,
                         const std::vector<lower::TensorArg>& outputs, const Dialect& d) {
  bool cuda = d.name == "cuda";
  int64_t points = 1;
  for (int64_t e : outputs.empty() ? std::vector<int64_t>{} : outputs[0].shape) points *= e;
  std::string out = fmt::format(
      "/* Task {0}: the {1} ABI of a raw .{2} submission for the {3} backend.\n"
      " * The program is one source with one or more kernels. It says in a comment which kernels the host\n"
      " * launches, in order, with their grid ({4}) and block ({5}) sizes, and which scratch buffers\n"
      " * (device memory for intermediate results) the host allocates for it:\n"
      " *   @launch KERNEL grid(X,Y,Z) block(X,Y,Z)     (one line per launch; Y and Z may be left out)\n"
      " *   @scratch NAME BYTES                          (optional, one line per buffer)\n"
      " * Every kernel takes every buffer, in this order: the inputs, the outputs, then the scratch buffers.\n"
      " * Tensors are dense, row-major (the last index varies fastest), in device memory; inputs are\n"
      " * read-only, outputs must be fully written, scratch buffers start with junk in them on every call.\n"
      " * Types: f64 double, f32 float, bf16 uint16_t (bfloat16 bits), i64 {6}, i32 int, i16 short,\n"
      " * i8 {7}, u8 {8}, bool {8} (0 or 1). The launches of one call are timed together on the device;\n"
      " * a device profile may limit threads per block, shared memory per block and scratch bytes.\n */\n",
      task, cuda ? "CUDA C" : "OpenCL C", cuda ? "cu" : "cl", cuda ? "cuda" : "opencl",
      cuda ? "blocks" : "work-groups: the global size is grid x block", cuda ? "threads per block" : "work-items per group",
      cuda ? "long long" : "long", cuda ? "signed char" : "char", cuda ? "unsigned char" : "uchar");
  std::vector<std::string> params;
  auto param = [&](const lower::TensorArg& t, bool is_const) {
    std::string ty = d.storage_type(t.type);
    if (cuda && ty == "int64_t") ty = "long long";
    if (ty == "int64_t") ty = "long";
    if (ty == "int32_t") ty = "int";
    if (ty == "int16_t") ty = "short";
    if (ty == "int8_t") ty = cuda ? "signed char" : "char";
    if (ty == "uint8_t") ty = cuda ? "unsigned char" : "uchar";
    if (ty == "uint16_t") ty = cuda ? "unsigned short" : "ushort";
    params.push_back(fmt::format("    {} /* {}[{}] */", gpu_param(d, ty, is_const, t.name), dtype_name(t.type),
                                 fmt::join(t.shape, "][")));
  };
  for (const auto& t : inputs) param(t, true);
  for (const auto& t : outputs) param(t, false);
  int64_t grid = std::max<int64_t>(1, (points + 255) / 256);
  out += fmt::format("/* For example, one kernel with a thread per element of `{}`:\n * @launch ekb_k0 grid({},1,1) block(256,1,1)\n */\n",
                     outputs.empty() ? "" : outputs[0].name, grid);
  out += fmt::format("{} void ekb_k0(\n{});\n", d.kernel_prefix, fmt::join(params, ",\n"));
  return out;
}

}  // namespace ekb::codegen
