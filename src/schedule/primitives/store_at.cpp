// store_at STAGE AXIS: allocate this stage's buffer at STAGE's loop AXIS (by default it is allocated
// where it is computed); the buffer then holds what every computation inside AXIS needs.
#include <fmt/format.h>

#include "schedule/primitives/primitives.h"

namespace ekb::prim {

void store_at(ScheduleContext& ctx, StageSchedule& s, const Directive& d) {
  if (!ctx.arity(d, 2, 2, 0, 0, "store_at STAGE AXIS") || !ctx.stage_exists(d.args[0])) return;
  if (d.args[0].text == s.name) {
    ctx.error(d.args[0].loc, fmt::format("`{}` cannot be stored inside its own loops", s.name), "name the consumer stage");
    return;
  }
  if (!ctx.dim_exists(*ctx.sched.find(d.args[0].text), d.args[1])) return;
  if (ctx.lstage(s.name).is_output) {
    ctx.error(d.loc, fmt::format("`{}` is an output; its buffer is the kernel's argument", s.name), "remove the directive");
    return;
  }
  s.store_stage = d.args[0].text;
  s.store_dim = d.args[1].text;
}

}  // namespace ekb::prim
