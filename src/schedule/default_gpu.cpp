// The default schedule on cuda and opencl (default_schedule.h; the figures in default_gpu_shapes.h,
// docs/baseline.md): what a competent compiler emits for a GPU without search.
//  - Row groups (default_gpu_rows.h): a chain whose reductions are read per row by an element-wise
//    stage (softmax, layer norm, an L2 or RMS norm) is one kernel: the consumer's rows on blocks (or
//    several short rows per block, on thread.y), a row's columns over its threads (consecutive
//    threads on consecutive columns, each looping over the rest), the reductions computed inside
//    the block for each row and shared by the row's threads (cross-thread reductions).
//  - A reduction at the root that is long enough and read along its own length (a row's sum), or
//    long and into few points, is shared by threads the same way: a row per thread group.
//  - Every other stage at the root gets a thread per point (its pure loops fused), in blocks of 256
//    threads or fewer when the points are few; a streaming element-wise stage takes several points
//    per thread when the points are many; a reduction read by one consumer at its own point is
//    computed in the consumer's thread.
//  - A recurrence puts its independent points on blocks and threads and the points that read each
//    other's earlier steps on one block's threads.
#include <fmt/format.h>

#include <algorithm>

#include "schedule/default_common.h"
#include "schedule/default_gpu_rows.h"
#include "schedule/default_gpu_shapes.h"
#include "schedule/default_schedule.h"

