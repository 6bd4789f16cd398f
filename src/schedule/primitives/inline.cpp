// inline: an intermediate stage gets no loops and no buffer; every read of it is replaced by its
// expression (a reduction becomes a nested reduction, recomputed at each read). Outputs are stored.
#include <fmt/format.h>

#include "loops/graph.h"
#include "schedule/primitives/primitives.h"

namespace ekb::prim {

void inline_stage(ScheduleContext& ctx, StageSchedule& s, const Directive& d) {
  if (!ctx.arity(d, 0, 0, 0, 0, "inline")) return;
  lower::LStage& st = ctx.lstage(s.name);
  if (st.is_output) {
    ctx.error(d.loc, fmt::format("`{}` is an output and must be stored; it cannot be inlined", s.name),
              "inline the intermediate stages it reads instead");
    return;
  }
  if (st.created) {
    ctx.error(d.loc, fmt::format("`{}` was created by a memory directive and cannot be inlined", s.name),
              "remove the directive that creates it instead");
    return;
  }
  if (s.has_l1) {
    ctx.error(d.loc, fmt::format("`{}` has schedule directives, but an inlined stage has no loops of its own", s.name),
              fmt::format("remove `{}`'s lines from the schedule section, or do not inline it", s.name));
    return;
  }
  lower::LStage producer = st;
  std::string name = s.name;
  int site = 0;
  for (auto& c : ctx.graph.stages) {
    if (c.name == name) continue;
    c.value = lower::replace_loads(c.value, name, [&](const std::vector<lir::ExprP>& idx) {
      std::string suffix = fmt::format("_{}{}", name, site++);
      std::vector<std::pair<std::string, lir::ExprP>> map;
      for (size_t k = 0; k < producer.vars.size(); ++k) map.push_back({producer.vars[k], idx[k]});
      lir::ExprP body = producer.value;
      if (producer.has_reduction()) {
        std::vector<std::string> rv;
        for (const auto& v : producer.rvars) {
          rv.push_back(v + suffix);
          map.push_back({v, lir::var(v + suffix)});
        }
        body = lir::reduce(producer.rop, rv, producer.rextents, lower::substitute(lower::rename_reduction_vars(body, suffix), map));
        return body;
      }
      return lower::substitute(lower::rename_reduction_vars(body, suffix), map);
    });
  }
  ctx.graph.stages.erase(ctx.graph.stages.begin() + ctx.graph.find(name));
  ctx.sched.stages.erase(name);
}

}  // namespace ekb::prim
