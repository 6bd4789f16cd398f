// reorder A B C ...: the listed loops take the listed order (outermost first) in the positions they
// occupy. Reduction loops may move freely among pure loops: each output's accumulation still runs
// over its terms in order, and the initial value is placed outside the outermost reduction loop.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "schedule/primitives/primitives.h"

namespace ekb::prim {

void reorder(ScheduleContext& ctx, StageSchedule& s, const Directive& d) {
  if (d.args.size() < 2 || !d.outs.empty()) {
    ctx.error(d.loc, "`reorder` lists two or more axes, outermost first", "write `reorder ko m n ki`");
    return;
  }
  std::vector<int> slots;
  std::set<std::string> names;
  for (const auto& a : d.args) {
    if (!ctx.dim_exists(s, a)) return;
    if (!names.insert(a.text).second) {
      ctx.error(a.loc, fmt::format("`{}` appears twice in `reorder`", a.text), "list each axis once, outermost first");
      return;
    }
    slots.push_back(s.find_dim(a.text));
  }
  std::vector<LoopDim> moved;
  for (const auto& a : d.args) moved.push_back(s.dims[s.find_dim(a.text)]);
  std::sort(slots.begin(), slots.end());
  for (size_t i = 0; i < slots.size(); ++i) s.dims[slots[i]] = moved[i];
}

}  // namespace ekb::prim
