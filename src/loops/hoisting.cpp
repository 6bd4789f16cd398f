// Hoisting a reduction out of a stage's expression (loops/hoisting.h).
#include "loops/hoisting.h"

#include <fmt/format.h>

#include <set>

namespace ekb::lower {

namespace {

// The first reduction of `e` outside select branches and other reductions; null when there is none.
const lir::Expr* first_reduction(const lir::ExprP& e) {
  if (e->kind == lir::EK::reduce) return e.get();
  for (size_t i = 0; i < e->args.size(); ++i) {
    if (e->kind == lir::EK::select && i > 0) break;  // its branches are evaluated only when chosen
    if (const lir::Expr* r = first_reduction(e->args[i])) return r;
  }
  return nullptr;
}

bool has_reduction_inside(const lir::ExprP& e) {
  if (e->kind == lir::EK::reduce) return true;
  for (const auto& a : e->args)
    if (has_reduction_inside(a)) return true;
  return false;
}

// The variables `e` reads that nothing inside it binds.
void free_vars(const lir::ExprP& e, std::set<std::string>& bound, std::set<std::string>& out) {
  if (e->kind == lir::EK::var && !bound.count(e->name)) out.insert(e->name);
  std::vector<std::string> added;
  if (e->kind == lir::EK::reduce)
    for (const auto& v : e->rvars)
      if (bound.insert(v).second) added.push_back(v);
  for (const auto& a : e->args) free_vars(a, bound, out);
  for (const auto& v : added) bound.erase(v);
}

// `e` with the node `target` replaced by `with`.
lir::ExprP replace_node(const lir::ExprP& e, const lir::Expr* target, const lir::ExprP& with) {
  if (e.get() == target) return with;
  auto c = std::make_shared<lir::Expr>(*e);
  for (auto& a : c->args) a = replace_node(a, target, with);
  return c;
}

}  // namespace

std::string hoist_problem(const LStage& st) {
  if (st.has_reduction()) return fmt::format("`{}` is a reduction itself; hoist_reduction takes a reduction inside an expression", st.name);
  if (first_reduction(st.value)) return "";
  if (has_reduction_inside(st.value))
    return fmt::format("`{}`'s reductions are inside select branches, evaluated only when chosen: they cannot be computed apart",
                       st.name);
  return fmt::format("`{}` has no reduction inside its expression", st.name);
}

const lir::Expr* hoistable_reduction(const LStage& st) { return hoist_problem(st).empty() ? first_reduction(st.value) : nullptr; }

std::optional<LStage> hoist_first_reduction(LStage& st, const std::string& name) {
  if (!hoist_problem(st).empty()) return std::nullopt;
  const lir::Expr* r = first_reduction(st.value);
  std::set<std::string> bound, used;
  lir::ExprP whole = std::make_shared<lir::Expr>(*r);
  free_vars(whole, bound, used);
  LStage h;
  h.name = name;
  h.type = r->type;
  h.created = true;
  for (size_t i = 0; i < st.vars.size(); ++i)
    if (used.count(st.vars[i])) {
      h.vars.push_back(st.vars[i]);
      h.extents.push_back(st.extents[i]);
    }
  h.rvars = r->rvars;
  h.rextents = r->rextents;
  h.rop = r->redop;
  h.value = r->args[0];
  std::vector<lir::ExprP> idx;
  for (const auto& v : h.vars) idx.push_back(lir::var(v));
  st.value = replace_node(st.value, r, lir::load(name, h.type, idx));
  return h;
}

}  // namespace ekb::lower
