// bind AXIS block.x|y|z|thread.x|y|z: a loop runs as GPU blocks or threads. Parsed and checked on
// every backend, rejected on cpu, which has neither. A reduction axis may be bound to threads: the
// threads of a block each reduce a part and combine their partials (lowering, realize.cpp).
#include <fmt/format.h>

#include <algorithm>

#include "schedule/primitives/primitives.h"
#include "util/strings.h"

namespace ekb::prim {

void bind(ScheduleContext& ctx, StageSchedule& s, const Directive& d) {
  if (!ctx.arity(d, 2, 2, 0, 0, "bind AXIS block.x|block.y|block.z|thread.x|thread.y|thread.z")) return;
  if (ctx.sched.backend() == Backend::cpu) {
    ctx.error(d.loc, "`bind` maps loops to GPU blocks and threads; the cpu backend has none",
              "use `parallel AXIS` on cpu, and keep `bind` for `schedule cuda` / `schedule opencl`");
    return;
  }
  if (!ctx.dim_exists(s, d.args[0])) return;
  static const std::vector<std::string> targets = {"block.x", "block.y", "block.z", "thread.x", "thread.y", "thread.z"};
  auto it = std::find(targets.begin(), targets.end(), d.args[1].text);
  if (it == targets.end()) {
    ctx.error(d.args[1].loc, fmt::format("unknown bind target `{}`", d.args[1].text), "targets: " + quoted_list(targets, "or"));
    return;
  }
  LoopDim& dim = s.dims[s.find_dim(d.args[0].text)];
  int index = static_cast<int>(it - targets.begin());
  if (dim.reduction && index < 3) {
    ctx.error(d.args[0].loc, fmt::format("`{}` is a reduction axis: blocks would add into the same element, and the threads "
                                         "of different blocks cannot combine their partial results", dim.name),
              fmt::format("bind it to a thread axis (`bind {} thread.x`: a cross-thread reduction within a block), or rfactor "
                          "it into its own stage first", dim.name));
    return;
  }
  if (dim.kind != lir::LoopKind::serial) {
    ctx.error(d.loc, fmt::format("`{}` is already marked {}", dim.name, mark_name(dim.kind)), "mark each loop once");
    return;
  }
  dim.kind = index < 3 ? lir::LoopKind::gpu_block : lir::LoopKind::gpu_thread;
  dim.gpu_axis = index % 3;
  dim.loc = d.loc;
}

}  // namespace ekb::prim
