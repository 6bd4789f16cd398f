// split AXIS FACTOR [guard|pad|shift] -> OUTER INNER: one loop becomes two, INNER of extent FACTOR.
// Tail policy when FACTOR does not divide the extent: guard skips the overhang, pad runs it over a
// padded buffer (not on outputs, checked at lowering), shift moves the last piece inwards
// (recomputing a few points). Neither is legal on a reduction axis: the extra points would be added;
// pad is not legal on an inner piece of a split either (its overhang is not past the end).
#include <fmt/format.h>

#include <set>

#include "schedule/primitives/primitives.h"

namespace ekb::prim {

bool split_dim(ScheduleContext& ctx, StageSchedule& s, const std::string& axis, int64_t factor, Tail tail,
               const std::string& outer, const std::string& inner, Loc loc) {
  int i = s.find_dim(axis);
  LoopDim d = s.dims[i];
  if (d.kind != lir::LoopKind::serial) {
    ctx.error(loc, fmt::format("`{}` is already marked {}; split it before marking it", axis, mark_name(d.kind)),
              "put split, fuse, reorder and tile before parallel, vectorize, unroll and bind");
    return false;
  }
  if (tail == Tail::shift && d.reduction) {
    ctx.error(loc, fmt::format("`shift` would recompute the last piece of reduction axis `{}`, adding some terms twice", axis),
              "use `guard` on reduction axes");
    return false;
  }
  if (tail == Tail::pad && d.reduction) {
    ctx.error(loc, fmt::format("`pad` would run the last piece of reduction axis `{}` past its end, adding terms that are not "
                               "in the sum", axis),
              "use `guard` on reduction axes");
    return false;
  }
  if (tail == Tail::pad) {
    // The overhang of a padded loop must run past the end of the stage's domain. That holds for a
    // variable, the outer piece of a split of one, or a fuse whose outer loop is one; an inner
    // piece's overhang would run into the next outer iteration, computing those points twice.
    std::set<std::string> made, outer_made;
    for (const auto& r : s.rels) {
      if (auto* sp = std::get_if<SplitRel>(&r)) {
        made.insert({sp->outer, sp->inner});
        if (!made.count(sp->old_var) || outer_made.count(sp->old_var)) outer_made.insert(sp->outer);
      } else {
        const auto& f = std::get<FuseRel>(r);
        made.insert(f.fused);
        if (!made.count(f.outer) || outer_made.count(f.outer)) outer_made.insert(f.fused);
      }
    }
    if (made.count(axis) && !outer_made.count(axis)) {
      ctx.error(loc, fmt::format("`pad` would run `{}`, an inner piece of a split, into the next iteration of the loop outside "
                                 "it, computing those points twice", axis),
                "pad the variable before splitting it into pieces (e.g. `split m 8 pad -> mo mi` first), or use `guard` "
                "or `shift` here");
      return false;
    }
  }
  LoopDim o = d, in = d;
  o.name = outer;
  in.name = inner;
  s.dims[i] = in;
  s.dims.insert(s.dims.begin() + i, o);
  s.rels.push_back(SplitRel{axis, outer, inner, factor, tail});
  return true;
}

bool split_off_inner(ScheduleContext& ctx, StageSchedule& s, std::string& axis, int64_t factor, const char* directive,
                     const char* suffix, Loc loc) {
  std::string outer = axis + "_o", inner = axis + suffix;
  if (s.find_dim(outer) >= 0 || s.find_dim(inner) >= 0) {
    ctx.error(loc, fmt::format("`{} {} {}` would name its pieces `{}` and `{}`, which exist already", directive, axis, factor,
                               outer, inner),
              fmt::format("split `{}` yourself and {} the inner piece", axis, directive));
    return false;
  }
  if (!split_dim(ctx, s, axis, factor, Tail::guard, outer, inner, loc)) return false;
  axis = inner;
  return true;
}

void mark_loop(ScheduleContext& ctx, StageSchedule& s, const std::string& axis, lir::LoopKind kind, Loc loc) {
  LoopDim& dim = s.dims[s.find_dim(axis)];
  if (dim.kind != lir::LoopKind::serial) {
    ctx.error(loc, fmt::format("`{}` is already marked {}", axis, mark_name(dim.kind)), "mark each loop once");
    return;
  }
  dim.kind = kind;
  dim.loc = loc;
}

void split(ScheduleContext& ctx, StageSchedule& s, const Directive& d) {
  const char* usage = "split AXIS FACTOR [guard|pad|shift] -> OUTER INNER";
  if (!ctx.arity(d, 2, 3, 2, 2, usage) || !ctx.dim_exists(s, d.args[0]) || !ctx.positive_int(d.args[1], "the split factor"))
    return;
  Tail tail = Tail::guard;
  if (d.args.size() == 3 && !ctx.tail_ok(d.args[2], &tail)) return;
  if (!ctx.fresh_dims(s, d.outs)) return;
  split_dim(ctx, s, d.args[0].text, d.args[1].value, tail, d.outs[0].text, d.outs[1].text, d.loc);
}

}  // namespace ekb::prim
