// unroll AXIS [FACTOR]: the loop is unrolled; with FACTOR below the axis's extent it is split first
// into AXIS_o and AXIS_u (tail `guard`) and AXIS_u is unrolled. Order is kept, so reduction axes may
// be unrolled. At most 64 copies; a FACTOR at least the extent unrolls the whole axis.
#include <fmt/format.h>

#include <algorithm>

#include "schedule/primitives/primitives.h"

namespace ekb::prim {

constexpr int64_t kMaxUnroll = 64;

void unroll(ScheduleContext& ctx, StageSchedule& s, const Directive& d) {
  if (!ctx.arity(d, 1, 2, 0, 0, "unroll AXIS [FACTOR]") || !ctx.dim_exists(s, d.args[0])) return;
  if (d.args.size() == 2 && !ctx.positive_int(d.args[1], "the unroll factor")) return;
  std::string axis = d.args[0].text;
  int64_t extent = ctx.nominal_extent(s, axis);
  int64_t copies = d.args.size() == 2 ? std::min<int64_t>(d.args[1].value, extent ? extent : d.args[1].value) : extent;
  if (copies > kMaxUnroll) {
    ctx.error(d.loc, fmt::format("unrolling `{}` would make {} copies of its body; at most {}", axis, copies, kMaxUnroll),
              fmt::format("give a factor: `unroll {} 8`", axis));
    return;
  }
  if (d.args.size() == 2 && d.args[1].value < extent &&
      !split_off_inner(ctx, s, axis, d.args[1].value, "unroll", "_u", d.loc))
    return;
  mark_loop(ctx, s, axis, lir::LoopKind::unrolled, d.loc);
}

}  // namespace ekb::prim
