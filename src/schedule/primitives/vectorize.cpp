// vectorize AXIS [WIDTH]: the loop's iterations become SIMD lanes. With WIDTH below the axis's
// extent the axis is split first into AXIS_o and AXIS_v (tail `guard`) and AXIS_v is vectorized. Only
// pure axes: vectorizing a reduction axis would reassociate its sum (rfactor it first). At most 64
// lanes; a WIDTH at least the extent vectorizes the whole axis.
#include <fmt/format.h>

#include <algorithm>

#include "schedule/primitives/primitives.h"

namespace ekb::prim {

constexpr int64_t kMaxLanes = 64;

void vectorize(ScheduleContext& ctx, StageSchedule& s, const Directive& d) {
  if (!ctx.arity(d, 1, 2, 0, 0, "vectorize AXIS [WIDTH]") || !ctx.dim_exists(s, d.args[0])) return;
  if (d.args.size() == 2 && !ctx.positive_int(d.args[1], "the vector width")) return;
  std::string axis = d.args[0].text;
  if (s.dims[s.find_dim(axis)].reduction) {
    ctx.error(d.args[0].loc,
              fmt::format("`{}` is a reduction axis: vectorizing it would carry the accumulation across lanes", axis),
              fmt::format("vectorize a pure axis, or rfactor `{}` into its own stage first", axis));
    return;
  }
  int64_t extent = ctx.nominal_extent(s, axis);
  int64_t lanes = d.args.size() == 2 ? std::min<int64_t>(d.args[1].value, extent ? extent : d.args[1].value) : extent;
  if (lanes > kMaxLanes) {
    ctx.error(d.loc, fmt::format("vectorizing `{}` would make {} lanes; at most {} fit the vector registers", axis, lanes, kMaxLanes),
              fmt::format("give a width: `vectorize {} 16`", axis));
    return;
  }
  if (d.args.size() == 2 && d.args[1].value < extent) {
    std::string outer = axis + "_o", inner = axis + "_v";
    if (s.find_dim(outer) >= 0 || s.find_dim(inner) >= 0) {
      ctx.error(d.loc, fmt::format("`vectorize {} {}` would name its pieces `{}` and `{}`, which exist already", axis,
                                   d.args[1].value, outer, inner),
                fmt::format("split `{}` yourself and vectorize the inner piece", axis));
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
  dim.kind = lir::LoopKind::vectorized;
}

}  // namespace ekb::prim
