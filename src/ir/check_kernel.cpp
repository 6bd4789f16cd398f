// The L0 checker: declarations, names, types (with weak literals), index variable ranges (explicit or
// inferred from bare uses), and output assignability. Rules are those of docs/ir.md.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <numbers>
#include <set>

#include "ir/check.h"
#include "ir/const_eval.h"
#include "ir/distribution.h"
#include "ir/limits.h"
#include "ir/operators.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/type_rules.h"
#include "util/strings.h"

namespace ekb {
namespace {

struct Global {
  enum class Kind { dim, constant, tensor } kind;
  int index;
};

// A bare use of an index variable as a whole index: `A[m, k]` gives (A, 0) for m and (A, 1) for k.
struct BareUse {
  int tensor;
  int dim;
  Loc loc;
};

class KernelChecker {
 public:
  KernelChecker(const std::shared_ptr<Module>& m, DiagnosticList& d) : mod_(m), src_(m->source), d_(d) {}

  std::shared_ptr<Program> run() {
    if (!mod_->kernel) {
      d_.error(src_, Loc{1, 1, 1}, "the file has no kernel",
               "start the file with `kernel NAME` followed by its inputs, outputs and stages");
      return nullptr;
    }
    Kernel& k = *mod_->kernel;
    p_ = std::make_shared<Program>();
    p_->module = mod_;
    p_->name = k.name;
    size_t errors_before = d_.error_count();
    for (auto& st : k.stmts) {
      if (auto* m = std::get_if<MetaStmt>(&st.node)) check_meta(*m);
      else if (auto* dm = std::get_if<DimStmt>(&st.node)) check_dims(*dm);
      else if (auto* c = std::get_if<ConstStmt>(&st.node)) check_consts(*c);
      else if (auto* t = std::get_if<TensorStmt>(&st.node)) check_tensor(*t);
    }
    if (p_->pattern.empty()) p_->pattern = p_->name;
    for (auto& st : k.stmts)
      if (auto* s = std::get_if<StageStmt>(&st.node)) check_stage(*s);
    check_all_defined(k);
    if (d_.error_count() > errors_before) return nullptr;
    check_usage();
    return p_;
  }

 private:
  std::shared_ptr<Module> mod_;
  SourcePtr src_;
  DiagnosticList& d_;
  std::shared_ptr<Program> p_;
  std::map<std::string, Global> globals_;
  std::vector<ConstValue> consts_;
  std::vector<bool> defined_;  // per tensor: has its stage been checked
  std::set<int> attempted_;    // outputs whose stage had errors (not reported again as undefined)

  // per-stage state
  StageInfo* stage_ = nullptr;
  int stage_tensor_ = -1;
  std::vector<Expr*> self_reads_;  // a recurrence's reads of its own values, in the stage being checked
  std::vector<std::pair<std::string, int>> scope_;  // name -> var id
  std::vector<const IndexVarDecl*> var_decls_;
  std::vector<std::vector<BareUse>> bare_uses_;
  std::set<int> read_tensors_;

  void error(Loc loc, std::string msg, std::string fix) { d_.error(src_, loc, std::move(msg), std::move(fix)); }

  // ---------------- declarations ----------------
  bool check_new_name(const std::string& name, Loc loc, const char* what) {
    if (is_reserved_word(name)) {
      error(loc, fmt::format("`{}` is a reserved word and cannot name a {}", name, what),
            fmt::format("choose another name, e.g. `{}_`", name));
      return false;
    }
    if (globals_.count(name)) {
      error(loc, fmt::format("`{}` is already declared", name), "every dim, const and tensor needs its own name");
      return false;
    }
    return true;
  }

  ConstLookup lookup() {
    return [this](const std::string& n) -> std::optional<ConstValue> {
      auto it = globals_.find(n);
      if (it == globals_.end()) return std::nullopt;
      if (it->second.kind == Global::Kind::dim) return ConstValue{false, p_->dims[it->second.index].second, 0};
      if (it->second.kind == Global::Kind::constant) return consts_[it->second.index];
      return std::nullopt;
    };
  }

  std::optional<int64_t> eval_size(const Expr& e, const std::string& what) {
    auto v = eval_const(e, lookup(), src_, d_, what);
    if (!v) return std::nullopt;
    if (v->is_float) {
      error(e.loc, fmt::format("{} must be an integer, but `{}` is a float", what, print_expr(e)),
            "sizes are whole numbers; use integer division `/` on dims");
      return std::nullopt;
    }
    if (v->i < 1 || v->i > kMaxDim) {
      error(e.loc, fmt::format("{} is {}, outside 1..{}", what, v->i, kMaxDim),
            "sizes must be at least 1; check the arithmetic on the dims");
      return std::nullopt;
    }
    return v->i;
  }

