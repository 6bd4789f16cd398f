// hoist_reduction -> NAME: the first reduction inside this stage's expression (in the order written,
// not inside a select's branch nor inside another reduction) becomes a stage NAME of its own, over
// the variables of this stage it reads; this stage reads NAME instead. NAME's reduction then has
// loops a schedule can split, bind or compute elsewhere (on a GPU, shared by a block's threads).
// The same values: the reduction is computed once per point of NAME instead of once per point of
// this stage, in the same order, in a buffer of its own type (as its accumulator was).
//   Mu[t] = (sum(d) X[t, d]) / D        with  hoist_reduction -> MuS
//   MuS[t] = sum(d) X[t, d]
//   Mu[t] = MuS[t] / D
#include <fmt/format.h>

#include "loops/hoisting.h"
#include "schedule/primitives/primitives.h"

namespace ekb::prim {

void hoist_reduction(ScheduleContext& ctx, StageSchedule& s, const Directive& d) {
  if (!ctx.arity(d, 0, 0, 1, 1, "hoist_reduction -> NAME")) return;
  lower::LStage& st = ctx.lstage(s.name);
  if (std::string problem = lower::hoist_problem(st); !problem.empty()) {
    ctx.error(d.loc, problem,
              st.has_reduction() ? "its reduction loops are already its own: split, bind or rfactor them"
                                 : "hoist_reduction applies to a stage such as `Mu[t] = (sum(d) X[t, d]) / D`");
    return;
  }
  if (!ctx.new_stage_name(d.outs[0])) return;
  lower::LStage h = *lower::hoist_first_reduction(st, d.outs[0].text);
  h.loc = d.loc;
  StageSchedule hs = initial_schedule(h);
  hs.name = h.name;
  ctx.create_stage(std::move(h), std::move(hs), s.name);
}

}  // namespace ekb::prim
