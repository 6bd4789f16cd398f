// L0, the compute layer (actions.h): rewrites of the kernel that keep its interface (the same inputs
// and outputs; the harness checks every result against the task's reference). The catalogue:
//  - reciprocal: `a / d`, where the divisor d does not vary along the stage's innermost variable
//    (a row's sum, a norm), becomes `a * r` with a new stage r = 1 / d computed once per row: one
//    division per row instead of one per element;
//  - constant divisor: `a / c` with c constant becomes `a * (1.0 / c)` (a compiler may not do it
//    for c not a power of two: the result differs in the last bit);
//  - split reduction: a reduction inside an element-wise expression (`Y = (sum(k) A * B) + bias`)
//    becomes a stage of its own, so that the reduction can be scheduled as one (register tiles,
//    vector reductions) and the element-wise rest fused after it;
// After a rewrite the stages are new: the program restarts from the default schedule of its L0.
#include <fmt/format.h>

#include <functional>
#include <set>

#include "agent/action_util.h"
#include "agent/cpu_actions.h"
#include "ir/check.h"
#include "ir/printer.h"
#include "schedule/default_schedule.h"

namespace ekb::agent::detail {

namespace {

enum class Rewrite { reciprocal, constant_divisor, split_reduction };

ActionKind kind_of(Rewrite r) {
  switch (r) {
    case Rewrite::reciprocal: return ActionKind::reciprocal;
    case Rewrite::constant_divisor: return ActionKind::constant_divisor;
    case Rewrite::split_reduction: return ActionKind::split_reduction;
  }
  return ActionKind::reciprocal;
}

bool is_constant_expr(const Expr& e) {
  switch (e.kind) {
    case ExprKind::int_lit: case ExprKind::float_lit: return true;
    case ExprKind::name: return e.ref == NameRef::dim || e.ref == NameRef::constant;
    case ExprKind::unary: case ExprKind::binary:
      for (const auto& a : e.args)
        if (!is_constant_expr(*a)) return false;
      return true;
    default: return false;
  }
}

void index_vars(const Expr& e, std::set<std::string>& out, bool& reduction_var) {
  if (e.kind == ExprKind::name && e.ref == NameRef::index_var) out.insert(e.text);
  if (e.kind == ExprKind::reduce) reduction_var = true;
  for (const auto& a : e.args) index_vars(*a, out, reduction_var);
}

// The division nodes of a stage's body, in a fixed order, that rewrite `r` applies to.
bool only_lhs_vars(const std::set<std::string>& vars, const StageStmt& st) {
  for (const auto& v : vars) {
    bool lhs = false;
    for (const auto& l : st.lhs) lhs = lhs || l.name == v;
    if (!lhs) return false;
  }
  return true;
}

// The free index variables of `e` (a reduction's own variables are bound inside it).
void free_vars(const Expr& e, std::set<std::string>& out, std::set<std::string> bound = {}) {
  if (e.kind == ExprKind::reduce)
    for (const auto& v : e.rvars) bound.insert(v.name);
  if (e.kind == ExprKind::name && e.ref == NameRef::index_var && !bound.count(e.text)) out.insert(e.text);
  for (const auto& a : e.args) free_vars(*a, out, bound);
}

void sites(Expr& e, const StageStmt& st, Rewrite r, std::vector<Expr*>& out, bool in_reduction, bool top = true) {
  if (r == Rewrite::split_reduction) {
    // A reduction nested in the stage's expression (not the whole of it), outside any other.
    if (e.kind == ExprKind::reduce && !top && !in_reduction) {
      std::set<std::string> vars;
      free_vars(e, vars);
      if (only_lhs_vars(vars, st)) out.push_back(&e);
      return;
    }
    for (auto& a : e.args) sites(*a, st, r, out, in_reduction || e.kind == ExprKind::reduce, false);
    return;
  }
  for (auto& a : e.args) sites(*a, st, r, out, in_reduction || e.kind == ExprKind::reduce, false);
  if (e.kind != ExprKind::binary || e.binop != BinOp::div || !is_float(e.type)) return;
  const Expr& d = *e.args[1];
  if (r == Rewrite::constant_divisor) {
    if (is_constant_expr(d) && d.kind != ExprKind::float_lit && d.kind != ExprKind::int_lit) out.push_back(&e);
    else if ((d.kind == ExprKind::float_lit || d.kind == ExprKind::int_lit) && d.text != "1" && d.text != "1.0" && d.text != "2" &&
             d.text != "2.0" && d.text != "4" && d.text != "4.0")
      out.push_back(&e);
    return;
  }
  if (in_reduction || is_constant_expr(d) || st.lhs.empty()) return;
  std::set<std::string> vars;
  bool reduction = false;
  index_vars(d, vars, reduction);
  if (reduction || vars.count(st.lhs.back().name)) return;  // not invariant along the innermost loop
  if (only_lhs_vars(vars, st)) out.push_back(&e);
}

ExprPtr name_expr(const std::string& n) {
  auto e = std::make_unique<Expr>(ExprKind::name, Loc{});
  e->text = n;
  return e;
}

ExprPtr literal(const std::string& text, ExprKind k) {
  auto e = std::make_unique<Expr>(k, Loc{});
  e->text = text;
  return e;
}

// Applies rewrite `r` at the `which`-th site of stage `stage` of `kernel_text`; the new kernel text.
std::optional<std::string> apply(const std::string& kernel_text, Rewrite r, int stage, size_t which,
                                 const std::set<std::string>& used, std::string* what, std::string* new_stage) {
  auto p = load_program(std::make_shared<SourceFile>("rewrite.ekb", kernel_text));
  Kernel& k = *p->module->kernel;
  int si = -1;
  for (size_t i = 0; i < k.stmts.size(); ++i) {
    auto* st = std::get_if<StageStmt>(&k.stmts[i].node);
    if (!st || ++si != stage) continue;
    std::vector<Expr*> found;
    sites(*st->rhs, *st, r, found, false);
    if (which >= found.size()) return std::nullopt;
    const StageInfo& info = p->stages[static_cast<size_t>(stage)];
    auto extent_of = [&](const std::string& v) {
      for (const auto& x : info.vars)
        if (x.name == v) return x.extent;
      return int64_t{0};
    };
    auto fresh = [&](const std::string& base) {
      std::string name = base;
      for (int n = 2; used.count(name); ++n) name = fmt::format("{}{}", base, n);
      return name;
    };
    if (r == Rewrite::split_reduction) {
      Expr& red = *found[which];
      std::set<std::string> vars;
      free_vars(red, vars);
      std::string name = fresh(st->name + "_" + red.text);
      StageStmt rs;
      rs.name = name;
      rs.bracketed = !vars.empty();
      auto access = std::make_unique<Expr>(ExprKind::access, Loc{});
      access->text = name;
      for (const auto& l : st->lhs) {
        if (!vars.count(l.name)) continue;
        rs.lhs.push_back({l.name, Loc{}, literal(std::to_string(extent_of(l.name)), ExprKind::int_lit)});
        access->args.push_back(name_expr(l.name));
      }
      // The reduction node moves into the new stage; the access takes its place.
      ExprPtr in_place = vars.empty() ? name_expr(name) : std::move(access);
      auto moved = std::make_unique<Expr>(std::move(red));
      red = std::move(*in_place);
      rs.rhs = std::move(moved);
      *new_stage = name;
      *what = fmt::format("{}: its `{}` reduction as a stage of its own, `{}`", st->name, rs.rhs->text, name);
      KernelStmt ks;
      ks.node = std::move(rs);
      k.stmts.insert(k.stmts.begin() + static_cast<long>(i), std::move(ks));
      KernelPrintOptions o;
      o.comments = false;
      return print_kernel(k, o);
    }
    Expr& div = *found[which];
    div.binop = BinOp::mul;
    if (r == Rewrite::constant_divisor) {
      auto inv = std::make_unique<Expr>(ExprKind::binary, Loc{});
      inv->binop = BinOp::div;
      inv->args.push_back(literal("1.0", ExprKind::float_lit));
      inv->args.push_back(std::move(div.args[1]));
      div.args[1] = std::move(inv);
      *what = fmt::format("{}: a division by a constant as a multiplication by its reciprocal", st->name);
    } else {
      std::set<std::string> vars;
      bool red = false;
      index_vars(*div.args[1], vars, red);
      std::string name = fresh(st->name + "_rcp");
      StageStmt rs;
      rs.name = name;
      rs.bracketed = !vars.empty();
      auto access = std::make_unique<Expr>(ExprKind::access, Loc{});
      access->text = name;
      for (const auto& l : st->lhs) {
        if (!vars.count(l.name)) continue;
        rs.lhs.push_back({l.name, Loc{}, literal(std::to_string(extent_of(l.name)), ExprKind::int_lit)});
        access->args.push_back(name_expr(l.name));
      }
      auto inv = std::make_unique<Expr>(ExprKind::binary, Loc{});
      inv->binop = BinOp::div;
      inv->args.push_back(literal("1.0", ExprKind::float_lit));
      inv->args.push_back(std::move(div.args[1]));
      rs.rhs = std::move(inv);
      *new_stage = name;
      div.args[1] = vars.empty() ? name_expr(name) : std::move(access);
      *what = fmt::format("{}: the divisor `{}` as a reciprocal stage `{}`, once per row", st->name, print_expr(*rs.rhs->args[1]), name);
      KernelStmt ks;
      ks.node = std::move(rs);
      k.stmts.insert(k.stmts.begin() + static_cast<long>(i), std::move(ks));
    }
    KernelPrintOptions o;
    o.comments = false;
    return print_kernel(k, o);
  }
  return std::nullopt;
}

// `p` with `stage` computed where another stage's `compute_at READER LOOP` puts it, when that is
// legal; `p` unchanged otherwise.
AgentProgram with_reader_placement(AgentProgram p, const std::string& stage, const std::string& reader, const Target& t) {
  for (const auto& l : p.l2)
    for (const auto& d : l.directives) {
      auto w = words_of(d);
      if (w.size() != 3 || w[0] != "compute_at" || w[1] != reader) continue;
      AgentProgram q = with_appended(p, stage, d, true);
      if (analyze(q, t)) return q;
    }
  return p;
}

}  // namespace

void compute_actions(const AgentProgram& p, const Analysis& a, const Target& t, std::vector<Action>& out) {
  std::set<std::string> used;
  for (const auto& x : a.program->tensors) used.insert(x.name);
  for (Rewrite r : {Rewrite::reciprocal, Rewrite::constant_divisor, Rewrite::split_reduction}) {
    // Count the sites on a fresh copy (the analysis's program is shared and must stay as it is).
    auto fresh = load_program(std::make_shared<SourceFile>("rewrite.ekb", p.kernel));
    int si = -1;
    for (auto& ks : fresh->module->kernel->stmts) {
      auto* st = std::get_if<StageStmt>(&ks.node);
      if (!st) continue;
      ++si;
      std::vector<Expr*> found;
      sites(*st->rhs, *st, r, found, false);
      for (size_t w = 0; w < found.size(); ++w) {
        std::string what, new_stage;
        std::optional<std::string> text;
        try {
          text = apply(p.kernel, r, si, w, used, &what, &new_stage);
        } catch (const std::exception&) {
          continue;  // a rewrite that does not check is not a candidate
        }
        if (!text) continue;
        try {
          auto np = load_program(std::make_shared<SourceFile>("rewrite.ekb", *text));
          AgentProgram q = program_from(*text, default_schedule_text(*np, t), p.backend);
          // The reciprocal is computed once per row: its own loops, never inlined back into every element.
          if (r == Rewrite::reciprocal && !new_stage.empty()) {
            drop_directives(q, new_stage, true, "inline");
            // A row's value the default computed inside the divided stage's loop (its only reader
            // then) is read by the reciprocal now: the reciprocal goes there too.
            if (!analyze(q, t)) q = with_reader_placement(std::move(q), new_stage, st->name, t);
          }
          out.push_back({AgentLayer::compute, what, std::move(q), kind_of(r)});
        } catch (const std::exception&) {
        }
      }
    }
  }
}

}  // namespace ekb::agent::detail
