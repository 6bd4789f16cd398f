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
  if (d.args.size() == 2 && d.args[1].value < extent) {
    std::string outer = axis + "_o", inner = axis + "_u";
    if (s.find_dim(outer) >= 0 || s.find_dim(inner) >= 0) {
      ctx.error(d.loc, fmt::format("`unroll {} {}` would name its pieces `{}` and `{}`, which exist already", axis,
                                   d.args[1].value, outer, inner),
                fmt::format("split `{}` yourself and unroll the inner piece", axis));
      return;
    }
    if (!split_dim(ctx, s, axis, d.args[1].value, Tail::guard, outer, inner, d.loc)) return;
    axis = inner;
  }
  LoopDim& dim = s.dims[s.find_dim(axis)];
  if (dim.kind != lir::LoopKind::serial) {
    ctx.error(d.loc, fmt::format("`{}` is already marked {}", axis, mark_name(dim.kind)), "mark each loop once");
    return;
  }
  dim.kind = lir::LoopKind::unrolled;
}

}  // namespace ekb::prim
