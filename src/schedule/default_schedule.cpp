// Default schedule generation (rules in default_schedule.h).
#include "schedule/default_schedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "ir/limits.h"
#include "loops/graph.h"
#include "loops/inlining.h"

namespace ekb {

namespace {

using lower::Graph;
using lower::LStage;

int count_reads(const lir::ExprP& e, const std::string& buffer) {
  int n = e->kind == lir::EK::load && e->name == buffer ? 1 : 0;
  for (const auto& a : e->args) n += count_reads(a, buffer);
  return n;
}

bool has_reduce(const lir::ExprP& e) {
  if (e->kind == lir::EK::reduce) return true;
  for (const auto& a : e->args)
    if (has_reduce(a)) return true;
  return false;
}

// Is `buffer` read inside a reduction's body in `e` (so once per reduction point)?
bool read_in_reduction(const lir::ExprP& e, const std::string& buffer, bool inside) {
  if (e->kind == lir::EK::load && e->name == buffer && inside) return true;
  for (const auto& a : e->args)
    if (read_in_reduction(a, buffer, inside || e->kind == lir::EK::reduce)) return true;
  return false;
}

bool has_select(const lir::ExprP& e) {
  if (e->kind == lir::EK::select) return true;
  for (const auto& a : e->args)
    if (has_select(a)) return true;
  return false;
}

bool has_costly_call(const lir::ExprP& e) {
  if (e->kind == lir::EK::call && e->fn != Fn::min && e->fn != Fn::max && e->fn != Fn::abs && e->fn != Fn::clamp &&
      e->fn != Fn::sign)
    return true;
  if (e->kind == lir::EK::reduce) return true;
  for (const auto& a : e->args)
    if (has_costly_call(a)) return true;
  return false;
}

// Threads per block of the default GPU schedule.
constexpr int64_t kGpuThreads = 256;

// GPU: a stage that reduces over a long axis into few output points (a row's max or sum, a global
// sum) gets a block per output point whose threads reduce together: one serial thread per point
// would leave most of the GPU idle and read each row alone. Float reductions only (the tree's
// order of additions differs from a serial loop's, within the float tolerance).
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
  auto fuse_all = [&](const std::vector<std::string>& vars) {
    std::string fused = vars[0];
    for (size_t i = 1; i < vars.size(); ++i) {
      std::string next = fused + "_" + vars[i];
      dirs.push_back(fmt::format("fuse {} {} -> {}", fused, vars[i], next));
      fused = next;
    }
    return fused;
  };
  int64_t rext = 1;
  for (int64_t e : s.rextents) rext *= e;
  int64_t threads = kGpuThreads;
  while (threads > rext) threads /= 2;
  std::string pure = s.vars.empty() ? "" : fuse_all(s.vars);
  std::string red = fuse_all(s.rvars);
  dirs.push_back(fmt::format("split {} {} -> {}_s {}_t", red, threads, red, red));
  dirs.push_back(fmt::format("reorder {}_t {}_s", red, red));
  if (!pure.empty()) dirs.push_back(fmt::format("bind {} block.x", pure));
  dirs.push_back(fmt::format("bind {}_t thread.x", red));
  return dirs;
}

// Inlines `name` into its readers in `sim` when every reader stays within the limits of lowered
// expressions (ir/limits.h); otherwise `sim` is unchanged and the stage keeps loops of its own.
bool inline_within_limits(Graph& sim, const std::string& name) {
  LStage producer = sim.stages[sim.find(name)];
  std::vector<std::pair<int, lir::ExprP>> inlined;
  int site = 0;
  if (!lower::try_inline(sim, producer, site, &inlined).empty()) return false;
  for (auto& [i, v] : inlined) sim.stages[i].value = std::move(v);
  sim.stages.erase(sim.stages.begin() + sim.find(name));
  return true;
}

// A chain of fused stages (each computed inside the next) nests their loops: the fusions that would
// put a stage inside more than kMaxLoops loops are dropped, from the readers down, so that stage and
// the rest of the chain start again at the root. A stage gets at most one loop more than it has
// variables (a vector split), and is computed at most at its reader's innermost loop.
void keep_loop_nests_shallow(const Graph& g, std::map<std::string, std::string>& fused_into) {
  auto loops = [](const LStage& s) { return static_cast<int>(s.vars.size() + s.rvars.size()) + 1; };
  std::map<std::string, int> outside;  // loops around a fused stage's loops
  for (size_t i = g.stages.size(); i-- > 0;) {
    const LStage& s = g.stages[i];
    auto it = fused_into.find(s.name);
    if (it == fused_into.end()) continue;
    const LStage& c = g.stages[g.find(it->second)];
    int around = loops(c) + (outside.count(c.name) ? outside[c.name] : 0);
    if (around + loops(s) > kMaxLoops) fused_into.erase(it);
    else outside[s.name] = around;
  }
}

std::string fuse_in_order(const std::vector<std::string>& vars, std::vector<std::string>& dirs) {
  std::string fused = vars[0];
  for (size_t i = 1; i < vars.size(); ++i) {
    std::string next = fused + "_" + vars[i];
    dirs.push_back(fmt::format("fuse {} {} -> {}", fused, vars[i], next));
    fused = next;
  }
  return fused;
}

// A recurrence (docs/ir.md "Recurrences"): its steps run in order, serially; the points that keep
// to themselves (local variables) are the parallel ones, outside the steps (CPU threads, GPU blocks
// and threads) or as vector lanes inside them; the points that read each other's earlier steps run
// inside each step, vectorized on the CPU and on the threads of one block on a GPU (a barrier
// ends each step).
std::vector<std::string> recurrence_directives(const LStage& s, const Target& target) {
  std::vector<std::string> local, nonlocal = s.scan_nonlocal;
  std::map<std::string, int64_t> extent;
  for (size_t i = 0; i < s.vars.size(); ++i) {
    extent[s.vars[i]] = s.extents[i];
    if (s.vars[i] != s.scan_var && std::find(nonlocal.begin(), nonlocal.end(), s.vars[i]) == nonlocal.end())
      local.push_back(s.vars[i]);
  }
  std::vector<std::string> dirs, order;
  auto reorder = [&] {
    if (order.size() >= 2) dirs.push_back(fmt::format("reorder {}", fmt::join(order, " ")));
  };
  if (target.gpu()) {
    order = local;
    order.push_back(s.scan_var);
    order.insert(order.end(), nonlocal.begin(), nonlocal.end());
    reorder();
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
  // CPU: the innermost of the step's own points (or of the local ones) as vector lanes.
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
  reorder();
  if (!vec_loop.empty()) dirs.push_back("vectorize " + vec_loop);
  if (!outer.empty()) dirs.push_back("parallel " + outer[0]);
  return dirs;
}

}  // namespace

std::string default_schedule_text(const Program& p, const Target& target) {
  Backend backend = target.backend;
  const char* backend_text = backend_name(backend);
  Graph g = lower::build_graph(p);
  std::vector<std::string> l1, l2;
  std::set<std::string> inlined, costly_inlined;
  std::map<std::string, std::string> fused_into;  // producer -> consumer it is computed inside
  Graph sim = g;  // the graph as the inlines decided so far leave it
  // Decide placement, consumers before producers so that inlining does not hide readers.
  for (const auto& s : g.stages) {
    if (s.is_output) continue;
    auto consumers = g.consumers(s.name);
    int sites = 0;
    for (const auto& c : consumers) sites += count_reads(g.stages[g.find(c)].value, s.name);
    // A stage that reduces (at its top or inside its expression) keeps its own loops: inlined, its
    // reduction would be recomputed at every read.
    bool reduces = s.has_reduction() || has_reduce(s.value) || s.is_scan();
    // Read at every point of a reduction (a padded input of a convolution), a guarded or costly
    // stage is computed once instead.
    bool reread = false;
    for (const auto& c : consumers) {
      const LStage& cs = g.stages[g.find(c)];
      reread = reread || (cs.has_reduction() && lower::reads(cs.value, s.name)) || read_in_reduction(cs.value, s.name, false);
    }
    // A stage is as costly as what is inlined into it.
    bool costly = has_costly_call(s.value);
    for (const auto& c : costly_inlined) costly = costly || lower::reads(s.value, c);
    bool cheap = !costly && !has_select(s.value);
    if (!reduces && (reread ? cheap : (sites <= 1 || !costly)) && inline_within_limits(sim, s.name)) {
      inlined.insert(s.name);
      if (costly) costly_inlined.insert(s.name);
      l2.push_back(fmt::format("  {}: inline", s.name));
      continue;
    }
    if (s.has_reduction() && consumers.size() == 1 && sites == 1 && !(backend != Backend::cpu && reduce_across_threads(s))) {
      const LStage& c = g.stages[g.find(consumers[0])];
      if (reads_pointwise(c, s.name) && !c.vars.empty() && !c.is_scan() && !(backend != Backend::cpu && reduce_across_threads(c)))
        fused_into[s.name] = c.name;
    }
  }
  keep_loop_nests_shallow(g, fused_into);
  // Loops of every stage that keeps its own.
  std::map<std::string, std::string> compute_dim;  // consumer -> the loop its fused producers go in
  bool gpu = backend != Backend::cpu;
  for (const auto& s : g.stages) {
    if (inlined.count(s.name)) continue;
    std::vector<std::string> dirs;
    bool root = !fused_into.count(s.name);
    if (s.is_scan()) {
      dirs = recurrence_directives(s, target);
      if (!dirs.empty()) l1.push_back(fmt::format("  {}: {}", s.name, fmt::join(dirs, "; ")));
      continue;
    }
    if (gpu && root && reduce_across_threads(s)) {
      l1.push_back(fmt::format("  {}: {}", s.name, fmt::join(cross_thread_directives(s), "; ")));
      continue;
    }
    if (gpu) {
      // GPU: the pure loops fused into one, split into blocks of kGpuThreads threads; a fused
      // producer is computed inside each thread, at its point.
      if (s.vars.empty()) continue;  // a scalar: one thread
      std::string fused = s.vars[0];
      for (size_t i = 1; i < s.vars.size(); ++i) {
        std::string next = fused + "_" + s.vars[i];
        dirs.push_back(fmt::format("fuse {} {} -> {}", fused, s.vars[i], next));
        fused = next;
      }
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
      if (!dirs.empty()) l1.push_back(fmt::format("  {}: {}", s.name, fmt::join(dirs, "; ")));
      continue;
    }
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
    if (root && backend == Backend::cpu && pure) {
      // Parallelize the outermost pure loop; fuse the first two when the first is short.
      std::string first = s.vars[0];
      if (pure == 1) {
        par = vec_extent > lanes && vec_extent >= 4 && lanes > 1 ? vec_dim + "_o" : "";
      } else if (s.extents[0] < 8 && pure >= 3) {
        dirs.insert(dirs.begin(), fmt::format("fuse {} {} -> {}_{}", s.vars[0], s.vars[1], s.vars[0], s.vars[1]));
        par = fmt::format("{}_{}", s.vars[0], s.vars[1]);
      } else {
        par = first;
      }
      if (!par.empty()) dirs.push_back("parallel " + par);
    }
    if (!outer_of_vec.empty()) compute_dim[s.name] = outer_of_vec;
    if (!dirs.empty()) l1.push_back(fmt::format("  {}: {}", s.name, fmt::join(dirs, "; ")));
  }
  for (const auto& [producer, consumer] : fused_into) {
    auto it = compute_dim.find(consumer);
    if (it == compute_dim.end()) continue;
    l2.push_back(fmt::format("  {}: compute_at {} {}", producer, consumer, it->second));
  }
  std::string out;
  if (!l1.empty()) out += fmt::format("schedule {}\n{}\n", backend_text, fmt::join(l1, "\n"));
  if (!l2.empty()) out += fmt::format("{}memory {}\n{}\n", out.empty() ? "" : "\n", backend_text, fmt::join(l2, "\n"));
  return out;
}

}  // namespace ekb