  void check_meta(const MetaStmt& m) {
    std::string* slot = m.key == "pattern" ? &p_->pattern : m.key == "category" ? &p_->category : &p_->domain;
    if (!slot->empty()) {
      error(m.loc, fmt::format("`{}` is given twice", m.key), "keep one line");
      return;
    }
    if (m.key == "category" || m.key == "domain") {
      const auto& known = m.key == "category" ? known_categories() : known_domains();
      if (std::find(known.begin(), known.end(), m.value) == known.end()) {
        std::string near = closest_match(m.value, known);
        error(m.value_loc, fmt::format("unknown {} `{}`", m.key, m.value),
              (near.empty() ? "" : fmt::format("did you mean `{}`? ", near)) + "known: " + quoted_list(known, "or"));
        return;
      }
    }
    *slot = m.value;
  }

  void check_dims(const DimStmt& dm) {
    for (const auto& def : dm.defs) {
      if (!check_new_name(def.name, def.loc, "dim")) continue;
      auto v = eval_size(*def.value, fmt::format("dim `{}`", def.name));
      if (!v) continue;
      globals_[def.name] = {Global::Kind::dim, static_cast<int>(p_->dims.size())};
      p_->dims.push_back({def.name, *v});
    }
  }

  void check_consts(const ConstStmt& cs) {
    for (const auto& c : cs.defs) {
      if (!check_new_name(c.name, c.loc, "const")) continue;
      auto v = eval_const(*c.value, lookup(), src_, d_, fmt::format("const `{}`", c.name));
      if (!v) continue;
      globals_[c.name] = {Global::Kind::constant, static_cast<int>(consts_.size())};
      consts_.push_back(*v);
    }
  }

  void check_tensor(const TensorStmt& t) {
    if (!check_new_name(t.name, t.loc, "tensor")) return;
    TensorInfo ti;
    ti.name = t.name;
    ti.dtype = t.dtype;
    ti.role = t.is_output ? TensorRole::output : TensorRole::input;
    ti.loc = t.loc;
    if (t.shape.size() > static_cast<size_t>(kMaxRank)) {
      error(t.shape[kMaxRank]->loc, fmt::format("`{}` has {} dimensions, more than {}", t.name, t.shape.size(), kMaxRank),
            "merge dimensions that are always indexed together into one");
      return;
    }
    bool ok = true;
    int64_t elements = 1;
    for (size_t i = 0; i < t.shape.size(); ++i) {
      auto v = eval_size(*t.shape[i], fmt::format("dimension {} of `{}`", i, t.name));
      if (!v) {
        ok = false;
        continue;
      }
      ti.shape.push_back(*v);
      if (__builtin_mul_overflow(elements, *v, &elements) || elements > kMaxElements) {
        error(t.shape[i]->loc, fmt::format("`{}` would hold more than {} elements", t.name, kMaxElements),
              "edge workloads are far smaller; reduce the dims");
        ok = false;
        break;
      }
    }
    if (!t.is_output) {
      auto dist = check_distribution(t, lookup(), src_, d_);
      if (dist) ti.dist = *dist;
      else ok = false;
    }
    if (!ok) return;
    globals_[t.name] = {Global::Kind::tensor, static_cast<int>(p_->tensors.size())};
    (t.is_output ? p_->outputs : p_->inputs).push_back(static_cast<int>(p_->tensors.size()));
    p_->tensors.push_back(std::move(ti));
    defined_.push_back(!t.is_output);
  }

