// tile X Y FX FY [policy] -> XO YO XI YI: split both loops and order the pieces XO YO XI YI where the
// outer of X and Y stood.
#include "schedule/primitives/primitives.h"

namespace ekb::prim {

void tile(ScheduleContext& ctx, StageSchedule& s, const Directive& d) {
  const char* usage = "tile X Y FX FY [guard|pad|shift] -> XO YO XI YI";
  if (!ctx.arity(d, 4, 5, 4, 4, usage) || !ctx.dim_exists(s, d.args[0]) || !ctx.dim_exists(s, d.args[1]) ||
      !ctx.positive_int(d.args[2], "a tile size") || !ctx.positive_int(d.args[3], "a tile size"))
    return;
  if (d.args[0].text == d.args[1].text) {
    ctx.error(d.args[1].loc, "`tile` needs two different axes", usage);
    return;
  }
  Tail tail = Tail::guard;
  if (d.args.size() == 5 && !ctx.tail_ok(d.args[4], &tail)) return;
  if (!ctx.fresh_dims(s, d.outs)) return;
  int first = std::min(s.find_dim(d.args[0].text), s.find_dim(d.args[1].text));
  if (!split_dim(ctx, s, d.args[0].text, d.args[2].value, tail, d.outs[0].text, d.outs[2].text, d.loc)) return;
  if (!split_dim(ctx, s, d.args[1].text, d.args[3].value, tail, d.outs[1].text, d.outs[3].text, d.loc)) return;
  // Gather the four pieces at the first position, in tile order.
  std::vector<LoopDim> pieces;
  for (int k : {0, 1, 2, 3}) {
    int i = s.find_dim(d.outs[k].text);
    pieces.push_back(s.dims[i]);
    s.dims.erase(s.dims.begin() + i);
  }
  s.dims.insert(s.dims.begin() + first, pieces.begin(), pieces.end());
}

}  // namespace ekb::prim
