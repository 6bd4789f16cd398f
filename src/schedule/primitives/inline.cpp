// inline: an intermediate stage gets no loops and no buffer; every read of it is replaced by its
// expression (a reduction becomes a nested reduction, recomputed at each read). Outputs are stored.
#include <fmt/format.h>

#include "loops/graph.h"
#include "loops/inlining.h"
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
  // The readers grow by this stage's expression at each read: refused when one would nest deeper,
  // or hold more, than lowered expressions may (ir/limits.h).
  lower::LStage producer = st;
  std::vector<std::pair<int, lir::ExprP>> inlined;
  int site = 0;
  std::string problem = lower::try_inline(ctx.graph, producer, site, &inlined);
  if (!problem.empty()) {
    ctx.error(d.loc, fmt::format("`{}` cannot be inlined: {}", s.name, problem),
              fmt::format("keep `{}` as a stage of its own (remove `inline`, or compute it inside its reader with "
                          "`compute_at`), or inline fewer of the stages it reads",
                          s.name));
    return;
  }
  std::string name = s.name;
  for (auto& [i, v] : inlined) ctx.graph.stages[i].value = std::move(v);
  ctx.graph.stages.erase(ctx.graph.stages.begin() + ctx.graph.find(name));
  ctx.sched.stages.erase(name);
}

}  // namespace ekb::prim
