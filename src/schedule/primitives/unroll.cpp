// unroll AXIS [FACTOR]: the loop is unrolled; with FACTOR below the axis's extent it is split first
// into AXIS_o and AXIS_u (tail `guard`) and AXIS_u is unrolled. Order is kept, so reduction axes may
// be unrolled.
#include <fmt/format.h>

#include "schedule/primitives/primitives.h"

namespace ekb::prim {

void unroll(ScheduleContext& ctx, StageSchedule& s, const Directive& d) {
  if (!ctx.arity(d, 1, 2, 0, 0, "unroll AXIS [FACTOR]") || !ctx.dim_exists(s, d.args[0])) return;
  if (d.args.size() == 2 && !ctx.positive_int(d.args[1], "the unroll factor")) return;
  std::string axis = d.args[0].text;
  if (d.args.size() == 2) {
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
    ctx.error(d.loc, fmt::format("`{}` is already marked `{}`", axis, lir::loop_kind_name(dim.kind)), "mark each loop once");
    return;
  }
  dim.kind = lir::LoopKind::unrolled;
}

}  // namespace ekb::prim
