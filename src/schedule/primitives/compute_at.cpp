// compute_at STAGE AXIS: compute this stage inside STAGE's loop AXIS, just the region that one
// iteration of AXIS reads (found by bounds inference at lowering). Every reader of this stage must
// run inside that loop too (checked once the whole schedule is known).
#include <fmt/format.h>

#include "schedule/primitives/primitives.h"

namespace ekb::prim {

void compute_at(ScheduleContext& ctx, StageSchedule& s, const Directive& d) {
  if (!ctx.arity(d, 2, 2, 0, 0, "compute_at STAGE AXIS") || !ctx.stage_exists(d.args[0])) return;
  if (d.args[0].text == s.name) {
    ctx.error(d.args[0].loc, fmt::format("`{}` cannot be placed inside its own loops", s.name), "name the consumer stage");
    return;
  }
  const StageSchedule& target = *ctx.sched.find(d.args[0].text);
  if (!ctx.dim_exists(target, d.args[1])) return;
  if (ctx.lstage(s.name).is_output) {
    ctx.error(d.loc, fmt::format("`{}` is an output; outputs are computed at the root", s.name),
              fmt::format("compute the stages `{}` reads at `{}` instead", s.name, s.name));
    return;
  }
  s.compute = StageSchedule::Compute::at;
  s.at_stage = d.args[0].text;
  s.at_dim = d.args[1].text;
}

}  // namespace ekb::prim
