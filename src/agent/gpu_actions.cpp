// The GPU action tables (actions.h): for each kernel's loop nest, threads per block, elements per
// thread and the threads that reduce a point together, and for a row group of the default schedule
// (its reductions computed in the rows of their reader) the threads per row and rows per block
// (L1); producers fused into their consumer's
// threads, inlining, and block tiles for reductions over two pure axes — each thread a register
// tile, the operands' panels cached in shared memory — and those panels double-buffered (L2). Factor sets: powers of two up to the
// target's threads per block, tiles whose shared panels fit its shared memory per block.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>

#include "agent/action_util.h"
#include "agent/cpu_actions.h"
#include "lower/simplify.h"
#include "schedule/default_common.h"
#include "schedule/default_gpu_rows.h"

namespace ekb::agent::detail {

namespace {

void add(std::vector<Action>& out, AgentLayer layer, ActionKind kind, std::string name, AgentProgram p) {
  out.push_back({layer, std::move(name), std::move(p), kind});
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t n = 1;
  for (int64_t x : v) n *= x;
  return n;
}

// `vars` fused into one loop (directives appended to `dirs`); its name. (The default schedule's.)
std::string fuse_all(const std::vector<std::string>& vars, std::vector<std::string>& dirs) {
  return default_schedule::fuse_in_order(vars, dirs);
}

std::vector<int64_t> thread_counts(const Target& t, int64_t at_most) {
  std::vector<int64_t> v;
  for (int64_t n = 32; n <= t.max_threads_per_block && n <= std::max<int64_t>(32, at_most); n *= 2) v.push_back(n);
  return v;
}

// A stage's pure loops as one, over blocks of `threads` threads, each thread taking `per_thread`
// elements a block's width apart (so that neighbouring threads touch neighbouring elements).
std::vector<std::string> elementwise_line(const lower::LStage& st, int64_t threads, int64_t per_thread) {
  std::vector<std::string> dirs;
  std::string f = fuse_all(st.vars, dirs);
  if (per_thread <= 1) {
    dirs.push_back(fmt::format("split {} {} -> {}_b {}_t", f, threads, f, f));
    dirs.push_back(fmt::format("bind {}_b block.x; bind {}_t thread.x", f, f));
    return dirs;
  }
  dirs.push_back(fmt::format("split {} {} -> {}_b {}_r", f, threads * per_thread, f, f));
  dirs.push_back(fmt::format("split {}_r {} -> {}_u {}_t", f, threads, f, f));
  dirs.push_back(fmt::format("reorder {}_t {}_u", f, f));
  dirs.push_back(fmt::format("bind {}_b block.x; bind {}_t thread.x; unroll {}_u", f, f, f));
  return dirs;
}

// A block per output point whose `threads` threads reduce it together.
std::vector<std::string> cross_thread_line(const lower::LStage& st, int64_t threads) {
  std::vector<std::string> dirs;
  std::string pure = st.vars.empty() ? "" : fuse_all(st.vars, dirs);
  std::string red = fuse_all(st.rvars, dirs);
  dirs.push_back(fmt::format("split {} {} -> {}_s {}_t", red, threads, red, red));
  dirs.push_back(fmt::format("reorder {}_t {}_s", red, red));
  if (!pure.empty()) dirs.push_back(fmt::format("bind {} block.x", pure));
  dirs.push_back(fmt::format("bind {}_t thread.x", red));
  return dirs;
}

// The positions of a recurrence's independent points among its variables: neither the steps' variable
// nor one whose points read each other's earlier steps (docs/ir.md "Recurrences").
std::vector<size_t> independent_vars(const lower::LStage& st) {
  std::vector<size_t> v;
  for (size_t i = 0; i < st.vars.size(); ++i)
    if (st.vars[i] != st.scan_var &&
        std::find(st.scan_nonlocal.begin(), st.scan_nonlocal.end(), st.vars[i]) == st.scan_nonlocal.end())
      v.push_back(i);
  return v;
}

// A recurrence's independent points as one loop over blocks of `threads` threads, its steps serial
// inside each thread (and the points that read each other inside them).
std::vector<std::string> scan_line(const lower::LStage& st, const std::vector<size_t>& indep_at, int64_t threads) {
  std::vector<std::string> indep;
  for (size_t i : indep_at) indep.push_back(st.vars[i]);
  std::vector<std::string> order = indep;
  order.push_back(st.scan_var);
  order.insert(order.end(), st.scan_nonlocal.begin(), st.scan_nonlocal.end());
  std::vector<std::string> dirs;
  if (order != st.vars) dirs.push_back(fmt::format("reorder {}", fmt::join(order, " ")));
  std::string f = fuse_all(indep, dirs);
  dirs.push_back(fmt::format("split {} {} -> {}_b {}_t", f, threads, f, f));
  dirs.push_back(fmt::format("bind {}_b block.x; bind {}_t thread.x", f, f));
  return dirs;
}

// A row group (schedule/default_gpu_rows.h): a root stage whose rows other stages are computed at,
// one value per row, some of them reductions spread over the row's threads. Its layouts: threads per
// row (powers of two from 32), and for rows up to 256 elements also several rows per block (up to
// 256 threads); every member's reduction follows, and is computed at the new row loop.
void row_group_actions(const AgentProgram& p, const StageView& v, const std::vector<StageView>& all, const Target& t,
                       std::vector<Action>& out) {
  const lower::LStage& st = *v.stage;
  if (!v.root() || st.created || st.has_reduction() || st.is_scan() || st.vars.size() < 2) return;
  std::vector<const lower::LStage*> members;
  bool reduces = false;
  for (const auto& m : all) {
    if (m.sched->compute != StageSchedule::Compute::at || m.sched->at_stage != st.name) continue;
    if (m.stage->vars.empty() || m.stage->vars.size() >= st.vars.size()) return;  // not per row: another kind of fusion
    if (!members.empty() && m.stage->vars.size() != members[0]->vars.size()) return;
    members.push_back(m.stage);
    reduces = reduces || m.stage->has_reduction();
  }
  if (!reduces) return;
  size_t outer = members[0]->vars.size();
  int64_t rows = 1, row_len = 1;
  for (size_t i = 0; i < st.vars.size(); ++i) (i < outer ? rows : row_len) *= st.extents[i];
  for (int64_t threads : thread_counts(t, row_len)) {
    std::vector<int64_t> per_block = {1};
    if (row_len <= 256)
      for (int64_t d = std::min<int64_t>(rows, 256 / threads); d > 1; --d)
        if (rows % d == 0) {
          per_block.push_back(d);
          break;
        }
    for (int64_t rb : per_block) {
      default_schedule::RowLayout l;
      l.row_threads = threads;
      l.rows_per_block = rb;
      if (l.threads() > t.max_threads_per_block) continue;
      default_schedule::RowGroupLines lines = default_schedule::row_group_lines(st, outer, members, l);
      AgentProgram q = with_line(p, st.name, lines.anchor, false);
      for (const auto& [m, dirs] : lines.members) {
        q = with_line(q, m, dirs, false);
        drop_directives(q, m, true, "compute_at");
        q = with_appended(q, m, fmt::format("compute_at {} {}", st.name, lines.at), true);
      }
      if (q == p) continue;
      add(out, AgentLayer::schedule, ActionKind::gpu_reduction_threads,
          rb > 1 ? fmt::format("{}: {} threads per row, {} rows per block", st.name, threads, rb)
                 : fmt::format("{}: {} threads per row, a block per row", st.name, threads),
          std::move(q));
    }
  }
}

void schedule_actions_for(const AgentProgram& p, const StageView& v, const Target& t, std::vector<Action>& out) {
  const lower::LStage& st = *v.stage;
  if (!v.root() || st.created || st.vars.empty()) return;
  if (st.is_scan()) {  // steps stay serial: only the independent points spread over threads
    std::vector<size_t> indep = independent_vars(st);
    if (indep.empty()) return;
    int64_t points = 1;
    for (size_t i : indep) points *= st.extents[i];
    for (int64_t threads : thread_counts(t, points))
      add(out, AgentLayer::schedule, ActionKind::gpu_threads, fmt::format("{}: {} threads per block over its sequences", st.name, threads),
          with_line(p, st.name, scan_line(st, indep, threads), false));
    return;
  }
  int64_t points = product(st.extents), rext = st.has_reduction() ? product(st.rextents) : 1;
  const std::string& s = st.name;
  for (int64_t threads : thread_counts(t, points)) {
    add(out, AgentLayer::schedule, ActionKind::gpu_threads, fmt::format("{}: {} threads per block", s, threads),
        with_line(p, s, elementwise_line(st, threads, 1), false));
    for (int64_t e : {2, 4, 8})
      if (threads * e <= points)
        add(out, AgentLayer::schedule, ActionKind::gpu_elements,
            fmt::format("{}: {} threads per block, {} elements each", s, threads, e), with_line(p, s, elementwise_line(st, threads, e), false));
  }
  if (st.has_reduction() && is_float(st.type) && rext >= 32)
    for (int64_t threads : thread_counts(t, rext))
      add(out, AgentLayer::schedule, ActionKind::gpu_reduction_threads, fmt::format("{}: {} threads reduce each point", s, threads),
          with_line(p, s, cross_thread_line(st, threads), false));
}

// The thread loop of a stage's nest (its innermost loop bound to thread.x), if any.
const LoopInfo* thread_loop(const StageView& v) {
  for (auto it = v.loops.rbegin(); it != v.loops.rend(); ++it)
    if (it->kind == lir::LoopKind::gpu_thread) return &*it;
  return nullptr;
}

void fusion_actions(const AgentProgram& p, const Analysis& a, const StageView& v, const std::vector<StageView>& all,
                    std::vector<Action>& out) {
  const lower::LStage& st = *v.stage;
  const std::string& s = st.name;
  if (st.is_output) return;
  const StageLine* l2 = p.line(s, true);
  if (v.inlined()) {
    for (size_t i : find_directives(l2, "inline"))
      add(out, AgentLayer::memory, ActionKind::inline_stage, fmt::format("{}: not inlined (its own kernel)", s), with_replaced(p, s, true, i, ""));
    return;
  }
  if (!st.has_reduction() && !st.created && find_directives(l2, "inline").empty()) {
    AgentProgram q = with_line(p, s, {}, false);
    drop_directives(q, s, true, "compute_at");
    add(out, AgentLayer::memory, ActionKind::inline_stage, fmt::format("{}: inlined into its readers", s), with_appended(q, s, "inline", true));
  }
  auto consumers = a.graph.consumers(s);
  if (consumers.size() != 1 || !v.root()) return;
  for (const auto& x : all) {
    if (x.stage->name != consumers[0] || x.inlined()) continue;
    const LoopInfo* tl = thread_loop(x);
    if (!tl) continue;
    AgentProgram q = with_line(p, s, {}, false);
    drop_directives(q, s, true, "compute_at");
    add(out, AgentLayer::memory, ActionKind::gpu_fuse, fmt::format("{}: computed in each thread of {}", s, x.stage->name),
        with_appended(q, s, fmt::format("compute_at {} {}", x.stage->name, tl->name), true));
  }
}

// The inputs a reduction stage reads with a reduction variable: the operands a block tile caches.
std::vector<std::string> reduced_operands(const lower::LStage& st, const Analysis& a) {
  std::vector<std::string> out;
  std::function<void(const lir::ExprP&)> walk = [&](const lir::ExprP& e) {
    if (!e) return;
    if (e->kind == lir::EK::load && a.graph.input(e->name) && std::find(out.begin(), out.end(), e->name) == out.end()) {
      bool uses_r = false;
      for (const auto& x : e->args)
        for (const auto& r : st.rvars) uses_r = uses_r || (x->kind == lir::EK::var && x->name == r);
      if (uses_r) out.push_back(e->name);
    }
    for (const auto& x : e->args) walk(x);
  };
  walk(st.value);
  return out;
}

// A thread's columns of a block tile: `tn` of them, in groups of 4 (one 16-byte vector) spread
// across the tile when tn >= 8 (thread t owns columns t*4 + {0..3}, then bn/groups further, ...),
// so that the threads of a warp read neighbouring 16-byte pieces of the shared panel of B (no bank
// conflicts); the register tile is still tm x tn (bounds inference solves the strided region).
struct ThreadColumns {
  std::vector<std::string> l1;  // the directives that split the tile's columns and order the loops
  std::string text;             // how the action's name describes them
};
ThreadColumns thread_columns(int64_t bn, int64_t tn) {
  if (tn >= 8 && tn % 4 == 0) {
    int64_t groups = tn / 4, apart = bn / groups;
    return {{fmt::format("split ni {} -> no nq", apart), "split nq 4 -> tx ny", "reorder bm bn ty tx my no ny"},
            fmt::format(" (columns in {} groups of 4, {} apart)", groups, apart)};
  }
  return {{fmt::format("split ni {} -> tx ny", tn), "reorder bm bn ty tx my ny"}, ""};
}

// The blocks' order: rows of blocks in groups of 8 along block.x (8 row panels of A and the
// column panels of B that a wave of blocks reads together stay in L2), when there are enough rows.
std::vector<std::string> block_binding(int64_t block_rows) {
  if (block_rows >= 16 && block_rows % 8 == 0)
    return {"split bm 8 -> bmo bmi", "reorder bmo bn bmi", "fuse bn bmi -> bg", "bind bmo block.y; bind bg block.x"};
  return {"bind bm block.y; bind bn block.x"};
}

// The copy of a shared panel of `elements`, spread over the block's threads: 4 neighbouring elements
// per thread and turn where that divides evenly (one 16-byte load and store), else one.
std::vector<std::string> panel_copy(int64_t elements, int64_t threads, int64_t tx) {
  if (elements % (threads * 4) == 0)
    return {"fuse ax0 ax1 -> f", "split f 4 -> fq fv", fmt::format("split fq {} -> fo fi", threads), fmt::format("split fi {} -> ty tx", tx),
            "bind ty thread.y; bind tx thread.x"};
  return {"fuse ax0 ax1 -> f", fmt::format("split f {} -> fo fi", threads), fmt::format("split fi {} -> ty tx", tx),
          "bind ty thread.y; bind tx thread.x"};
}

// Whether some load of `buffer` in `e` has variable `v` among its indices.
bool indexed_by(const lir::ExprP& e, const std::string& buffer, const std::string& v) {
  if (!e) return false;
  if (e->kind == lir::EK::load && e->name == buffer)
    for (const auto& x : e->args)
      if (lower::uses_var(x, v)) return true;
  for (const auto& x : e->args)
    if (indexed_by(x, buffer, v)) return true;
  return false;
}

void block_tile_actions(const AgentProgram& p, const Analysis& a, const StageView& v, const Target& t, std::vector<Action>& out) {
  const lower::LStage& st = *v.stage;
  if (!st.has_reduction() || st.vars.size() < 2 || st.created || st.rvars.size() != 1 || !is_float(st.type)) return;
  const std::string& s = st.name;
  size_t n = st.vars.size();
  const std::string &mv = st.vars[n - 2], &nv = st.vars[n - 1], &kv = st.rvars[0];
  int64_t em = st.extents[n - 2], en = st.extents[n - 1], ek = st.rextents[0];
  for (size_t i = 0; i + 2 < n; ++i)
    if (st.extents[i] != 1) return;  // a batch of matrices: not handled
  auto operands = reduced_operands(st, a);
  if (operands.empty()) return;
  std::string local = fresh_name(a, s + "_l");
  for (auto [bm, bn] : std::vector<std::pair<int64_t, int64_t>>{{32, 32}, {64, 64}, {128, 64}, {64, 128}, {128, 128}, {64, 256}, {128, 256}})
    for (auto [tm, tn] : std::vector<std::pair<int64_t, int64_t>>{{4, 4}, {8, 4}, {4, 8}, {8, 8}, {8, 16}})
      for (int64_t bk : {8, 16, 32}) {
        if (em % bm || en % bn || ek % bk || bm % tm || bn % tn) continue;
        int64_t ty = bm / tm, tx = bn / tn, threads = ty * tx;
        if (threads < 32 || threads > t.max_threads_per_block) continue;
        if ((bm + bn) * bk * 4 > t.shared_memory_per_block) continue;
        ThreadColumns cols = thread_columns(bn, tn);
        std::vector<std::string> l1 = {fmt::format("tile {} {} {} {} -> bm bn mi ni", mv, nv, bm, bn), fmt::format("split mi {} -> ty my", tm)};
        l1.insert(l1.end(), cols.l1.begin(), cols.l1.end());
        std::vector<std::string> order = block_binding(em / bm);
        l1.insert(l1.end(), order.begin(), order.end());
        l1.push_back("bind ty thread.y; bind tx thread.x");
        std::vector<std::string> cl = {fmt::format("split {} {} -> ko ki", kv, bk), fmt::format("reorder ko ki {} {}", mv, nv), "unroll ki",
                                       fmt::format("unroll {} {}", mv, tm), fmt::format("unroll {} {}", nv, tn)};
        std::vector<std::string> l2 = {fmt::format("cache_write local at tx -> {}", local)};
        std::vector<std::string> l2_local;
        AgentProgram q = with_line(p, s, l1, false);
        drop_directives(q, s, true, "compute_at");
        for (const auto& op : operands) {
          std::string cache = fresh_name(a, op + "_s");
          l2_local.push_back(fmt::format("cache_read {} shared at ko -> {}", op, cache));
          // The block's threads copy the panel together (an operand read along k: bm x bk or bk x bn).
          int64_t elements = bk * (indexed_by(st.value, op, nv) ? bn : bm);
          q = with_line(q, cache, panel_copy(elements, threads, tx), false);
        }
        auto& mem = q.line_for(s, true).directives;
        mem.insert(mem.end(), l2.begin(), l2.end());
        q.line_for(local, true).directives = l2_local;
        q = with_line(q, local, cl, false);
        add(out, AgentLayer::memory, ActionKind::gpu_block_tile,
            fmt::format("{}: block tile {}x{}, {}x{} per thread{}, k by {}", s, bm, bn, tm, tn, cols.text, bk), std::move(q));
      }
}

// The shared-memory caches a stage's memory line copies inside a loop (`cache_read X shared at AXIS -> NAME`),
// all double-buffered at once: the lowering requires every cache of a loop or none.
void double_buffer_actions(const AgentProgram& p, const StageView& v, std::vector<Action>& out) {
  const StageLine* line = p.line(v.stage->name, true);
  if (!line || !find_directives(line, "double_buffer").empty()) return;
  std::vector<std::string> caches;
  for (size_t i : find_directives(line, "cache_read")) {
    std::vector<std::string> w = words_of(line->directives[i]);  // cache_read X shared at AXIS -> NAME
    if (w.size() == 7 && w[2] == "shared" && w[3] == "at" && w[5] == "->") caches.push_back(w[6]);
  }
  if (caches.empty()) return;
  AgentProgram q = p;
  for (const auto& c : caches) q = with_appended(q, v.stage->name, "double_buffer " + c, true);
  add(out, AgentLayer::memory, ActionKind::gpu_double_buffer,
      fmt::format("{}: double-buffered {}", v.stage->name, fmt::join(caches, ", ")), std::move(q));
}

}  // namespace

void gpu_schedule_actions(const AgentProgram& p, const Analysis& a, const Target& t, std::vector<Action>& out) {
  auto views = stage_views(a);
  for (const auto& v : views)
    if (!v.inlined()) {
      schedule_actions_for(p, v, t, out);
      row_group_actions(p, v, views, t, out);
    }
}

void gpu_memory_actions(const AgentProgram& p, const Analysis& a, const Target& t, std::vector<Action>& out) {
  auto views = stage_views(a);
  for (const auto& v : views) {
    fusion_actions(p, a, v, views, out);
    if (!v.inlined()) block_tile_actions(p, a, v, t, out);
    double_buffer_actions(p, v, out);
  }
}

}  // namespace ekb::agent::detail
