// rfactor AXIS -> NAME: turn reduction axis AXIS into a pure axis of a new stage NAME that holds the
// partial results (so AXIS can run in parallel or in SIMD lanes); this stage then reduces NAME over
// AXIS. AXIS is one of the stage's reduction variables, or a piece of one split of one.
//   Y[m] = sum(k) body          with  split k F -> ko ki;  rfactor ki -> Yp
//   Yp[m, ki] = sum(ko) select(ko * F + ki < K, body(k = ko * F + ki), 0)
//   Y[m] = sum(ki) Yp[m, ki]
#include <fmt/format.h>

#include <cmath>
#include <set>

#include "schedule/primitives/primitives.h"

namespace ekb::prim {

namespace {

lir::ExprP identity(ReduceOp op, DType t) {
  switch (op) {
    case ReduceOp::sum: return is_float(t) ? lir::float_imm(0, t) : lir::int_imm(0, t);
    case ReduceOp::prod: return is_float(t) ? lir::float_imm(1, t) : lir::int_imm(1, t);
    case ReduceOp::max: return is_float(t) ? lir::float_imm(-INFINITY, t) : lir::int_imm(int_min(t), t);
    case ReduceOp::min: return is_float(t) ? lir::float_imm(INFINITY, t) : lir::int_imm(int_max(t), t);
  }
  return lir::int_imm(0, t);
}

}  // namespace

void rfactor(ScheduleContext& ctx, StageSchedule& s, const Directive& d) {
  if (!ctx.arity(d, 1, 1, 1, 1, "rfactor AXIS -> NAME") || !ctx.dim_exists(s, d.args[0])) return;
  lower::LStage& st = ctx.lstage(s.name);
  const std::string& axis = d.args[0].text;
  if (!st.has_reduction() || !s.dims[s.find_dim(axis)].reduction) {
    ctx.error(d.args[0].loc, fmt::format("`{}` is not a reduction axis of `{}`", axis, s.name),
              "rfactor applies to an axis of a stage's sum/max/min/prod");
    return;
  }
  if (!ctx.new_stage_name(d.outs[0])) return;
  // Which reduction variable AXIS is, or which split made it.
  int rv = -1;
  const SplitRel* split = nullptr;
  int split_index = -1;
  for (size_t k = 0; k < st.rvars.size(); ++k)
    if (st.rvars[k] == axis) rv = static_cast<int>(k);
  for (size_t r = 0; r < s.rels.size() && rv < 0; ++r)
    if (auto* sp = std::get_if<SplitRel>(&s.rels[r]); sp && (sp->outer == axis || sp->inner == axis))
      for (size_t k = 0; k < st.rvars.size(); ++k)
        if (st.rvars[k] == sp->old_var) {
          rv = static_cast<int>(k);
          split = sp;
          split_index = static_cast<int>(r);
        }
  // Other relations on the same variable's pieces are not supported.
  bool simple = rv >= 0;
  for (size_t r = 0; r < s.rels.size() && simple; ++r) {
    if (static_cast<int>(r) == split_index) continue;
    std::vector<std::string> names;
    if (auto* sp = std::get_if<SplitRel>(&s.rels[r])) names = {sp->old_var};
    else names = {std::get<FuseRel>(s.rels[r]).outer, std::get<FuseRel>(s.rels[r]).inner};
    for (const auto& n : names)
      if (n == st.rvars[rv] || (split && (n == split->outer || n == split->inner))) simple = false;
  }
  if (!simple) {
    ctx.error(d.args[0].loc,
              fmt::format("rfactor needs `{}` to be a reduction variable of `{}` or a piece of a single split of one", axis, s.name),
              "split the reduction variable once (e.g. `split k 16 -> ko ki`) and rfactor one of its two pieces");
    return;
  }
  const std::vector<std::string> original_rvars = st.rvars;
  const std::string r_name = st.rvars[rv];
  const int64_t r_extent = st.rextents[rv];
  lower::LStage part = st;
  part.name = d.outs[0].text;
  part.is_output = false;
  part.created = true;
  part.loc = d.loc;
  part.rvars.clear();
  part.rextents.clear();
  for (size_t k = 0; k < st.rvars.size(); ++k)
    if (static_cast<int>(k) != rv) {
      part.rvars.push_back(st.rvars[k]);
      part.rextents.push_back(st.rextents[k]);
    }
  int64_t axis_extent = r_extent;
  if (split) {
    int64_t f = split->factor, outer_extent = (r_extent + f - 1) / f;
    std::string other = split->outer == axis ? split->inner : split->outer;
    axis_extent = split->outer == axis ? outer_extent : f;
    part.rvars.push_back(other);
    part.rextents.push_back(split->outer == axis ? f : outer_extent);
    lir::ExprP k = lir::add(lir::mul(lir::var(split->outer), lir::int_imm(f)), lir::var(split->inner));
    part.value = lower::substitute(st.value, {{r_name, k}});
    if (r_extent % f != 0) part.value = lir::select(lir::lt(k, lir::int_imm(r_extent)), part.value, identity(st.rop, st.type));
  }
  part.vars.push_back(axis);
  part.extents.push_back(axis_extent);
  // This stage now reduces the partial results over AXIS.
  std::vector<lir::ExprP> idx;
  for (const auto& v : st.vars) idx.push_back(lir::var(v));
  idx.push_back(lir::var(axis));
  st.rvars = {axis};
  st.rextents = {axis_extent};
  st.value = lir::load(part.name, part.type, idx);
  // Schedules: NAME keeps the loops with AXIS made pure and the split (now its variables) dropped;
  // this stage keeps its pure loops and gets AXIS as its reduction loop.
  StageSchedule ps = s;
  ps.name = part.name;
  ps.compute = StageSchedule::Compute::root;
  ps.at_stage.clear();
  ps.at_dim.clear();
  ps.init_dim.clear();
  ps.dims[ps.find_dim(axis)].reduction = false;
  if (split) ps.rels.erase(ps.rels.begin() + split_index);
  std::vector<LoopDim> dims;
  for (const auto& dim : s.dims)
    if (!dim.reduction) dims.push_back(dim);
  dims.push_back({axis, true});
  // It keeps the relations among its pure loops only: those touching any reduction variable or a
  // piece of one (the other variables' splits and fuses now belong to NAME) are dropped.
  std::set<std::string> reduction_names = derived_names({original_rvars.begin(), original_rvars.end()}, s.rels);
  std::vector<LoopRel> rels;
  for (const auto& r : s.rels) {
    bool on_reduction = false;
    if (auto* sp = std::get_if<SplitRel>(&r)) on_reduction = reduction_names.count(sp->old_var) > 0;
    else on_reduction = reduction_names.count(std::get<FuseRel>(r).outer) > 0;
    if (!on_reduction) rels.push_back(r);
  }
  s.dims = std::move(dims);
  s.rels = std::move(rels);
  s.init_dim.clear();
  std::string consumer = s.name;
  ctx.create_stage(std::move(part), std::move(ps), consumer);
}

}  // namespace ekb::prim
