// parallel AXIS: the loop's iterations run on several threads. Only pure axes: threads sharing a
// reduction axis would add into the same output (rfactor the axis into its own stage first).
#include <fmt/format.h>

#include "schedule/primitives/primitives.h"

namespace ekb::prim {

void parallel(ScheduleContext& ctx, StageSchedule& s, const Directive& d) {
  if (!ctx.arity(d, 1, 1, 0, 0, "parallel AXIS") || !ctx.dim_exists(s, d.args[0])) return;
  LoopDim& dim = s.dims[s.find_dim(d.args[0].text)];
  if (dim.reduction) {
    ctx.error(d.args[0].loc,
              fmt::format("`{}` is a reduction axis: in parallel, several threads would add into the same element of `{}`",
                          dim.name, s.name),
              fmt::format("rfactor it first (`memory {}`: `{}: rfactor {} -> {}_part`) and parallelize the new stage",
                          backend_name(ctx.sched.backend()), s.name, dim.name, s.name));
    return;
  }
  if (ctx.sched.backend() != Backend::cpu) {
    ctx.error(d.loc, "`parallel` is for the cpu backend; GPU loops are bound to blocks and threads",
              "use `bind AXIS block.x` or `bind AXIS thread.x`");
    return;
  }
  if (dim.kind != lir::LoopKind::serial) {
    ctx.error(d.loc, fmt::format("`{}` is already marked {}", dim.name, mark_name(dim.kind)), "mark each loop once");
    return;
  }
  dim.kind = lir::LoopKind::parallel;
}

}  // namespace ekb::prim
