// The default schedule on cuda and opencl (default_schedule.h): every stage at the root fuses its
// pure loops into one and splits it into blocks of 256 threads; a float reduction over a long axis
// into few points runs a block per point whose threads reduce together; a recurrence puts its
// independent points on blocks and threads and the points that read each other on one block's threads.
#include <fmt/format.h>

#include <algorithm>

#include "schedule/default_common.h"
#include "schedule/default_schedule.h"

namespace ekb::default_schedule {

namespace {

// Threads per block of the default GPU schedule.
constexpr int64_t kGpuThreads = 256;

// A stage that reduces over a long axis into few output points (a row's max or sum, a global sum)
// gets a block per output point whose threads reduce together: one serial thread per point would
// leave most of the GPU idle and read each row alone. Float reductions only (the tree's order of
// additions differs from a serial loop's, within the float tolerance).
constexpr int64_t kCrossThreadMinExtent = 128;
constexpr int64_t kCrossThreadMaxPoints = 16384;

bool reduce_across_threads(const LStage& s) {
  if (!s.has_reduction() || !is_float(s.type)) return false;
  int64_t points = 1, rext = 1;
  for (int64_t e : s.extents) points *= e;
  for (int64_t e : s.rextents) rext *= e;
  return rext >= kCrossThreadMinExtent && points <= kCrossThreadMaxPoints;
}

// The directives of a cross-thread reduction: pure loops fused into one bound to blocks, reduction
// loops fused into one split into a thread piece (outermost among the reduction loops) and a serial
// rest.
std::vector<std::string> cross_thread_directives(const LStage& s) {
  std::vector<std::string> dirs;
  int64_t rext = 1;
  for (int64_t e : s.rextents) rext *= e;
  int64_t threads = kGpuThreads;
  while (threads > rext) threads /= 2;
  std::string pure = s.vars.empty() ? "" : fuse_in_order(s.vars, dirs);
  std::string red = fuse_in_order(s.rvars, dirs);
  dirs.push_back(fmt::format("split {} {} -> {}_s {}_t", red, threads, red, red));
  dirs.push_back(fmt::format("reorder {}_t {}_s", red, red));
  if (!pure.empty()) dirs.push_back(fmt::format("bind {} block.x", pure));
  dirs.push_back(fmt::format("bind {}_t thread.x", red));
  return dirs;
}

// A recurrence (docs/ir.md "Recurrences"): its steps run in order in each thread; independent points
// on blocks and threads, points that read each other's earlier steps on the threads of one block
// (a barrier ends each step).
std::vector<std::string> recurrence_directives(const LStage& s) {
  std::vector<std::string> local, nonlocal = s.scan_nonlocal;
  std::map<std::string, int64_t> extent;
  for (size_t i = 0; i < s.vars.size(); ++i) {
    extent[s.vars[i]] = s.extents[i];
    if (s.vars[i] != s.scan_var && std::find(nonlocal.begin(), nonlocal.end(), s.vars[i]) == nonlocal.end())
      local.push_back(s.vars[i]);
  }
  std::vector<std::string> dirs, order = local;
  order.push_back(s.scan_var);
  order.insert(order.end(), nonlocal.begin(), nonlocal.end());
  if (order.size() >= 2) dirs.push_back(fmt::format("reorder {}", fmt::join(order, " ")));
  if (nonlocal.empty()) {
    if (local.empty()) return dirs;  // one sequence: one thread
    std::string f = fuse_in_order(local, dirs);
    int64_t points = 1;
    for (const auto& v : local) points *= extent[v];
    dirs.push_back(fmt::format("split {} {} -> {}_b {}_t", f, std::min<int64_t>(kGpuThreads, points), f, f));
    dirs.push_back(fmt::format("bind {}_b block.x; bind {}_t thread.x", f, f));
    return dirs;
  }
  if (!local.empty()) dirs.push_back(fmt::format("bind {} block.x", fuse_in_order(local, dirs)));
  std::string f = fuse_in_order(nonlocal, dirs);
  int64_t points = 1;
  for (const auto& v : nonlocal) points *= extent[v];
  if (points > kGpuThreads) {
    dirs.push_back(fmt::format("split {} {} -> {}_o {}_t", f, kGpuThreads, f, f));
    f += "_t";
  }
  dirs.push_back(fmt::format("bind {} thread.x", f));
  return dirs;
}

}  // namespace

std::string gpu_default_schedule(const Graph& g, const Target& target) {
  Plan plan;
  Inlining in = decide_inlining(g, plan);
  // A reduction read by one consumer at its own point is computed in that consumer's thread, unless
  // either reduces across threads.
  std::map<std::string, std::string> fused_into;
  for (const auto& s : g.stages) {
    if (s.is_output || in.inlined.count(s.name)) continue;
    auto consumers = g.consumers(s.name);
    int sites = 0;
    for (const auto& c : consumers) sites += count_reads(g.stages[g.find(c)].value, s.name);
    if (s.has_reduction() && consumers.size() == 1 && sites == 1 && !reduce_across_threads(s)) {
      const LStage& c = g.stages[g.find(consumers[0])];
      if (lower::reads_pointwise(c, s.name) && !c.vars.empty() && !c.is_scan() && !reduce_across_threads(c)) fused_into[s.name] = c.name;
    }
  }
  keep_loop_nests_shallow(g, fused_into);
  std::map<std::string, std::string> compute_dim;  // consumer -> the loop its fused producers go in
  for (const auto& s : g.stages) {
    if (in.inlined.count(s.name)) continue;
    bool root = !fused_into.count(s.name);
    if (s.is_scan()) {
      plan.schedule(s.name, recurrence_directives(s));
      continue;
    }
    if (root && reduce_across_threads(s)) {
      plan.schedule(s.name, cross_thread_directives(s));
      continue;
    }
    // The pure loops fused into one, split into blocks of kGpuThreads threads; a fused producer is
    // computed inside each thread, at its point.
    if (s.vars.empty()) continue;  // a scalar: one thread
    std::vector<std::string> dirs;
    std::string fused = fuse_in_order(s.vars, dirs);
    if (root) {
      int64_t points = 1;
      for (int64_t e : s.extents) points *= e;
      int64_t threads = std::min<int64_t>(kGpuThreads, points);
      dirs.push_back(fmt::format("split {} {} -> {}_b {}_t", fused, threads, fused, fused));
      dirs.push_back(fmt::format("bind {}_b block.x; bind {}_t thread.x", fused, fused));
      compute_dim[s.name] = fused + "_t";
    } else {
      compute_dim[s.name] = fused;
    }
    plan.schedule(s.name, dirs);
  }
  for (const auto& [producer, consumer] : fused_into) {
    auto it = compute_dim.find(consumer);
    if (it != compute_dim.end()) plan.memory(producer, fmt::format("compute_at {} {}", consumer, it->second));
  }
  (void)target;
  return plan.text(target.backend);
}

}  // namespace ekb::default_schedule
