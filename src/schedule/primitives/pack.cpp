// pack TENSOR DIM FACTOR [-> NAME]: a new stage NAME stores TENSOR with dimension DIM cut into panels
// of FACTOR, the panel index first and the position within the panel last (B[k, n] becomes
// NAME[n / 16, k, n % 16] for `pack B 1 16`), so that this stage reads a panel contiguously.
// Computed once at the root unless NAME is given compute_at; NAME's loops are `ax0, ax1, ...`.
#include <fmt/format.h>

#include "schedule/primitives/primitives.h"

namespace ekb::prim {

void pack(ScheduleContext& ctx, StageSchedule& s, const Directive& d) {
  const char* usage = "pack TENSOR DIM FACTOR [-> NAME]";
  if (!ctx.arity(d, 3, 3, 0, 1, usage)) return;
  lower::LStage& st = ctx.lstage(s.name);
  const std::string& tensor = d.args[0].text;
  if (!lower::reads(st.value, tensor)) {
    ctx.error(d.args[0].loc, fmt::format("`{}` does not read `{}`", s.name, tensor), "pack a tensor the stage reads");
    return;
  }
  std::vector<int64_t> shape = ctx.graph.shape_of(tensor);
  int rank = static_cast<int>(shape.size());
  if (!d.args[1].is_int || d.args[1].value < 0 || d.args[1].value >= rank) {
    ctx.error(d.args[1].loc, fmt::format("`{}` has dimensions 0..{}; `{}` is not one of them", tensor, rank - 1, d.args[1].text),
              usage);
    return;
  }
  if (!ctx.positive_int(d.args[2], "the panel width")) return;
  DirectiveArg name = d.outs.empty() ? DirectiveArg{tensor + "_packed", d.loc} : d.outs[0];
  if (!ctx.new_stage_name(name)) return;
  int dim = static_cast<int>(d.args[1].value);
  int64_t f = d.args[2].value, size = shape[dim], panels = (size + f - 1) / f;
  lower::LStage c;
  c.name = name.text;
  c.type = ctx.graph.type_of(tensor);
  c.created = true;
  c.loc = d.loc;
  // Variables: ax0 = panel, then the other dimensions in order, then the position within the panel.
  c.vars.push_back("ax0");
  c.extents.push_back(panels);
  std::vector<lir::ExprP> src(shape.size());
  int next = 1;
  for (int k = 0; k < rank; ++k) {
    if (k == dim) continue;
    c.vars.push_back(fmt::format("ax{}", next++));
    c.extents.push_back(shape[k]);
    src[k] = lir::var(c.vars.back());
  }
  c.vars.push_back(fmt::format("ax{}", next));
  c.extents.push_back(f);
  lir::ExprP pos = lir::add(lir::mul(lir::var("ax0"), lir::int_imm(f)), lir::var(c.vars.back()));
  src[dim] = pos;
  c.value = lir::load(tensor, c.type, src);
  if (size % f != 0) {
    lir::ExprP zero = is_float(c.type) ? lir::float_imm(0, c.type) : lir::int_imm(0, c.type);
    c.value = lir::select(lir::lt(pos, lir::int_imm(size)), c.value, zero);
  }
  st.value = lower::replace_loads(st.value, tensor, [&](const std::vector<lir::ExprP>& i) {
    std::vector<lir::ExprP> idx = {lir::floordiv(i[dim], lir::int_imm(f))};
    for (int k = 0; k < rank; ++k)
      if (k != dim) idx.push_back(i[k]);
    idx.push_back(lir::floormod(i[dim], lir::int_imm(f)));
    return lir::load(c.name, c.type, idx);
  });
  StageSchedule cs = initial_schedule(c);
  std::string consumer = s.name;
  ctx.create_stage(std::move(c), std::move(cs), consumer);
}

}  // namespace ekb::prim
