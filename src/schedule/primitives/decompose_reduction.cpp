// decompose_reduction AXIS: set the reduction's initial value just inside loop AXIS (by default it is
// set just outside the outermost reduction loop). AXIS must be outside every reduction loop, which
// is checked once the whole schedule is known (a later reorder could move one outside it).
#include <fmt/format.h>

#include "schedule/primitives/primitives.h"

namespace ekb::prim {

void decompose_reduction(ScheduleContext& ctx, StageSchedule& s, const Directive& d) {
  if (!ctx.arity(d, 1, 1, 0, 0, "decompose_reduction AXIS") || !ctx.dim_exists(s, d.args[0])) return;
  if (!ctx.lstage(s.name).has_reduction()) {
    ctx.error(d.loc, fmt::format("`{}` has no reduction to decompose", s.name),
              "decompose_reduction applies to a stage with sum/max/min/prod");
    return;
  }
  s.init_dim = d.args[0].text;
}

}  // namespace ekb::prim
