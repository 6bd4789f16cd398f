// cache_write SCOPE [at AXIS] [-> NAME]: a new stage NAME takes this stage's computation (its
// reduction included) and writes into SCOPE, computed at this stage's loop AXIS; this stage becomes
// the copy of NAME into its own buffer. NAME starts with this stage's loops and splits; this stage
// keeps only its pure loops. On GPU backends, a cache computed at an axis starts from plain loops
// instead (see below).
#include <fmt/format.h>

#include <set>

#include "schedule/primitives/primitives.h"

namespace ekb::prim {

namespace {
// The variables a split/fuse relation touches.
std::vector<std::string> rel_vars(const LoopRel& r) {
  if (auto* s = std::get_if<SplitRel>(&r)) return {s->old_var, s->outer, s->inner};
  const auto& f = std::get<FuseRel>(r);
  return {f.outer, f.inner, f.fused};
}
}  // namespace

void cache_write(ScheduleContext& ctx, StageSchedule& s, const Directive& d) {
  const char* usage = "cache_write SCOPE [at AXIS] [-> NAME]";
  if (!ctx.arity(d, 1, 3, 0, 1, usage)) return;
  lir::MemScope scope;
  std::string at;
  if (!ctx.scope_ok(d.args[0], &scope) || !ctx.at_clause(s, d, 1, usage, &at)) return;
  if (!at.empty() && s.dims[s.find_dim(at)].reduction) {
    ctx.error(d.args[2].loc, fmt::format("`{}` is a reduction axis; the copy back into `{}` has no reduction loops", at, s.name),
              "cache at a pure axis outside the reduction loops");
    return;
  }
  DirectiveArg name = d.outs.empty() ? DirectiveArg{s.name + "_" + d.args[0].text, d.loc} : d.outs[0];
  if (!ctx.new_stage_name(name)) return;
  lower::LStage& st = ctx.lstage(s.name);
  lower::LStage c = st;
  c.name = name.text;
  c.is_output = false;
  c.created = true;
  c.loc = d.loc;
  std::vector<lir::ExprP> idx;
  for (const auto& v : st.vars) idx.push_back(lir::var(v));
  st.value = lir::load(c.name, c.type, idx);
  st.rvars.clear();
  st.rextents.clear();
  StageSchedule cs = s;
  cs.name = c.name;
  cs.compute = at.empty() ? StageSchedule::Compute::root : StageSchedule::Compute::at;
  cs.at_stage = at.empty() ? "" : s.name;
  cs.at_dim = at;
  cs.store_stage.clear();
  cs.store_dim.clear();
  cs.scope = scope;
  if (!at.empty())
    for (auto& dim : cs.dims)  // it runs inside one iteration of this stage's loops: no nested parallel loops
      if (dim.kind == lir::LoopKind::parallel) dim.kind = lir::LoopKind::serial;
  if (!at.empty() && ctx.sched.backend() != Backend::cpu) {
    // GPU: computed inside one thread's (or block's) iteration, the cache starts from the stage's
    // plain loops (its variables, then the reduction's), not from the splits and bindings that
    // spread the whole stage over blocks and threads: those would cover the small region many times.
    StageSchedule fresh = initial_schedule(c);
    fresh.name = cs.name;
    fresh.compute = cs.compute;
    fresh.at_stage = cs.at_stage;
    fresh.at_dim = cs.at_dim;
    fresh.scope = cs.scope;
    cs = std::move(fresh);
  }
  // This stage keeps its pure loops and the relations between them (those not touching a reduction
  // variable or a piece of one, however many splits and fuses away).
  std::set<std::string> reduction_names = derived_names({c.rvars.begin(), c.rvars.end()}, s.rels);
  std::vector<LoopDim> dims;
  for (const auto& dim : s.dims)
    if (!dim.reduction) dims.push_back(dim);
  std::vector<LoopRel> rels;
  for (const auto& r : s.rels) {
    bool touches = false;
    for (const auto& v : rel_vars(r)) touches = touches || reduction_names.count(v) > 0;
    if (!touches) rels.push_back(r);
  }
  s.dims = std::move(dims);
  s.rels = std::move(rels);
  s.init_dim.clear();
  std::string consumer = s.name;
  ctx.create_stage(std::move(c), std::move(cs), consumer);
}

}  // namespace ekb::prim
