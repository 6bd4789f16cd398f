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
  if (d.args.size() == 2 && d.args[1].value < extent &&
      !split_off_inner(ctx, s, axis, d.args[1].value, "vectorize", "_v", d.loc))
    return;
  mark_loop(ctx, s, axis, lir::LoopKind::vectorized, d.loc);
}

}  // namespace ekb::prim