  // ---------------- stages ----------------
  void check_stage(StageStmt& s) {
    StageInfo st;
    st.name = s.name;
    st.loc = s.loc;
    int tensor = -1;
    bool is_new = false;
    auto g = globals_.find(s.name);
    if (g != globals_.end()) {
      if (g->second.kind != Global::Kind::tensor) {
        error(s.loc, fmt::format("`{}` is a {} and cannot be defined as a stage", s.name,
                                 g->second.kind == Global::Kind::dim ? "dim" : "const"),
              "give the stage another name");
        return;
      }
      tensor = g->second.index;
      TensorInfo& ti = p_->tensors[tensor];
      if (ti.role == TensorRole::input) {
        error(s.loc, fmt::format("`{}` is an input; inputs are given, not computed", s.name),
              "name the stage differently, or declare `" + s.name + "` with `out` if it is a result");
        return;
      }
      if (defined_[tensor]) {
        error(s.loc, fmt::format("`{}` is defined twice", s.name),
              "a stage is defined by one statement; give the second one another name");
        return;
      }
    } else {
      if (is_reserved_word(s.name)) {
        error(s.loc, fmt::format("`{}` is a reserved word and cannot name a stage", s.name),
              fmt::format("choose another name, e.g. `{}_`", s.name));
        return;
      }
      is_new = true;
    }

    if (!few_enough_vars(s)) {
      if (tensor >= 0) attempted_.insert(tensor);
      return;
    }
    stage_ = &st;
    stage_tensor_ = tensor;
    scope_.clear();
    var_decls_.clear();
    bare_uses_.clear();
    size_t errors_before = d_.error_count();

    for (auto& v : s.lhs) {
      if (!declare_var(v, false)) continue;
    }
    st.n_lhs = static_cast<int>(st.vars.size());
    self_reads_.clear();
    if (!s.scan_var.empty()) declare_scan(s, st);
    resolve(*s.rhs);

    if (tensor >= 0) {
      const TensorInfo& out = p_->tensors[tensor];
      if (s.lhs.size() != out.shape.size()) {
        error(s.loc, fmt::format("`{}` has {} dimension(s) but is defined with {} index variable(s)", s.name,
                                 out.shape.size(), s.lhs.size()),
              fmt::format("write `{}` with one variable per dimension", s.name));
      }
    }
    resolve_extents(s, d_.error_count() > errors_before);
    if (d_.error_count() > errors_before) {
      if (tensor >= 0) attempted_.insert(tensor);
      stage_ = nullptr;
      return;
    }

    // Types: settle weak literals and check the value fits the tensor.
    DType target;
    if (tensor >= 0) {
      target = p_->tensors[tensor].dtype;
      if (!s.rhs->weak) check_assignable(*s.rhs, s.rhs->type, target, s.name, src_, d_);
      else if (is_int(target) && is_float(s.rhs->type))
        error(s.rhs->loc, fmt::format("`{}` is {}, but the value is a float", s.name, dtype_name(target)),
              "write an integer value, or convert explicitly, e.g. i32(round(x))");
    } else if (st.is_scan()) {
      // An intermediate recurrence reads its own values as f32 (declare it `out` for another type).
      if (!is_float(s.rhs->type))
        error(s.rhs->loc, fmt::format("the recurrence `{}` is an intermediate, which holds f32, but its value is {}", s.name,
                                      dtype_name(s.rhs->type)),
              fmt::format("declare `{}` as an output of the type it needs, or convert the value to f32", s.name));
      target = DType::f32;
    } else {
      target = s.rhs->weak ? (is_float(s.rhs->type) ? DType::f32 : DType::i32) : s.rhs->type;
    }
    settle_types(*s.rhs, s.rhs->weak ? target : s.rhs->type, src_, d_);
    if (d_.error_count() > errors_before) {
      if (tensor >= 0) attempted_.insert(tensor);
      stage_ = nullptr;
      return;
    }

    if (is_new) {
      TensorInfo ti;
      ti.name = s.name;
      ti.dtype = target;
      ti.role = TensorRole::intermediate;
      ti.loc = s.loc;
      int64_t elements = 1;
      for (int i = 0; i < st.n_lhs; ++i) {
        ti.shape.push_back(st.vars[i].extent);
        if (__builtin_mul_overflow(elements, st.vars[i].extent, &elements) || elements > kMaxElements) {
          error(s.loc, fmt::format("`{}` would hold more than {} elements", s.name, kMaxElements), "reduce the dims");
          stage_ = nullptr;
          return;
        }
      }
      tensor = static_cast<int>(p_->tensors.size());
      globals_[s.name] = {Global::Kind::tensor, tensor};
      p_->tensors.push_back(std::move(ti));
      defined_.push_back(true);
    } else {
      defined_[tensor] = true;
    }
    st.tensor = tensor;
    st.body = s.rhs.get();
    if (st.is_scan() && !check_self_reads(s, st)) {
      attempted_.insert(tensor);
      stage_ = nullptr;
      return;
    }
    p_->tensors[tensor].stage = static_cast<int>(p_->stages.size());
    p_->stages.push_back(std::move(st));
    stage_ = nullptr;
  }

  // A stage's loops nest one per index variable: at most kMaxRank on the left, kMaxStageVars in all.
  bool few_enough_vars(const StageStmt& s) {
    if (s.lhs.size() > static_cast<size_t>(kMaxRank)) {
      error(s.lhs[kMaxRank].loc, fmt::format("`{}` has {} index variables, more than {}", s.name, s.lhs.size(), kMaxRank),
            fmt::format("a tensor has at most {} dimensions; merge dimensions that are always indexed together into one",
                        kMaxRank));
      return false;
    }
    std::vector<const IndexVarDecl*> vars;
    for (const auto& v : s.lhs) vars.push_back(&v);
    collect_reduction_vars(*s.rhs, vars);
    if (vars.size() > static_cast<size_t>(kMaxStageVars)) {
      error(vars[kMaxStageVars]->loc,
            fmt::format("`{}` has {} index variables (with its reductions'), more than {}", s.name, vars.size(), kMaxStageVars),
            "split the computation into several stages, each reducing over a few variables");
      return false;
    }
    return true;
  }
  static void collect_reduction_vars(const Expr& e, std::vector<const IndexVarDecl*>& out) {
    if (out.size() > static_cast<size_t>(kMaxStageVars)) return;
    for (const auto& v : e.rvars) out.push_back(&v);
    for (const auto& a : e.args) collect_reduction_vars(*a, out);
  }

