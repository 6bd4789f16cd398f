// The replay of L1/L2 sections: argument helpers shared by the primitives, the order in which lines
// apply (L1 of the kernel's stages first, then L2 in order, L1 of a made stage as soon as it exists),
// and the checks that need the whole schedule (run after every directive).
#include "schedule/apply.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "ir/limits.h"
#include "schedule/primitives/primitives.h"
#include "util/strings.h"

namespace ekb {

const std::vector<Primitive>& primitives() {
  static const std::vector<Primitive> v = {
      {"split", Layer::schedule, prim::split},
      {"fuse", Layer::schedule, prim::fuse},
      {"reorder", Layer::schedule, prim::reorder},
      {"tile", Layer::schedule, prim::tile},
      {"parallel", Layer::schedule, prim::parallel},
      {"vectorize", Layer::schedule, prim::vectorize},
      {"unroll", Layer::schedule, prim::unroll},
      {"bind", Layer::schedule, prim::bind},
      {"inline", Layer::memory, prim::inline_stage},
      {"compute_at", Layer::memory, prim::compute_at},
      {"store_at", Layer::memory, prim::store_at},
      {"cache_read", Layer::memory, prim::cache_read},
      {"cache_write", Layer::memory, prim::cache_write},
      {"decompose_reduction", Layer::memory, prim::decompose_reduction},
      {"rfactor", Layer::memory, prim::rfactor},
      {"hoist_reduction", Layer::memory, prim::hoist_reduction},
      {"pack", Layer::memory, prim::pack},
      {"double_buffer", Layer::memory, prim::double_buffer},
  };
  return v;
}

const char* prim::mark_name(lir::LoopKind k) {
  switch (k) {
    case lir::LoopKind::parallel: return "parallel";
    case lir::LoopKind::vectorized: return "vectorized";
    case lir::LoopKind::unrolled: return "unrolled";
    case lir::LoopKind::gpu_block: case lir::LoopKind::gpu_thread: return "bound to a GPU axis";
    default: return "serial";
  }
}

namespace {

const Primitive* find_primitive(const std::string& name) {
  for (const auto& p : primitives())
    if (name == p.name) return &p;
  return nullptr;
}

std::vector<std::string> primitive_names(Layer layer) {
  std::vector<std::string> v;
  for (const auto& p : primitives())
    if (p.layer == layer) v.push_back(p.name);
  return v;
}

}  // namespace

void ScheduleContext::error(Loc loc, std::string msg, std::string fix) {
  diags.error(source, loc, std::move(msg), std::move(fix));
}

bool ScheduleContext::arity(const Directive& d, size_t min_args, size_t max_args, size_t min_outs, size_t max_outs,
                            const char* usage) {
  bool ok = d.args.size() >= min_args && d.args.size() <= max_args && d.outs.size() >= min_outs && d.outs.size() <= max_outs;
  if (!ok) error(d.loc, fmt::format("wrong number of arguments for `{}`", d.name), fmt::format("write `{}`", usage));
  return ok;
}

bool ScheduleContext::dim_exists(const StageSchedule& s, const DirectiveArg& a) {
  if (!a.is_int && s.find_dim(a.text) >= 0) return true;
  std::vector<std::string> axes;
  for (const auto& d : s.dims) axes.push_back(d.name);
  std::string near = closest_match(a.text, axes);
  error(a.loc, fmt::format("`{}` is not a loop axis of `{}`", a.text, s.name),
        fmt::format("the axes of `{}` are now {}{}", s.name, quoted_list(axes),
                    near.empty() ? "" : fmt::format("; did you mean `{}`?", near)));
  return false;
}

bool ScheduleContext::positive_int(const DirectiveArg& a, const char* what) {
  if (a.is_int && a.value >= 1) return true;
  error(a.loc, fmt::format("{} must be a positive integer, got `{}`", what, a.text), "write a whole number like 4, 8 or 16");
  return false;
}

bool ScheduleContext::fresh_dims(const StageSchedule& s, const std::vector<DirectiveArg>& outs) {
  std::set<std::string> fresh;
  for (const auto& o : outs) {
    if (s.find_dim(o.text) >= 0 || fresh.count(o.text)) {
      error(o.loc, fmt::format("axis name `{}` is already used in `{}`", o.text, s.name),
            "give each new axis a fresh name, e.g. io and ii for the pieces of i");
      return false;
    }
    fresh.insert(o.text);
  }
  return true;
}

bool ScheduleContext::stage_exists(const DirectiveArg& a) {
  if (sched.find(a.text)) return true;
  unknown_stage(a.loc, a.text);
  return false;
}

bool ScheduleContext::new_stage_name(const DirectiveArg& a) {
  if (sched.find(a.text) || program.find_tensor(a.text) >= 0 || graph.find(a.text) >= 0) {
    error(a.loc, fmt::format("`{}` already names a tensor or stage", a.text), "choose a fresh name");
    return false;
  }
  return true;
}

bool ScheduleContext::scope_ok(const DirectiveArg& a, lir::MemScope* out) {
  std::vector<std::string> scopes = sched.backend() == Backend::cpu ? std::vector<std::string>{"global", "local"}
                                                            : std::vector<std::string>{"global", "shared", "local"};
  if (std::find(scopes.begin(), scopes.end(), a.text) == scopes.end()) {
    error(a.loc, fmt::format("`{}` is not a memory scope on {}", a.text, backend_name(sched.backend())), "scopes here: " + quoted_list(scopes, "or"));
    return false;
  }
  *out = a.text == "global" ? lir::MemScope::global : a.text == "shared" ? lir::MemScope::shared : lir::MemScope::local;
  return true;
}

bool ScheduleContext::tail_ok(const DirectiveArg& a, Tail* out) {
  if (a.text == "guard" || a.text == "pad" || a.text == "shift") {
    *out = a.text == "guard" ? Tail::guard : a.text == "pad" ? Tail::pad : Tail::shift;
    return true;
  }
  error(a.loc, fmt::format("unknown tail policy `{}`", a.text),
        "the tail policy is guard (skip the overhang), pad (round the loop up; the tensor is padded) or "
        "shift (move the last piece inwards)");
  return false;
}

bool ScheduleContext::at_clause(const StageSchedule& s, const Directive& d, size_t i, const char* usage, std::string* dim) {
  dim->clear();
  if (d.args.size() == i) return true;
  if (d.args.size() != i + 2 || d.args[i].text != "at") {
    error(d.args[i].loc, fmt::format("unexpected `{}` in `{}`", d.args[i].text, d.name), fmt::format("write `{}`", usage));
    return false;
  }
  if (!dim_exists(s, d.args[i + 1])) return false;
  *dim = d.args[i + 1].text;
  return true;
}

void ScheduleContext::unknown_stage(Loc loc, const std::string& name) {
  std::vector<std::string> names;
  for (const auto& [n, s] : sched.stages) names.push_back(n);
  std::string near = closest_match(name, names);
  int t = program.find_tensor(name);
  bool is_input = t >= 0 && program.tensors[t].role == TensorRole::input;
  error(loc,
        is_input ? fmt::format("`{}` is an input, not a stage; inputs have no loops to schedule", name)
                 : fmt::format("unknown stage `{}`", name),
        near.empty() ? "lines start with the name of a stage defined in the kernel, e.g. `Y: parallel i`"
                     : fmt::format("did you mean `{}`?", near));
}

lower::LStage& ScheduleContext::lstage(const std::string& name) { return graph.stages[graph.find(name)]; }

int64_t ScheduleContext::nominal_extent(const StageSchedule& s, const std::string& dim) {
  int g = graph.find(s.name);
  return g < 0 ? 0 : loop_extent(s, graph.stages[g], dim);
}

void ScheduleContext::create_stage(lower::LStage s, StageSchedule ss, const std::string& before) {
  std::string name = s.name;
  int at = graph.find(before);
  graph.stages.insert(graph.stages.begin() + (at < 0 ? static_cast<long>(graph.stages.size()) : at), std::move(s));
  sched.stages[name] = std::move(ss);
  auto it = pending_l1.find(name);
  if (it == pending_l1.end()) return;
  auto lines = std::move(it->second);
  pending_l1.erase(it);
  for (const auto* line : lines) apply_l1_line(*line);
}

void ScheduleContext::apply_l1_line(const ScheduleLine& line) {
  StageSchedule* s = sched.find(line.stage);
  if (!s) {
    unknown_stage(line.loc, line.stage);
    return;
  }
  for (const auto& d : line.directives) {
    const Primitive* p = find_primitive(d.name);
    if (p && p->layer == Layer::memory) {
      error(d.loc, fmt::format("`{}` is a memory (L2) directive", d.name), fmt::format("move it under `memory {}`", backend_name(sched.backend())));
      continue;
    }
    if (!p) {
      auto names = primitive_names(Layer::schedule);
      std::string near = closest_match(d.name, names);
      error(d.loc, fmt::format("unknown schedule directive `{}`", d.name),
            (near.empty() ? std::string() : fmt::format("did you mean `{}`? ", near)) + "directives here: " + quoted_list(names, "or"));
      continue;
    }
    s->has_l1 = true;
    p->apply(*this, *s, d);
    s = sched.find(line.stage);  // a directive may have rewritten the map
    if (!s) return;
    if (s->dims.size() > static_cast<size_t>(kMaxLoops) || s->rels.size() > static_cast<size_t>(kMaxLoops)) {
      error(d.loc,
            s->dims.size() > static_cast<size_t>(kMaxLoops)
                ? fmt::format("`{}` now has {} loops, more than {}", s->name, s->dims.size(), kMaxLoops)
                : fmt::format("`{}`'s loops are now split or fused {} times, more than {}", s->name, s->rels.size(), kMaxLoops),
            "split each loop once or twice: a deeper loop nest only adds loop overhead");
      return;
    }
  }
}

void ScheduleContext::apply_l2(StageSchedule& s, const Directive& d) {
  const Primitive* p = find_primitive(d.name);
  if (p && p->layer == Layer::schedule) {
    error(d.loc, fmt::format("`{}` is a schedule (L1) directive", d.name), fmt::format("move it under `schedule {}`", backend_name(sched.backend())));
    return;
  }
  if (!p) {
    auto names = primitive_names(Layer::memory);
    std::string near = closest_match(d.name, names);
    error(d.loc, fmt::format("unknown memory directive `{}`", d.name),
          (near.empty() ? std::string() : fmt::format("did you mean `{}`? ", near)) + "directives here: " + quoted_list(names, "or"));
    return;
  }
  if (d.name == "inline" || d.name == "compute_at" || d.name == "store_at" || d.name == "cache_write" || d.name == "rfactor" ||
      d.name == "hoist_reduction") {
    int g = graph.find(s.name);
    if (g >= 0 && graph.stages[g].is_scan()) {
      error(d.loc, fmt::format("`{}` is a recurrence along `{}`: each step reads the steps before it, so it is computed at "
                               "the root, in order, into its own buffer; `{}` does not apply", s.name,
                               graph.stages[g].scan_var, d.name),
            fmt::format("remove `{}` from `{}`; its readers may still cache what they read of it (cache_read)", d.name, s.name));
      return;
    }
  }
  p->apply(*this, s, d);
}

namespace {

// Where a stage's `shift` tail was asked for (split, tile, vectorize or unroll with `shift`); for a
// stage made by an L2 directive (rfactor, cache_write...) that kept the split, in the stage it
// came from.
Loc shift_loc(const Section* l1, const Section* l2, const std::string& stage, int depth = 0) {
  if (l1)
    for (const auto& line : l1->lines)
      for (const auto& d : line.directives)
        if (line.stage == stage)
          for (const auto& a : d.args)
            if (a.text == "shift") return a.loc;
  if (l2 && depth < 8)
    for (const auto& line : l2->lines)
      for (const auto& d : line.directives)
        if (!d.outs.empty() && d.outs[0].text == stage) {
          Loc from = shift_loc(l1, l2, line.stage, depth + 1);
          return from.line ? from : d.loc;
        }
  return Loc{};
}

// A `shift` tail makes the last piece of a split overlap the one before: the overlapping points are
// computed twice. That is harmless when each computation starts afresh, but a reduction accumulates
// into its buffer: the overlapping points must be initialised and fully reduced within one iteration
// of the split's outer piece (every reduction loop, and the initialisation, inside it), and two
// iterations of the outer piece must not run at once.
void check_shift_tails(ScheduleContext& ctx, const Section* l1, const Section* l2, const std::string& name, const StageSchedule& s) {
  bool reduces = false;
  for (const auto& d : s.dims) reduces = reduces || d.reduction;
  if (!reduces) return;
  for (const auto& r : s.rels) {
    const auto* sp = std::get_if<SplitRel>(&r);
    if (!sp || sp->tail != Tail::shift) continue;
    if (s.compute == StageSchedule::Compute::root) {
      int64_t e = ctx.nominal_extent(s, sp->old_var);
      if (e > 0 && e % sp->factor == 0) continue;  // no overlap
    }
    std::set<std::string> outer = derived_names({sp->outer}, s.rels);
    int last = -1;
    for (size_t i = 0; i < s.dims.size(); ++i)
      if (outer.count(s.dims[i].name)) last = static_cast<int>(i);
    const std::string what = fmt::format("`{}` reduces, and the `shift` tail of `{}` makes the last `{}` overlap the one before", name,
                                         sp->old_var, sp->outer);
    for (size_t i = 0; i < s.dims.size(); ++i) {
      const LoopDim& d = s.dims[i];
      if (d.reduction && static_cast<int>(i) < last) {
        ctx.error(shift_loc(l1, l2, name), fmt::format("{}; its reduction loop `{}` runs outside `{}`, so the overlapping points would "
                                                   "accumulate their terms twice", what, d.name, s.dims[last].name),
                  fmt::format("use `guard` instead of `shift`, or reorder the reduction loops inside `{}`", s.dims[last].name));
        return;
      }
      if (outer.count(d.name) && (d.kind == lir::LoopKind::parallel || d.kind == lir::LoopKind::gpu_block ||
                                  d.kind == lir::LoopKind::gpu_thread)) {
        ctx.error(shift_loc(l1, l2, name), fmt::format("{}; `{}` is {}, so two threads would initialise and accumulate the "
                                                   "overlapping points at once", what, d.name, prim::mark_name(d.kind)),
                  "use `guard` instead of `shift`, or run another loop in parallel");
        return;
      }
    }
    if (!s.init_dim.empty() && s.find_dim(s.init_dim) < last) {
      ctx.error(shift_loc(l1, l2, name), fmt::format("{}; the reduction is initialised at `{}`, outside `{}`, so the overlapping points "
                                                 "would accumulate their terms twice", what, s.init_dim, s.dims[last].name),
                fmt::format("use `guard` instead of `shift`, or decompose the reduction at `{}` or deeper", s.dims[last].name));
      return;
    }
  }
}

// How many loops enclose the body of `s`: its own, and those of the stages it is computed inside
// down to the loop it is computed at (counting stops past `cap`). 0 when a target or loop is
// missing, or the stages are computed inside each other in a cycle (both reported elsewhere).
int loop_nest_depth(const Schedule& sched, const StageSchedule& s, int cap) {
  int depth = static_cast<int>(s.dims.size());
  std::set<const StageSchedule*> seen{&s};
  for (const StageSchedule* cur = &s; cur->compute == StageSchedule::Compute::at && depth <= cap;) {
    const StageSchedule* target = sched.find(cur->at_stage);
    if (!target || target->find_dim(cur->at_dim) < 0 || !seen.insert(target).second) return 0;
    depth += target->find_dim(cur->at_dim) + 1;
    cur = target;
  }
  return depth;
}

// A recurrence's loops: those that step along its scan variable run in order (serial or unrolled,
// not fused with another variable), and those over points that read each other's earlier steps
// (its non-local variables and reductions) run inside them, never across GPU blocks (which cannot
// wait for each other).
void check_recurrence(ScheduleContext& ctx, const Section* l1, const std::string& name, const StageSchedule& s) {
  const lower::LStage& st = ctx.graph.stages[ctx.graph.find(name)];
  std::set<std::string> others, inner_roots(st.scan_nonlocal.begin(), st.scan_nonlocal.end());
  for (const auto& v : st.vars)
    if (v != st.scan_var) others.insert(v);
  for (const auto& v : st.rvars) {
    others.insert(v);
    inner_roots.insert(v);
  }
  std::set<std::string> steps = derived_names({st.scan_var}, s.rels), other_loops = derived_names(others, s.rels),
                        inner = derived_names(inner_roots, s.rels);
  auto loc_of = [&](const LoopDim& d) {
    if (d.loc.valid()) return d.loc;
    if (l1)
      for (const auto& line : l1->lines)
        if (line.stage == name) return line.loc;
    return st.loc;
  };
  int last_step = -1;
  for (size_t i = 0; i < s.dims.size(); ++i)
    if (steps.count(s.dims[i].name)) last_step = static_cast<int>(i);
  // The pieces of a split along the steps keep their order: the outer piece's loops outside the
  // inner piece's, so that the steps still run in increasing order.
  for (const auto& r : s.rels) {
    const auto* split = std::get_if<SplitRel>(&r);
    if (!split || !steps.count(split->old_var)) continue;
    std::set<std::string> outer = derived_names({split->outer}, s.rels), inner_piece = derived_names({split->inner}, s.rels);
    int last_outer = -1;
    for (size_t i = 0; i < s.dims.size(); ++i)
      if (outer.count(s.dims[i].name)) last_outer = static_cast<int>(i);
    for (size_t i = 0; i < s.dims.size(); ++i) {
      if (inner_piece.count(s.dims[i].name) && last_outer > static_cast<int>(i)) {
        ctx.error(loc_of(s.dims[i]), fmt::format("loop `{}` runs outside `{}`, but both step the recurrence `{}` along `{}`: "
                                                 "the steps would run out of order", s.dims[i].name,
                                                 s.dims[static_cast<size_t>(last_outer)].name, name, st.scan_var),
                  fmt::format("keep `{}` outside `{}` (reorder them back)", split->outer, split->inner));
        return;
      }
    }
  }
  for (size_t i = 0; i < s.dims.size(); ++i) {
    const LoopDim& d = s.dims[i];
    if (steps.count(d.name)) {
      if (other_loops.count(d.name)) {
        ctx.error(loc_of(d), fmt::format("loop `{}` of the recurrence `{}` fuses its steps along `{}` with another variable",
                                         d.name, name, st.scan_var),
                  fmt::format("keep `{}`'s loops apart from the others: split them, do not fuse them", st.scan_var));
        return;
      }
      if (d.kind != lir::LoopKind::serial && d.kind != lir::LoopKind::unrolled) {
        ctx.error(loc_of(d), fmt::format("loop `{}` steps the recurrence `{}` along `{}`, in order: it cannot be {}", d.name,
                                         name, st.scan_var, prim::mark_name(d.kind)),
                  fmt::format("leave `{}` serial (or unroll it); make the other loops parallel, vectorized or bound instead",
                              d.name));
        return;
      }
    } else if (inner.count(d.name)) {
      if (static_cast<int>(i) < last_step) {
        ctx.error(loc_of(d), fmt::format("loop `{}` of the recurrence `{}` runs over points that read each other's earlier "
                                         "steps, so it must be inside the loops along `{}`", d.name, name, st.scan_var),
                  fmt::format("reorder so that `{}` comes after `{}`'s loops", d.name, st.scan_var));
        return;
      }
      if (d.kind == lir::LoopKind::gpu_block) {
        ctx.error(loc_of(d), fmt::format("loop `{}` of the recurrence `{}` is bound to GPU blocks, but its points read each "
                                         "other's earlier steps and blocks cannot wait for each other", d.name, name),
                  fmt::format("bind `{}` to threads of one block (a barrier ends each step), or leave it serial", d.name));
        return;
      }
    }
  }
}

// Checks that need the final schedule: where reductions start, where stages are computed.
void validate(ScheduleContext& ctx, const Section* l1, const Section* l2) {
  auto loc_of = [&](const std::string& stage, const char* directive) {
    if (l2)
      for (const auto& line : l2->lines)
        for (const auto& d : line.directives)
          if (line.stage == stage && d.name == directive) return d.loc;
    return Loc{};
  };
  // Where a stage is placed: its compute_at, else the directive that made it computed at a loop.
  auto placement_loc = [&](const std::string& stage) {
    Loc at = loc_of(stage, "compute_at");
    if (l2 && !at.valid())
      for (const auto& line : l2->lines)
        for (const auto& d : line.directives)
          if (!d.outs.empty() && d.outs[0].text == stage && !at.valid()) at = d.loc;
    if (!at.valid() && ctx.graph.find(stage) >= 0) at = ctx.graph.stages[ctx.graph.find(stage)].loc;
    return at;
  };
  bool nest_reported = false;  // once: the stages further down a too-long chain say the same
  for (auto& [name, s] : ctx.sched.stages) {
    // Loop nests are trees the lowering walks recursively, and the C compilers accept a few hundred
    // nested blocks: a stage computed inside a long chain of others would nest too deep.
    if (int depth = loop_nest_depth(ctx.sched, s, kMaxLoops); depth > kMaxLoops) {
      if (nest_reported) continue;
      nest_reported = true;
      ctx.error(placement_loc(name),
                fmt::format("`{}` would run inside more than {} nested loops (its own and those of the stages it is "
                            "computed inside)", name, kMaxLoops),
                fmt::format("compute `{}` at the root, or at an outer loop of a stage that is itself computed at the root",
                            name));
      continue;
    }
    check_shift_tails(ctx, l1, l2, name, s);
    if (int g = ctx.graph.find(name); g >= 0 && ctx.graph.stages[g].is_scan()) check_recurrence(ctx, l1, name, s);
    if (!s.init_dim.empty()) {
      int at = s.find_dim(s.init_dim);
      for (int i = 0; i <= at && at >= 0; ++i)
        if (s.dims[i].reduction) {
          ctx.error(loc_of(name, "decompose_reduction"),
                    fmt::format("the initial value of `{}` would be set inside its reduction loop `{}`, restarting the "
                                "reduction at every `{}`", name, s.dims[i].name, s.dims[i].name),
                    fmt::format("decompose at an axis outside `{}`, or reorder the reduction loops inwards", s.dims[i].name));
          break;
        }
    }
    if (s.compute == StageSchedule::Compute::at) {
      const StageSchedule* target = ctx.sched.find(s.at_stage);
      if (!target || target->find_dim(s.at_dim) < 0) {
        ctx.error(loc_of(name, "compute_at"),
                  fmt::format("`{}` is computed at `{}`'s loop `{}`, which no longer exists", name, s.at_stage, s.at_dim),
                  "compute it at a stage and loop that remain (an inlined stage has no loops)");
        continue;
      }
      int at = target->find_dim(s.at_dim);
      // Every reader must run inside the loop the stage is computed at: the target itself, or a
      // stage computed inside the target at this loop or deeper.
      for (const auto& c : ctx.graph.consumers(name)) {
        if (c == s.at_stage) continue;
        const StageSchedule* cs = ctx.sched.find(c);
        bool inside = cs && cs->compute == StageSchedule::Compute::at && cs->at_stage == s.at_stage &&
                      target->find_dim(cs->at_dim) >= at;
        if (!inside)
          ctx.error(loc_of(name, "compute_at"),
                    fmt::format("`{}` is computed inside `{}`'s loop `{}`, but `{}` reads it {}", name, s.at_stage, s.at_dim, c,
                                cs && cs->compute == StageSchedule::Compute::at && cs->at_stage == s.at_stage
                                    ? fmt::format("from the outer loop `{}`", cs->at_dim) : std::string("outside that loop")),
                    fmt::format("compute `{}` at a loop enclosing every reader, or compute `{}` inside `{}` at `{}` or deeper",
                                name, c, s.at_stage, s.at_dim));
      }
    }
    if (!s.store_stage.empty()) {
      const StageSchedule* target = ctx.sched.find(s.store_stage);
      bool ok = s.compute == StageSchedule::Compute::at && s.at_stage == s.store_stage && target &&
                target->find_dim(s.store_dim) >= 0 && target->find_dim(s.at_dim) >= target->find_dim(s.store_dim);
      if (!ok)
        ctx.error(loc_of(name, "store_at"),
                  fmt::format("`{}` is stored at `{}`'s loop `{}`, but it is not computed at that loop or inside it", name,
                              s.store_stage, s.store_dim),
                  fmt::format("add `compute_at {} AXIS` with AXIS at `{}` or deeper, or remove store_at", s.store_stage, s.store_dim));
      for (int i = ok ? target->find_dim(s.store_dim) + 1 : 1; ok && i <= target->find_dim(s.at_dim); ++i) {
        const LoopDim& d = target->dims[i];
        if (d.kind == lir::LoopKind::serial || d.kind == lir::LoopKind::vectorized || d.kind == lir::LoopKind::unrolled) continue;
        ctx.error(loc_of(name, "store_at"),
                  fmt::format("`{}` is stored at `{}`'s loop `{}` but computed inside its {} loop `{}`: the iterations running at "
                              "once would all write one buffer", name, s.store_stage, s.store_dim, prim::mark_name(d.kind), d.name),
                  fmt::format("store it at `{}` or deeper, or remove store_at", d.name));
        break;
      }
    }
  }
}

}  // namespace

Schedule apply_schedule(const Program& p, lower::Graph& graph, const Target& target, const Section* l1,
                        const Section* l2, DiagnosticList& diags, SourcePtr sections_source) {
  Schedule sched;
  sched.target = target;
  for (const auto& s : graph.stages) sched.stages[s.name] = initial_schedule(s);
  ScheduleContext ctx(p, graph, sched, diags, sections_source ? sections_source : p.source());
  size_t errors_before = diags.error_count();
  // Names the memory section will give to stages it makes: their L1 lines wait until they exist.
  std::set<std::string> will_make;
  if (l2)
    for (const auto& line : l2->lines)
      for (const auto& d : line.directives) {
        if (!d.outs.empty() && (d.name == "cache_read" || d.name == "cache_write" || d.name == "rfactor" || d.name == "pack" ||
                                 d.name == "hoist_reduction"))
          will_make.insert(d.outs[0].text);
        else if (d.name == "cache_read" && d.args.size() >= 2) will_make.insert(d.args[0].text + "_" + d.args[1].text);
        else if (d.name == "cache_write" && !d.args.empty()) will_make.insert(line.stage + "_" + d.args[0].text);
        else if (d.name == "pack" && !d.args.empty()) will_make.insert(d.args[0].text + "_packed");
      }
  if (l1)
    for (const auto& line : l1->lines) {
      if (!sched.find(line.stage) && will_make.count(line.stage)) ctx.pending_l1[line.stage].push_back(&line);
      else ctx.apply_l1_line(line);
    }
  if (l2)
    for (const auto& line : l2->lines) {
      for (const auto& d : line.directives) {
        StageSchedule* s = sched.find(line.stage);
        if (!s) {
          ctx.unknown_stage(line.loc, line.stage);
          break;
        }
        ctx.apply_l2(*s, d);
      }
    }
  for (const auto& [name, lines] : ctx.pending_l1)
    for (const auto* line : lines) ctx.unknown_stage(line->loc, name);
  if (diags.error_count() == errors_before) validate(ctx, l1, l2);
  return sched;
}

}  // namespace ekb
