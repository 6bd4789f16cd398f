// The default schedule on the cpu backend (default_schedule.h).
#include <fmt/format.h>

#include <algorithm>

#include "schedule/default_common.h"
#include "schedule/default_schedule.h"

namespace ekb::default_schedule {

namespace {

// A recurrence (docs/ir.md "Recurrences"): its steps run in order, serially; the points that keep
// to themselves (local variables) are the parallel ones, outside the steps, or vector lanes inside
// them; the points that read each other's earlier steps run inside each step, vectorized.
std::vector<std::string> recurrence_directives(const LStage& s, const Target& target) {
  std::vector<std::string> local, nonlocal = s.scan_nonlocal;
  std::map<std::string, int64_t> extent;
  for (size_t i = 0; i < s.vars.size(); ++i) {
    extent[s.vars[i]] = s.extents[i];
    if (s.vars[i] != s.scan_var && std::find(nonlocal.begin(), nonlocal.end(), s.vars[i]) == nonlocal.end())
      local.push_back(s.vars[i]);
  }
  std::vector<std::string> dirs, order;
  // The innermost of the step's own points (or of the local ones) as vector lanes.
  int lanes = target.lanes(s.type);
  std::vector<std::string> outer = local;
  std::string vec = !nonlocal.empty() ? nonlocal.back() : (local.empty() ? "" : local.back());
  std::vector<std::string> inner = nonlocal;
  if (nonlocal.empty() && !vec.empty()) outer.pop_back();
  std::string vec_loop;
  if (!vec.empty() && extent[vec] >= 4 && lanes > 1) {
    if (extent[vec] > lanes) {
      dirs.push_back(fmt::format("split {} {} -> {}_o {}_i", vec, lanes, vec, vec));
      if (nonlocal.empty()) outer.push_back(vec + "_o");
      else inner.insert(inner.end() - 1, vec + "_o");
      vec_loop = vec + "_i";
    } else if ((extent[vec] & (extent[vec] - 1)) == 0) {
      vec_loop = vec;
    }
  }
  if (nonlocal.empty() && !vec.empty() && vec_loop.empty()) outer.push_back(vec);  // no lanes: it stays outside
  if (!vec_loop.empty()) {
    if (!nonlocal.empty()) inner.back() = vec_loop;
  }
  order = outer;
  order.push_back(s.scan_var);
  order.insert(order.end(), inner.begin(), inner.end());
  if (nonlocal.empty() && !vec_loop.empty()) order.push_back(vec_loop);
  if (order.size() >= 2) dirs.push_back(fmt::format("reorder {}", fmt::join(order, " ")));
  if (!vec_loop.empty()) dirs.push_back("vectorize " + vec_loop);
  if (!outer.empty()) dirs.push_back("parallel " + outer[0]);
  return dirs;
}

}  // namespace

std::string cpu_default_schedule(const Graph& g, const Target& target) {
  Plan plan;
  Inlining in = decide_inlining(g, plan);
  // A reduction read by one consumer at its own point is computed inside that consumer's loops.
  std::map<std::string, std::string> fused_into;
  for (const auto& s : g.stages) {
    if (s.is_output || in.inlined.count(s.name)) continue;
    auto consumers = g.consumers(s.name);
    int sites = 0;
    for (const auto& c : consumers) sites += count_reads(g.stages[g.find(c)].value, s.name);
    if (s.has_reduction() && consumers.size() == 1 && sites == 1) {
      const LStage& c = g.stages[g.find(consumers[0])];
      if (lower::reads_pointwise(c, s.name) && !c.vars.empty() && !c.is_scan()) fused_into[s.name] = c.name;
    }
  }
  keep_loop_nests_shallow(g, fused_into);
  std::map<std::string, std::string> compute_dim;  // consumer -> the loop its fused producers go in
  for (const auto& s : g.stages) {
    if (in.inlined.count(s.name)) continue;
    bool root = !fused_into.count(s.name);
    if (s.is_scan()) {
      plan.schedule(s.name, recurrence_directives(s, target));
      continue;
    }
    std::vector<std::string> dirs;
    size_t pure = s.vars.size();
    std::string par, vec_dim = pure ? s.vars.back() : "";
    int64_t vec_extent = pure ? s.extents.back() : 0;
    int lanes = target.lanes(s.type);  // one vector register of the target's ISA
    std::string outer_of_vec;  // the loop just outside the vector lanes
    if (pure && vec_extent >= 4 && lanes > 1) {
      if (vec_extent > lanes) {
        dirs.push_back(fmt::format("vectorize {} {}", vec_dim, lanes));
        outer_of_vec = vec_dim + "_o";
      } else if ((vec_extent & (vec_extent - 1)) == 0) {
        dirs.push_back(fmt::format("vectorize {}", vec_dim));
        outer_of_vec = pure >= 2 ? s.vars[pure - 2] : "";
      } else {
        outer_of_vec = vec_dim;  // too short to vectorize: producers go at its level
      }
    } else if (pure) {
      outer_of_vec = vec_dim;
    }
    if (root && pure) {
      // Parallelize the outermost pure loop; fuse the first two when the first is short.
      if (pure == 1) {
        par = vec_extent > lanes && vec_extent >= 4 && lanes > 1 ? vec_dim + "_o" : "";
      } else if (s.extents[0] < 8 && pure >= 3) {
        dirs.insert(dirs.begin(), fmt::format("fuse {} {} -> {}_{}", s.vars[0], s.vars[1], s.vars[0], s.vars[1]));
        par = fmt::format("{}_{}", s.vars[0], s.vars[1]);
      } else {
        par = s.vars[0];
      }
      if (!par.empty()) dirs.push_back("parallel " + par);
    }
    if (!outer_of_vec.empty()) compute_dim[s.name] = outer_of_vec;
    plan.schedule(s.name, dirs);
  }
  for (const auto& [producer, consumer] : fused_into) {
    auto it = compute_dim.find(consumer);
    if (it != compute_dim.end()) plan.memory(producer, fmt::format("compute_at {} {}", consumer, it->second));
  }
  return plan.text(target.backend);
}

}  // namespace ekb::default_schedule