  bool declare_var(IndexVarDecl& v, bool reduction) {
    if (is_reserved_word(v.name)) {
      error(v.loc, fmt::format("`{}` is a reserved word and cannot name an index variable", v.name),
            fmt::format("use another name, e.g. `{}_`", v.name));
      return false;
    }
    if (globals_.count(v.name)) {
      error(v.loc, fmt::format("index variable `{}` has the name of a dim, const or tensor", v.name),
            "index variables are usually short lower-case names like i, j, k");
      return false;
    }
    for (const auto& var : stage_->vars)
      if (var.name == v.name) {
        error(v.loc, fmt::format("index variable `{}` is declared twice in this stage", v.name),
              "each index variable of a stage needs its own name, including those of reductions");
        return false;
      }
    IndexVar iv;
    iv.name = v.name;
    iv.loc = v.loc;
    iv.reduction = reduction;
    int id = static_cast<int>(stage_->vars.size());
    stage_->vars.push_back(iv);
    var_decls_.push_back(&v);
    bare_uses_.emplace_back();
    scope_.push_back({v.name, id});
    return true;
  }

  // `quiet`: the stage already has errors, so a range that cannot be inferred is likely their echo.
  void resolve_extents(const StageStmt& s, bool quiet) {
    for (size_t id = 0; id < stage_->vars.size(); ++id) {
      IndexVar& var = stage_->vars[id];
      const IndexVarDecl& decl = *var_decls_[id];
      bool is_output_lhs = stage_tensor_ >= 0 && static_cast<int>(id) < stage_->n_lhs;
      int64_t declared = 0;
      if (is_output_lhs) {
        const TensorInfo& out = p_->tensors[stage_tensor_];
        if (id < out.shape.size()) declared = out.shape[id];
      }
      if (decl.extent) {
        auto v = eval_size(*decl.extent, fmt::format("the range of `{}`", var.name));
        if (!v) continue;
        if (declared && *v != declared) {
          error(decl.extent->loc,
                fmt::format("`{}` ranges over dimension {} of `{}`, which has size {}, not {}", var.name, id,
                            s.name, declared, *v),
                fmt::format("write `{}` or `{} < {}`", var.name, var.name, declared));
          continue;
        }
        var.extent = *v;
        continue;
      }
      if (declared) {
        var.extent = declared;
        continue;
      }
      const auto& uses = bare_uses_[id];
      if (uses.empty()) {
        if (quiet) continue;
        error(var.loc, fmt::format("cannot tell the range of `{}`: it never indexes a tensor dimension by itself", var.name),
              fmt::format("write its range where it is declared, e.g. `{} < {}`", var.name,
                          var.reduction ? "3" : "HO"));
        continue;
      }
      int64_t first = p_->tensors[uses[0].tensor].shape[uses[0].dim];
      bool agree = true;
      for (const auto& u : uses)
        if (p_->tensors[u.tensor].shape[u.dim] != first) agree = false;
      if (!agree) {
        std::vector<std::string> parts;
        for (const auto& u : uses)
          parts.push_back(fmt::format("dimension {} of `{}` (size {})", u.dim, p_->tensors[u.tensor].name,
                                      p_->tensors[u.tensor].shape[u.dim]));
        error(var.loc, fmt::format("the range of `{}` is ambiguous: it indexes {}", var.name, fmt::join(parts, ", ")),
              fmt::format("give it explicitly, e.g. `{} < {}`", var.name, first));
        continue;
      }
      var.extent = first;
    }
  }

  // ---------------- expressions ----------------
  bool combine(const Expr& a, const Expr& b, Loc loc, const char* op, DType& type, bool& weak) {
    return combine_types(a, b, loc, op, type, weak, src_, d_);
  }

  bool is_defined_tensor(int t, Loc loc, const std::string& name) {
    if (t == stage_tensor_) {
      error(loc, fmt::format("stage `{}` reads itself", name),
            fmt::format("L0 stages are pure functions of earlier tensors: use a reduction like sum(k) for accumulation, or "
                        "make `{}` a recurrence that reads its earlier steps: `{}[t, ...] = scan(t) ... {}[t - 1, ...] ...`",
                        name, name, name));
      return false;
    }
    if (!defined_[t]) {
      error(loc, fmt::format("`{}` is read before it is defined", name),
            fmt::format("define `{}` in a statement above this one", name));
      return false;
    }
    return true;
  }

  std::vector<std::string> visible_names() const {
    std::vector<std::string> v;
    for (const auto& [n, g] : globals_) v.push_back(n);
    for (const auto& [n, id] : scope_) v.push_back(n);
    return v;
  }

