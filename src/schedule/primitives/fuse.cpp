// fuse OUTER INNER -> FUSED: two adjacent loops become one. Both must be pure or both reduction: a
// loop mixing them would leave no place to set the reduction's initial value.
#include <fmt/format.h>

#include "schedule/primitives/primitives.h"
#include "util/strings.h"

namespace ekb::prim {

void fuse(ScheduleContext& ctx, StageSchedule& s, const Directive& d) {
  if (!ctx.arity(d, 2, 2, 1, 1, "fuse OUTER INNER -> FUSED") || !ctx.dim_exists(s, d.args[0]) || !ctx.dim_exists(s, d.args[1]))
    return;
  int a = s.find_dim(d.args[0].text), b = s.find_dim(d.args[1].text);
  if (b != a + 1) {
    std::vector<std::string> axes;
    for (const auto& x : s.dims) axes.push_back(x.name);
    ctx.error(d.loc, fmt::format("`fuse {} {}` needs `{}` directly outside `{}`", d.args[0].text, d.args[1].text, d.args[0].text,
                                 d.args[1].text),
              fmt::format("the axes of `{}` are now {}; reorder them first", s.name, quoted_list(axes)));
    return;
  }
  if (s.dims[a].reduction != s.dims[b].reduction) {
    ctx.error(d.loc, fmt::format("`{}` is a reduction axis and `{}` is not; a fused loop cannot be both",
                                 s.dims[a].reduction ? d.args[0].text : d.args[1].text,
                                 s.dims[a].reduction ? d.args[1].text : d.args[0].text),
              "fuse pure axes with pure axes and reduction axes with reduction axes");
    return;
  }
  if (s.dims[a].kind != lir::LoopKind::serial || s.dims[b].kind != lir::LoopKind::serial) {
    ctx.error(d.loc, "fuse loops before marking them parallel, vectorized, unrolled or bound",
              "put fuse before parallel, vectorize, unroll and bind");
    return;
  }
  if (!ctx.fresh_dims(s, d.outs)) return;
  s.dims[a].name = d.outs[0].text;
  s.dims.erase(s.dims.begin() + b);
  s.rels.push_back(FuseRel{d.args[0].text, d.args[1].text, d.outs[0].text});
}

}  // namespace ekb::prim
