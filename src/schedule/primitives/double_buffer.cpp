// double_buffer CACHE: two copies of a shared-memory cache made by cache_read ... shared at AXIS, so
// that the next panel is on its way while this one is used: each thread loads its part of step
// i + 1 into registers before step i's work and stores it into the other copy after it (one barrier
// per step). The rewrite itself is lowering's (lower/double_buffer.h). A GPU technique: on cpu the
// hardware prefetcher does this job, and the directive is rejected there.
#include <fmt/format.h>

#include "schedule/primitives/primitives.h"

namespace ekb::prim {

void double_buffer(ScheduleContext& ctx, StageSchedule& s, const Directive& d) {
  if (!ctx.arity(d, 1, 1, 0, 0, "double_buffer CACHE")) return;
  StageSchedule* c = ctx.sched.find(d.args[0].text);
  int g = ctx.graph.find(d.args[0].text);
  if (!c || g < 0 || !ctx.graph.stages[g].created) {
    ctx.error(d.args[0].loc, fmt::format("`{}` is not a buffer made by cache_read", d.args[0].text),
              "double-buffer a cache, e.g. `cache_read A shared at ko -> As; double_buffer As`");
    return;
  }
  if (ctx.sched.backend() == Backend::cpu) {
    ctx.error(d.loc, "double_buffer is for GPU shared-memory caches; the cpu backend does not implement it",
              "remove it from `memory cpu`; keep it for `memory cuda` / `memory opencl`");
    return;
  }
  if (c->scope != lir::MemScope::shared || c->compute != StageSchedule::Compute::at) {
    ctx.error(d.args[0].loc, fmt::format("`{}` is not a shared-memory cache copied inside a loop", d.args[0].text),
              fmt::format("make it one first: `cache_read TENSOR shared at AXIS -> {}`, then `double_buffer {}`", d.args[0].text,
                          d.args[0].text));
    return;
  }
  if (c->double_buffered) {
    ctx.error(d.loc, fmt::format("`{}` is already double-buffered", d.args[0].text), "remove the second double_buffer");
    return;
  }
  c->double_buffered = true;
  (void)s;
}

}  // namespace ekb::prim