  void unknown_name(Expr& e) {
    e.type = DType::i64;  // poison as a weak integer: fits most places, so no follow-on errors
    e.weak = true;
    std::string near = closest_match(e.text, visible_names());
    error(e.loc, fmt::format("unknown name `{}`", e.text),
          near.empty() ? "declare it (dim, const, in) or use an index variable of this stage"
                       : fmt::format("did you mean `{}`?", near));
  }

  void resolve(Expr& e) {
    switch (e.kind) {
      case ExprKind::int_lit: {
        auto [p, ec] = std::from_chars(e.text.data(), e.text.data() + e.text.size(), e.ival);
        if (ec != std::errc() || p != e.text.data() + e.text.size())
          error(e.loc, fmt::format("the integer `{}` is too large", e.text), "integers must be below 2^63");
        e.type = DType::i64;
        e.weak = true;
        return;
      }
      case ExprKind::float_lit:
        e.fval = std::strtod(e.text.c_str(), nullptr);
        if (!std::isfinite(e.fval)) error(e.loc, fmt::format("the number `{}` is too large", e.text), "use `inf` for infinity");
        e.type = DType::f64;
        e.weak = true;
        return;
      case ExprKind::bool_lit:
        e.type = DType::boolean;
        e.ival = e.text == "true";
        return;
      case ExprKind::name:
        resolve_name(e);
        return;
      case ExprKind::access:
        resolve_access(e);
        return;
      case ExprKind::unary:
        resolve(*e.args[0]);
        resolve_unary(e);
        return;
      case ExprKind::binary:
        resolve(*e.args[0]);
        resolve(*e.args[1]);
        resolve_binary(e);
        return;
      case ExprKind::call:
        resolve_call(e);
        return;
      case ExprKind::reduce:
        resolve_reduce(e);
        return;
    }
  }

  void resolve_name(Expr& e) {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
      if (it->first == e.text) {
        e.ref = NameRef::index_var;
        e.id = it->second;
        e.type = DType::i64;
        return;
      }
    if (e.text == "inf" || e.text == "pi") {
      e.ref = NameRef::constant;
      e.fval = e.text == "inf" ? INFINITY : std::numbers::pi;
      e.type = DType::f64;
      e.weak = true;
      return;
    }
    auto g = globals_.find(e.text);
    if (g == globals_.end()) {
      if (function_from_name(e.text) || dtype_from_name(e.text)) {
        error(e.loc, fmt::format("`{}` is a function, not a value", e.text), fmt::format("call it, e.g. `{}(x)`", e.text));
        e.type = DType::i64;
        e.weak = true;
      } else
        unknown_name(e);
      return;
    }
    switch (g->second.kind) {
      case Global::Kind::dim:
        e.ref = NameRef::dim;
        e.id = g->second.index;
        e.ival = p_->dims[g->second.index].second;
        e.type = DType::i64;
        e.weak = true;
        return;
      case Global::Kind::constant: {
        const ConstValue& c = consts_[g->second.index];
        e.ref = NameRef::constant;
        e.id = g->second.index;
        e.ival = c.i;
        e.fval = c.f;
        e.type = c.is_float ? DType::f64 : DType::i64;
        e.weak = true;
        return;
      }
      case Global::Kind::tensor: {
        const TensorInfo& t = p_->tensors[g->second.index];
        if (!t.shape.empty()) {
          std::vector<std::string> idx;
          for (size_t i = 0; i < t.shape.size(); ++i) idx.push_back(std::string(1, static_cast<char>('i' + i % 8)));
          error(e.loc, fmt::format("`{}` is a tensor of {} dimension(s); read one element of it", e.text, t.shape.size()),
                fmt::format("write `{}[{}]`", e.text, fmt::join(idx, ", ")));
          return;
        }
        if (!is_defined_tensor(g->second.index, e.loc, e.text)) return;
        e.ref = NameRef::scalar_tensor;
        e.id = g->second.index;
        e.type = t.dtype;
        read_tensors_.insert(g->second.index);
        return;
      }
    }
  }

