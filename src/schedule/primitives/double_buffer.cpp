// double_buffer CACHE: alternate two copies of a cache_read buffer so the next tile loads while the
// current one is used. A GPU technique (shared memory filled by the threads of a block); on cpu the
// hardware prefetcher does this job. The GPU lowering does not implement it yet (the copies would
// need software pipelining), so it is rejected on every backend rather than silently ignored.
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
  ctx.error(d.loc, "double_buffer is not implemented yet: the GPU lowering would still load one tile at a time",
            "remove it; a cache_read shared at the k loop is single-buffered, with a barrier after each load");
  (void)c;
  (void)s;
}

}  // namespace ekb::prim