namespace ekb::default_schedule {

namespace {

int64_t product(const std::vector<int64_t>& v) {
  int64_t n = 1;
  for (int64_t e : v) n *= e;
  return n;
}

bool is_var(const lir::ExprP& e, const std::string& v) { return e->kind == lir::EK::var && e->name == v; }

bool mentions(const lir::ExprP& e, const std::string& v) {
  if (is_var(e, v)) return true;
  for (const auto& a : e->args)
    if (mentions(a, v)) return true;
  return false;
}

// Whether index `i` is variable `v`, or `v` plus an offset that does not read it (`base + v`).
bool moves_along(const lir::ExprP& i, const std::string& v) {
  if (is_var(i, v)) return true;
  if (i->kind == lir::EK::binary && i->binop == BinOp::add)
    for (int k = 0; k < 2; ++k)
      if (is_var(i->args[k], v) && !mentions(i->args[1 - k], v)) return true;
  return false;
}

// Whether some read of `e` has a last index that moves along `v` (`X[.., v]`, `X[.., base + v]`).
bool some_read_along(const lir::ExprP& e, const std::string& v) {
  if (e->kind == lir::EK::load && !e->args.empty() && moves_along(e->args.back(), v)) return true;
  for (const auto& a : e->args)
    if (some_read_along(a, v)) return true;
  return false;
}

// A float reduction at the root whose threads share each point's reduction: a long one (>= 128
// terms) into few points (<= 1024: a thread per point could not fill a GPU), or one of at least 32
// terms read along its length while no read moves with its points (a row's sum: neighbouring
// threads, one point each, would read rows apart, uncoalesced; a matrix product's column reads move
// with its points, and keep a thread each).
bool reduce_across_threads(const LStage& s) {
  if (!s.has_reduction() || !is_float(s.type) || s.is_scan()) return false;
  int64_t points = product(s.extents), terms = product(s.rextents);
  if (terms >= 128 && points <= 1024) return true;
  return terms >= 32 && some_read_along(s.value, s.rvars.back()) && (s.vars.empty() || !some_read_along(s.value, s.vars.back()));
}

// A stage whose reduction is shared by threads: its points as rows (layout `l`), its reduction
// loops fused and spread over each row's threads.
std::vector<std::string> cross_thread_directives(const LStage& s, const RowLayout& l) {
  std::vector<std::string> dirs;
  std::string pure = s.vars.empty() ? "" : fuse_in_order(s.vars, dirs);
  std::string red = fuse_in_order(s.rvars, dirs);
  spread_over_threads(red, l.row_threads, dirs);
  bind_rows(pure, product(s.extents), l.rows_per_block, dirs);
  return dirs;
}

// A stage with a thread per point: its pure loops fused, split into blocks; `per_thread` points per
// thread a block's width apart (every access coalesced). Returns the loop a point is computed in.
std::string point_directives(const LStage& s, int64_t threads, int64_t per_thread, std::vector<std::string>& dirs) {
  std::string f = fuse_in_order(s.vars, dirs);
  if (per_thread <= 1) {
    dirs.push_back(fmt::format("split {} {} -> {}_b {}_t", f, threads, f, f));
    dirs.push_back(fmt::format("bind {}_b block.x; bind {}_t thread.x", f, f));
    return f + "_t";
  }
  dirs.push_back(fmt::format("split {} {} -> {}_b {}_r", f, threads * per_thread, f, f));
  dirs.push_back(fmt::format("split {}_r {} -> {}_u {}_t", f, threads, f, f));
  dirs.push_back(fmt::format("reorder {}_t {}_u", f, f));
  dirs.push_back(fmt::format("bind {}_b block.x; bind {}_t thread.x; unroll {}_u", f, f, f));
  return f + "_u";
}

// A recurrence (docs/ir.md "Recurrences"): its steps run in order in each thread; independent points
// on blocks and threads, points that read each other's earlier steps on the threads of one block
// (a barrier ends each step).
std::vector<std::string> recurrence_directives(const LStage& s, const Target& target) {
  const int64_t block = std::min(kPointThreads, target.max_threads_per_block);
  auto [local, nonlocal, extent] = recurrence_vars(s);
  std::vector<std::string> dirs, order = local;
  order.push_back(s.scan_var);
  order.insert(order.end(), nonlocal.begin(), nonlocal.end());
  if (order.size() >= 2) dirs.push_back(fmt::format("reorder {}", fmt::join(order, " ")));
  if (nonlocal.empty()) {
    if (local.empty()) return dirs;  // one sequence: one thread
    std::string f = fuse_in_order(local, dirs);
    int64_t points = 1;
    for (const auto& v : local) points *= extent[v];
    dirs.push_back(fmt::format("split {} {} -> {}_b {}_t", f, std::min<int64_t>(block, points), f, f));
    dirs.push_back(fmt::format("bind {}_b block.x; bind {}_t thread.x", f, f));
    return dirs;
  }
  if (!local.empty()) dirs.push_back(fmt::format("bind {} block.x", fuse_in_order(local, dirs)));
  std::string f = fuse_in_order(nonlocal, dirs);
  int64_t points = 1;
  for (const auto& v : nonlocal) points *= extent[v];
  if (points > block) {
    dirs.push_back(fmt::format("split {} {} -> {}_o {}_t", f, block, f, f));
    f += "_t";
  }
  dirs.push_back(fmt::format("bind {} thread.x", f));
  return dirs;
}

}  // namespace

std::string gpu_default_schedule(const Graph& g, const Target& target) {
  Plan plan;
  Inlining in = decide_inlining(g, plan);
  Graph& sim = in.sim;
  std::vector<RowGroup> groups = find_row_groups(sim, plan, in.inlined);
  std::map<std::string, const RowGroup*> anchor_of, member_of;
  for (const auto& gr : groups) {
    anchor_of[gr.anchor] = &gr;
    for (const auto& m : gr.members) member_of[m] = &gr;
  }
  // A reduction read by one consumer at its own point is computed in that consumer's thread, unless
  // either reduces across threads.
  std::map<std::string, std::string> fused_into;
  for (const auto& s : sim.stages) {
    if (s.is_output || member_of.count(s.name) || !s.has_reduction() || reduce_across_threads(s)) continue;
    auto consumers = sim.consumers(s.name);
    if (consumers.size() != 1 || count_reads(sim.stages[static_cast<size_t>(sim.find(consumers[0]))].value, s.name) != 1) continue;
    const LStage& c = sim.stages[static_cast<size_t>(sim.find(consumers[0]))];
    if (lower::reads_pointwise(c, s.name) && !c.vars.empty() && !c.is_scan() && !member_of.count(c.name) && !reduce_across_threads(c))
      fused_into[s.name] = c.name;
  }
  keep_loop_nests_shallow(sim, fused_into);
  std::set<std::string> consumers_of_fused;
  for (const auto& [producer, consumer] : fused_into) consumers_of_fused.insert(consumer);
  std::map<std::string, std::string> compute_dim;  // consumer -> the loop its fused producers go in
  std::vector<std::pair<std::string, std::string>> row_members;  // member -> the anchor's row loop
  for (const auto& s : sim.stages) {
    if (member_of.count(s.name)) continue;  // scheduled with its group's anchor
    bool root = !fused_into.count(s.name);
    if (s.is_scan()) {
      plan.schedule(s.name, recurrence_directives(s, target));
      continue;
    }
    if (auto it = anchor_of.find(s.name); it != anchor_of.end()) {
      // A row group: the anchor's rows over blocks, its columns over each row's threads; the members
      // computed at the row's loop, their reductions over the same threads.
      const RowGroup& gr = *it->second;
      std::vector<const LStage*> members;
      for (const auto& m : gr.members) members.push_back(&sim.stages[static_cast<size_t>(sim.find(m))]);
      RowGroupLines lines = row_group_lines(s, gr.outer, members, row_layout(gr.rows, gr.row_len, gr.reductions, gr.value_bytes, target));
      plan.schedule(s.name, lines.anchor);
      compute_dim[s.name] = lines.inner;
      for (const auto& [m, dirs] : lines.members) {
        plan.schedule(m, dirs);
        row_members.push_back({m, fmt::format("compute_at {} {}", s.name, lines.at)});
      }
      continue;
    }
    if (root && reduce_across_threads(s)) {
      plan.schedule(s.name, cross_thread_directives(s, row_layout(product(s.extents), product(s.rextents), 1, dtype_bytes(s.type), target)));
      continue;
    }
    if (s.vars.empty()) continue;  // a scalar: one thread
    std::vector<std::string> dirs;
    if (root) {
      int64_t points = product(s.extents);
      bool streaming = !reduces(s) && !consumers_of_fused.count(s.name);
      int64_t per_thread = streaming ? elements_per_thread(points) : 1;
      int64_t threads = per_thread > 1 ? std::min(kPointThreads, target.max_threads_per_block) : point_threads(points, target);
      compute_dim[s.name] = point_directives(s, threads, per_thread, dirs);
    } else {
      compute_dim[s.name] = fuse_in_order(s.vars, dirs);
    }
    plan.schedule(s.name, dirs);
  }
  for (const auto& [member, line] : row_members) plan.memory(member, line);
  for (const auto& [producer, consumer] : fused_into) {
    auto it = compute_dim.find(consumer);
    if (it != compute_dim.end()) plan.memory(producer, fmt::format("compute_at {} {}", consumer, it->second));
  }
  return plan.text(target.backend);
}

}  // namespace ekb::default_schedule