  void resolve_access(Expr& e) {
    for (auto& a : e.args) resolve(*a);
    if (stage_ && stage_->is_scan() && e.text == stage_->name) {
      resolve_self_read(e);
      return;
    }
    auto g = globals_.find(e.text);
    if (g == globals_.end() || g->second.kind != Global::Kind::tensor) {
      if (g != globals_.end())
        error(e.loc, fmt::format("`{}` is a {}, not a tensor", e.text, g->second.kind == Global::Kind::dim ? "dim" : "const"),
              "only tensors are read with [...]");
      else {
        std::vector<std::string> tensors;
        for (const auto& t : p_->tensors) tensors.push_back(t.name);
        std::string near = closest_match(e.text, tensors);
        error(e.loc, fmt::format("unknown tensor `{}`", e.text),
              near.empty() ? "read an input, an output or a stage defined above"
                           : fmt::format("did you mean `{}`?", near));
      }
      return;
    }
    int t = g->second.index;
    const TensorInfo& ti = p_->tensors[t];
    if (!is_defined_tensor(t, e.loc, e.text)) return;
    e.id = t;
    e.type = ti.dtype;
    read_tensors_.insert(t);
    if (e.args.size() != ti.shape.size()) {
      error(e.loc, fmt::format("`{}` has {} dimension(s) but is read with {} index(es)", e.text, ti.shape.size(), e.args.size()),
            fmt::format("`{}` is {}[{}]", e.text, dtype_name(ti.dtype), fmt::join(ti.shape, ", ")));
      return;
    }
    for (size_t i = 0; i < e.args.size(); ++i) {
      Expr& a = *e.args[i];
      if (a.kind == ExprKind::name && a.ref == NameRef::index_var)
        bare_uses_[a.id].push_back({t, static_cast<int>(i), a.loc});
      if (a.type == DType::boolean || is_float(a.type))
        error(a.loc, fmt::format("index {} of `{}` is {}, but indices must be integers", i, e.text, dtype_name(a.type)),
              is_float(a.type) ? "convert explicitly, e.g. i32(floor(x))" : "use select(c, i, j) to choose an index");
    }
  }

  // ---------------- recurrences ----------------
  // `scan(t)`: t must be one of the stage's left-side variables.
  void declare_scan(const StageStmt& s, StageInfo& st) {
    for (int i = 0; i < st.n_lhs; ++i)
      if (st.vars[i].name == s.scan_var) st.scan_var = i;
    if (st.scan_var < 0) {
      std::vector<std::string> lhs;
      for (int i = 0; i < st.n_lhs; ++i) lhs.push_back(st.vars[i].name);
      error(s.scan_loc, fmt::format("`scan({})`: `{}` is not a left-side variable of `{}`", s.scan_var, s.scan_var, s.name),
            lhs.empty() ? std::string("a recurrence steps along one of its own dimensions: write `S[t, ...] = scan(t) ...`")
                        : fmt::format("name the variable the recurrence steps along, one of: {}", fmt::join(lhs, ", ")));
    }
    st.scan_local.assign(static_cast<size_t>(st.n_lhs), true);
  }

  // A read of the recurrence's own values; its tensor (an intermediate's) may not exist yet.
  void resolve_self_read(Expr& e) {
    e.id = stage_tensor_;
    e.type = stage_tensor_ >= 0 ? p_->tensors[stage_tensor_].dtype : DType::f32;
    for (size_t i = 0; i < e.args.size(); ++i)
      if (e.args[i]->type == DType::boolean || is_float(e.args[i]->type))
        error(e.args[i]->loc, fmt::format("index {} of `{}` is {}, but indices must be integers", i, e.text,
                                          dtype_name(e.args[i]->type)),
              "convert explicitly, e.g. i32(floor(x))");
    self_reads_.push_back(&e);
  }

  // Every read of its own values is at an earlier step, `S[..., t - d, ...]` with a constant d >= 1;
  // records which other dimensions each point keeps to itself.
  bool check_self_reads(const StageStmt& s, StageInfo& st) {
    if (self_reads_.empty()) {
      error(s.scan_loc, fmt::format("`{}` is marked `scan({})` but never reads its own earlier values", s.name, s.scan_var),
            fmt::format("read `{}[..., {} - 1, ...]` (guarded with select for the first step), or remove `scan({})`", s.name,
                        s.scan_var, s.scan_var));
      return false;
    }
    bool ok = true;
    for (Expr* r : self_reads_) {
      r->id = st.tensor;
      if (r->args.size() != static_cast<size_t>(st.n_lhs)) {
        error(r->loc, fmt::format("`{}` has {} dimension(s) but is read with {} index(es)", s.name, st.n_lhs, r->args.size()),
              fmt::format("read `{}` with one index per left-side variable", s.name));
        ok = false;
        continue;
      }
      const Expr& at = *r->args[static_cast<size_t>(st.scan_var)];
      bool earlier = at.kind == ExprKind::binary && at.binop == BinOp::sub && at.args[0]->kind == ExprKind::name &&
                     at.args[0]->ref == NameRef::index_var && at.args[0]->id == st.scan_var &&
                     (at.args[1]->kind == ExprKind::int_lit ||
                      (at.args[1]->kind == ExprKind::name &&
                       (at.args[1]->ref == NameRef::dim || at.args[1]->ref == NameRef::constant) && !is_float(at.args[1]->type))) &&
                     at.args[1]->ival >= 1;
      if (!earlier) {
        error(at.loc, fmt::format("a recurrence reads its own values only at earlier steps: index {} of `{}` must be `{} - d` "
                                  "with a constant d >= 1", st.scan_var, s.name, s.scan_var),
              fmt::format("write `{}[..., {} - 1, ...]`; what the step needs from the same step, compute in the expression "
                          "itself or in a stage above", s.name, s.scan_var));
        ok = false;
        continue;
      }
      for (int i = 0; i < st.n_lhs; ++i) {
        const Expr& a = *r->args[static_cast<size_t>(i)];
        if (i != st.scan_var && !(a.kind == ExprKind::name && a.ref == NameRef::index_var && a.id == i))
          st.scan_local[static_cast<size_t>(i)] = false;
      }
    }
    st.scan_local[static_cast<size_t>(st.scan_var)] = false;
    return ok;
  }

