// cache_read TENSOR SCOPE [at AXIS] [-> NAME]: a new stage NAME copies the part of TENSOR this stage
// reads into SCOPE, computed at this stage's loop AXIS (or once, at the root); this stage then reads
// NAME. NAME's loops are `ax0, ax1, ...`, one per dimension.
#include <fmt/format.h>

#include "schedule/primitives/primitives.h"
#include "util/strings.h"

namespace ekb::prim {

void cache_read(ScheduleContext& ctx, StageSchedule& s, const Directive& d) {
  const char* usage = "cache_read TENSOR SCOPE [at AXIS] [-> NAME]";
  if (!ctx.arity(d, 2, 4, 0, 1, usage)) return;
  lower::LStage& st = ctx.lstage(s.name);
  const std::string& tensor = d.args[0].text;
  if (!lower::reads(st.value, tensor)) {
    std::vector<std::string> reads;
    for (const auto& t : ctx.graph.inputs)
      if (lower::reads(st.value, t.name)) reads.push_back(t.name);
    for (const auto& t : ctx.graph.stages)
      if (lower::reads(st.value, t.name)) reads.push_back(t.name);
    ctx.error(d.args[0].loc, fmt::format("`{}` does not read `{}`", s.name, tensor),
              reads.empty() ? std::string("this stage reads no tensor") : "it reads " + quoted_list(reads));
    return;
  }
  lir::MemScope scope;
  std::string at;
  if (!ctx.scope_ok(d.args[1], &scope) || !ctx.at_clause(s, d, 2, usage, &at)) return;
  DirectiveArg name = d.outs.empty() ? DirectiveArg{tensor + "_" + d.args[1].text, d.loc} : d.outs[0];
  if (!ctx.new_stage_name(name)) return;
  lower::LStage c;
  c.name = name.text;
  c.type = ctx.graph.type_of(tensor);
  c.created = true;
  c.extents = ctx.graph.shape_of(tensor);
  std::vector<lir::ExprP> idx;
  for (size_t k = 0; k < c.extents.size(); ++k) {
    c.vars.push_back(fmt::format("ax{}", k));
    idx.push_back(lir::var(c.vars.back()));
  }
  c.value = lir::load(tensor, c.type, idx);
  c.loc = d.loc;
  st.value = lower::replace_loads(st.value, tensor, [&](const std::vector<lir::ExprP>& i) { return lir::load(c.name, c.type, i); });
  StageSchedule cs = initial_schedule(c);
  cs.scope = scope;
  if (!at.empty()) {
    cs.compute = StageSchedule::Compute::at;
    cs.at_stage = s.name;
    cs.at_dim = at;
  }
  std::string consumer = s.name;
  ctx.create_stage(std::move(c), std::move(cs), consumer);
}

}  // namespace ekb::prim