  void resolve_unary(Expr& e) {
    const Expr& a = *e.args[0];
    e.type = a.type;
    e.weak = a.weak;
    switch (e.unop) {
      case UnOp::neg:
        if (a.type == DType::boolean) error(e.loc, "`-` needs a number, but the operand is bool", "use `!` to negate a condition");
        return;
      case UnOp::lnot:
        if (a.type != DType::boolean)
          error(e.loc, fmt::format("`!` needs a condition, but the operand is {}", dtype_name(a.type)),
                "compare first, e.g. !(x > 0); for integers use `~` (bitwise not)");
        e.type = DType::boolean;
        e.weak = false;
        return;
      case UnOp::bnot:
        if (is_float(a.type) || a.type == DType::boolean)
          error(e.loc, fmt::format("`~` needs an integer, but the operand is {}", dtype_name(a.type)),
                a.type == DType::boolean ? "use `!` to negate a condition" : "bitwise operators work on integers");
        return;
    }
  }

  void resolve_binary(Expr& e) {
    const Expr& a = *e.args[0];
    const Expr& b = *e.args[1];
    const char* op = spelling(e.binop);
    switch (e.binop) {
      case BinOp::land:
      case BinOp::lor:
        if (a.type != DType::boolean || b.type != DType::boolean)
          error(e.loc, fmt::format("`{}` needs conditions on both sides", op),
                "compare numbers first, e.g. (i > 0) && (i < N); for bits of integers use & or |");
        e.type = DType::boolean;
        return;
      case BinOp::lt: case BinOp::le: case BinOp::gt: case BinOp::ge: case BinOp::eq: case BinOp::ne: {
        DType t;
        bool w;
        if ((e.binop == BinOp::eq || e.binop == BinOp::ne) && a.type == DType::boolean && b.type == DType::boolean) {
          e.cast_to = DType::boolean;
        } else if (combine(a, b, e.loc, op, t, w)) {
          e.cast_to = t;  // the operands' common type; weak-only comparisons settle to i64/f64
        }
        e.type = DType::boolean;
        return;
      }
      case BinOp::band: case BinOp::bor: case BinOp::bxor: case BinOp::shl: case BinOp::shr:
        if (is_float(a.type) || is_float(b.type) || a.type == DType::boolean || b.type == DType::boolean) {
          error(e.loc, fmt::format("`{}` needs integers", op),
                (a.type == DType::boolean || b.type == DType::boolean) ? "use && and || for conditions"
                                                                       : "convert with i32(...) first");
          return;
        }
        if (e.binop == BinOp::shl || e.binop == BinOp::shr) {
          // The left operand's type; a literal on the left takes the right operand's type.
          e.type = a.weak && !b.weak ? b.type : a.type;
          e.weak = a.weak && b.weak;
          return;
        }
        combine(a, b, e.loc, op, e.type, e.weak);
        return;
      default:
        combine(a, b, e.loc, op, e.type, e.weak);
        return;
    }
  }

  void resolve_call(Expr& e) {
    for (auto& a : e.args) resolve(*a);
    if (auto cast = dtype_from_name(e.text)) {
      e.fn = Fn::cast;
      e.cast_to = *cast;
      e.type = *cast;
      if (e.args.size() != 1)
        error(e.loc, fmt::format("the conversion `{}(...)` takes one argument, got {}", e.text, e.args.size()),
              fmt::format("write `{}(x)`", e.text));
      return;
    }
    auto fn = function_from_name(e.text);
    if (!fn) {
      auto g = globals_.find(e.text);
      if (g != globals_.end() && g->second.kind == Global::Kind::tensor) {
        error(e.loc, fmt::format("`{}` is a tensor; read it with square brackets", e.text),
              fmt::format("write `{}[...]`", e.text));
        return;
      }
      std::vector<std::string> fns = {"select", "min", "max", "abs", "clamp", "sign", "exp", "exp2", "expm1",
                                      "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "cbrt", "tanh", "sigmoid",
                                      "erf", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
                                      "pow", "floor", "ceil", "round", "trunc"};
      std::string near = closest_match(e.text, fns);
      error(e.loc, fmt::format("unknown function `{}`", e.text),
            near.empty() ? "functions are listed in docs/ir.md; write others from them (e.g. gelu from erf)"
                         : fmt::format("did you mean `{}`?", near));
      return;
    }
    e.fn = *fn;
    auto arity = [&](size_t n) {
      if (e.args.size() == n) return true;
      std::string fix;
      if ((e.fn == Fn::max || e.fn == Fn::min) && e.args.size() == 1)
        fix = fmt::format("{}(a, b) takes two values; for a reduction write {}(k) body, and put a body that starts "
                          "with `-` in parentheses: {}(k) (-x[k])", e.text, e.text, e.text);
      error(e.loc, fmt::format("`{}` takes {} argument(s), got {}", e.text, n, e.args.size()), fix);
      return false;
    };
    switch (e.fn) {
      case Fn::select: {
        if (!arity(3)) return;
        if (e.args[0]->type != DType::boolean)
          error(e.args[0]->loc, "the first argument of select must be a condition",
                "write select(x > 0, a, b); compare numbers to get a condition");
        if (e.args[1]->type == DType::boolean && e.args[2]->type == DType::boolean) {
          e.type = DType::boolean;
          return;
        }
        combine(*e.args[1], *e.args[2], e.loc, "select", e.type, e.weak);
        return;
      }
      case Fn::min:
      case Fn::max:
        if (!arity(2)) return;
        combine(*e.args[0], *e.args[1], e.loc, e.text.c_str(), e.type, e.weak);
        return;
      case Fn::clamp: {
        if (!arity(3)) return;
        DType t1;
        bool w1;
        if (!combine(*e.args[0], *e.args[1], e.loc, "clamp", t1, w1)) return;
        Expr tmp(ExprKind::int_lit, e.loc);
        tmp.type = t1;
        tmp.weak = w1;
        combine(tmp, *e.args[2], e.loc, "clamp", e.type, e.weak);
        return;
      }
      case Fn::abs:
      case Fn::sign:
        if (!arity(1)) return;
        if (e.args[0]->type == DType::boolean)
          error(e.loc, fmt::format("`{}` needs a number, but its argument is a condition", e.text),
                "convert the condition first, e.g. select(c, 1.0, 0.0)");
        e.type = e.args[0]->type;
        e.weak = e.args[0]->weak;
        return;
      case Fn::pow:
      case Fn::atan2: {
        if (!arity(2)) return;
        if (!combine(*e.args[0], *e.args[1], e.loc, e.text.c_str(), e.type, e.weak)) return;
        if (!is_float(e.type)) {
          error(e.loc, fmt::format("`{}` works on floats, but its arguments are {}", e.text, dtype_name(e.type)),
                "convert explicitly, e.g. f32(x)");
        }
        return;
      }
      default: {  // one-argument float functions
        if (!arity(1)) return;
        const Expr& a = *e.args[0];
        if (a.weak) {
          e.type = DType::f64;
          e.weak = true;
          return;
        }
        if (!is_float(a.type)) {
          error(e.loc, fmt::format("`{}` works on floats, but its argument is {}", e.text, dtype_name(a.type)),
                fmt::format("convert explicitly, e.g. {}(f32(x))", e.text));
          return;
        }
        e.type = a.type;
        return;
      }
    }
  }

  void resolve_reduce(Expr& e) {
    size_t scope_size = scope_.size();
    for (auto& v : e.rvars) {
      if (declare_var(v, true)) e.rvar_ids.push_back(static_cast<int>(stage_->vars.size()) - 1);
    }
    resolve(*e.args[0]);
    scope_.resize(scope_size);
    const Expr& body = *e.args[0];
    e.type = body.type;
    e.weak = body.weak;
    if (body.type == DType::boolean)
      error(e.loc, fmt::format("`{}` needs numbers, but its body is a condition", e.text),
            fmt::format("convert it, e.g. {}(k) select(c, 1, 0)", e.text));
  }

  void check_all_defined(const Kernel& k) {
    for (int t : p_->outputs)
      if (!defined_[t] && !attempted_.count(t)) {
        const TensorInfo& ti = p_->tensors[t];
        error(ti.loc, fmt::format("output `{}` is declared but never defined", ti.name),
              fmt::format("add a stage `{}[...] = ...`", ti.name));
      }
    if (p_->outputs.empty())
      error(k.loc, "the kernel has no output", "declare one with `out Y : f32[N]` and define it with a stage");
  }

  void check_usage() {
    for (int t : p_->inputs)
      if (!read_tensors_.count(t))
        d_.warning(src_, p_->tensors[t].loc, fmt::format("input `{}` is never read", p_->tensors[t].name),
                   "remove it, or use it in a stage");
    for (const auto& s : p_->stages) {
      const TensorInfo& t = p_->tensors[s.tensor];
      if (t.role == TensorRole::intermediate && !read_tensors_.count(s.tensor))
        d_.warning(src_, s.loc, fmt::format("stage `{}` is computed but never used", s.name),
                   "remove it, or read it from an output's stage");
    }
  }
};

}  // namespace

std::shared_ptr<Program> check_kernel(const std::shared_ptr<Module>& module, DiagnosticList& diags) {
  KernelChecker c(module, diags);
  return c.run();
}

}  // namespace ekb
