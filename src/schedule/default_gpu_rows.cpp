// Row groups of the default GPU schedule (default_gpu_rows.h).
#include "schedule/default_gpu_rows.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "loops/hoisting.h"

namespace ekb::default_schedule {

namespace {

void loads_of(const lir::ExprP& e, const std::string& buffer, std::vector<const lir::Expr*>& out) {
  if (e->kind == lir::EK::load && e->name == buffer) out.push_back(e.get());
  for (const auto& a : e->args) loads_of(a, buffer, out);
}

bool is_var(const lir::ExprP& e, const std::string& v) { return e->kind == lir::EK::var && e->name == v; }

// Every read of `p` in `reader` is p[v0, ..., v(k-1)], the reader's own first k variables: one value
// per row of the reader.
bool reads_per_row(const LStage& reader, const std::string& p, size_t k) {
  if (reader.vars.size() < k) return false;
  std::vector<const lir::Expr*> reads;
  loads_of(reader.value, p, reads);
  if (reads.empty()) return false;
  for (const auto* l : reads) {
    if (l->args.size() != k) return false;
    for (size_t i = 0; i < k; ++i)
      if (!is_var(l->args[i], reader.vars[i])) return false;
  }
  return true;
}

// Every read of `e` in `reader` (at most two) is at the reader's own variables, each once, all of
// them (its pure ones and its top-level reduction's): each element of `e` is read once per read
// site, not once per point of a broadcast or of a nested reduction.
bool reads_each_element_once(const LStage& reader, const std::string& e) {
  std::vector<const lir::Expr*> reads;
  loads_of(reader.value, e, reads);
  if (reads.empty() || reads.size() > 2) return false;
  std::set<std::string> own(reader.vars.begin(), reader.vars.end());
  own.insert(reader.rvars.begin(), reader.rvars.end());
  for (const auto* l : reads) {
    std::set<std::string> seen;
    for (const auto& a : l->args)
      if (a->kind != lir::EK::var || !seen.insert(a->name).second) return false;
    if (seen != own) return false;
  }
  return true;
}

bool same_leading_extents(const LStage& s, const LStage& anchor, size_t k) {
  if (s.vars.size() != k || anchor.vars.size() < k) return false;
  for (size_t i = 0; i < k; ++i)
    if (s.extents[i] != anchor.extents[i]) return false;
  return true;
}

bool can_anchor(const LStage& s) { return !s.has_reduction() && !s.is_scan() && s.vars.size() >= 2; }

// The group of anchor `sim.stages[ai]` whose rows are its first `k` variables, over the stages not
// `taken` by another group; nullopt when no reduction would join it.
std::optional<RowGroup> group_at(const Graph& sim, int ai, size_t k, const std::set<std::string>& taken) {
  const LStage& a = sim.stages[static_cast<size_t>(ai)];
  RowGroup gr;
  gr.anchor = a.name;
  gr.outer = k;
  std::set<std::string> in = {a.name};
  // Producers come before their readers: walking back from the anchor, a stage's readers are known.
  for (int i = ai - 1; i >= 0; --i) {
    const LStage& p = sim.stages[static_cast<size_t>(i)];
    if (p.is_output || p.is_scan() || taken.count(p.name) || !same_leading_extents(p, a, k)) continue;
    bool reduction = p.has_reduction();
    // A reduction is shared by the row's threads (a float one: the tree adds in another order, within
    // the float tolerance); a per-row value is computed by every thread, so it holds no reduction.
    if (reduction ? !is_float(p.type) : has_reduce(p.value)) continue;
    auto readers = sim.consumers(p.name);
    bool ok = !readers.empty();
    for (const auto& r : readers) ok = ok && in.count(r) && reads_per_row(sim.stages[static_cast<size_t>(sim.find(r))], p.name, k);
    if (!ok) continue;
    in.insert(p.name);
    gr.members.insert(gr.members.begin(), p.name);
    if (reduction) {
      ++gr.reductions;
      gr.value_bytes = std::max(gr.value_bytes, dtype_bytes(p.type));
    }
  }
  if (gr.reductions == 0) return std::nullopt;
  for (size_t i = 0; i < a.vars.size(); ++i) (i < k ? gr.rows : gr.row_len) *= a.extents[i];
  return gr;
}

std::vector<RowGroup> groups_of(const Graph& sim) {
  std::vector<RowGroup> groups;
  std::set<std::string> taken;
  for (int ai = static_cast<int>(sim.stages.size()) - 1; ai >= 0; --ai) {
    const LStage& a = sim.stages[static_cast<size_t>(ai)];
    if (taken.count(a.name) || !can_anchor(a)) continue;
    // The most rows first: a reduction over the innermost loops (a row of a matrix, a pixel's channels).
    for (size_t k = a.vars.size() - 1; k >= 1; --k)
      if (auto gr = group_at(sim, ai, k, taken)) {
        taken.insert(a.name);
        taken.insert(gr->members.begin(), gr->members.end());
        groups.push_back(std::move(*gr));
        break;
      }
  }
  return groups;
}

// An element-wise stage with the anchor's shape that only the group reads, once per element and
// read site: recomputed by its readers.
bool recomputed_in(const Graph& sim, const LStage& e, const RowGroup& gr) {
  if (e.is_output || e.is_scan() || e.has_reduction() || has_reduce(e.value) || e.name == gr.anchor) return false;
  const LStage& a = sim.stages[static_cast<size_t>(sim.find(gr.anchor))];
  if (e.extents != a.extents) return false;
  auto readers = sim.consumers(e.name);
  if (readers.empty()) return false;
  for (const auto& r : readers) {
    if (r != gr.anchor && std::find(gr.members.begin(), gr.members.end(), r) == gr.members.end()) return false;
    if (!reads_each_element_once(sim.stages[static_cast<size_t>(sim.find(r))], e.name)) return false;
  }
  return true;
}

// The groups of `sim` once the element-wise stages only a group reads are inlined into it (each also
// in `inlined` and, when `plan` is given, as an `inline` line).
std::vector<RowGroup> settle(Graph& sim, Plan* plan, std::set<std::string>& inlined) {
  std::set<std::string> kept;  // would not inline within the limits
  for (;;) {
    std::vector<RowGroup> groups = groups_of(sim);
    std::string next;
    for (const auto& gr : groups)
      for (const auto& s : sim.stages)
        if (next.empty() && !kept.count(s.name) && recomputed_in(sim, s, gr)) next = s.name;
    if (next.empty()) return groups;
    if (inline_within_limits(sim, next)) {
      inlined.insert(next);
      if (plan) plan->memory(next, "inline");
    } else {
      kept.insert(next);
    }
  }
}

// A name no stage, input or output of `g` has: `base`, else `base`2, `base`3...
std::string fresh_stage_name(const Graph& g, const std::string& base) {
  auto taken = [&](const std::string& n) {
    if (g.find(n) >= 0 || g.input(n)) return true;
    for (const auto& o : g.outputs)
      if (o.name == n) return true;
    return false;
  };
  std::string n = base;
  for (int i = 2; taken(n); ++i) n = base + std::to_string(i);
  return n;
}

struct Hoist {
  std::string stage, name;
};

// Every reduction inside an intermediate stage's expression hoisted into a stage of its own
// (loops/hoisting.h), in `g`; the hoists in order.
std::vector<Hoist> hoist_all(Graph& g) {
  std::vector<Hoist> hoists;
  for (size_t i = 0; i < g.stages.size(); ++i) {
    if (g.stages[i].is_output || g.stages[i].is_scan()) continue;
    while (const lir::Expr* r = lower::hoistable_reduction(g.stages[i])) {
      std::string name = fresh_stage_name(g, g.stages[i].name + "_" + lir::reduce_op_name(r->redop));
      std::optional<LStage> h = lower::hoist_first_reduction(g.stages[i], name);
      g.stages.insert(g.stages.begin() + static_cast<long>(i), std::move(*h));
      ++i;  // (the stage moved one place on)
      hoists.push_back({g.stages[i].name, name});
    }
  }
  return hoists;
}

}  // namespace

std::vector<RowGroup> find_row_groups(Graph& sim, Plan& plan, std::set<std::string>& inlined) {
  // Reductions inside expressions (`Mu[t] = (sum(d) X[t, d]) / D`) join a group once hoisted into
  // stages of their own: tried on a copy, and hoisted here (`hoist_reduction`) where they join one.
  Graph trial = sim;
  std::vector<Hoist> tried = hoist_all(trial);
  std::set<std::string> trial_inlined, members;
  for (const auto& gr : settle(trial, nullptr, trial_inlined)) members.insert(gr.members.begin(), gr.members.end());
  for (const auto& h : tried) {
    if (!members.count(h.name)) continue;
    LStage& st = sim.stages[static_cast<size_t>(sim.find(h.stage))];
    std::optional<LStage> made = lower::hoist_first_reduction(st, h.name);
    sim.stages.insert(sim.stages.begin() + sim.find(h.stage), std::move(*made));
    plan.memory(h.stage, "hoist_reduction -> " + h.name);
  }
  return settle(sim, &plan, inlined);
}

void spread_over_threads(const std::string& col, int64_t threads, std::vector<std::string>& dirs) {
  dirs.push_back(fmt::format("split {} {} -> {}_o {}_t", col, threads, col, col));
  dirs.push_back(fmt::format("reorder {}_t {}_o", col, col));
  dirs.push_back(fmt::format("bind {}_t thread.x", col));
}

std::string bind_rows(const std::string& row, int64_t rows, int64_t rows_per_block, std::vector<std::string>& dirs) {
  if (row.empty()) return "";
  // One block in all: no loop bound to blocks. (A loop of one iteration bound to blocks stays a loop
  // in the code, and the rows computed inside it got loops whose trip count reads the block's index,
  // around the reductions' barriers: PoCL computed a row's sum wrong there.)
  if (rows == rows_per_block) {
    if (rows > 1) dirs.push_back(fmt::format("bind {} thread.y", row));
    return row;
  }
  if (rows_per_block > 1) {
    dirs.push_back(fmt::format("split {} {} -> {}_b {}_t", row, rows_per_block, row, row));
    dirs.push_back(fmt::format("bind {}_b block.x; bind {}_t thread.y", row, row));
    return row + "_t";
  }
  dirs.push_back(fmt::format("bind {} block.x", row));
  return row;
}

RowGroupLines row_group_lines(const LStage& anchor, size_t outer, const std::vector<const LStage*>& members, const RowLayout& l) {
  RowGroupLines r;
  int64_t row_count = 1;
  for (size_t i = 0; i < outer; ++i) row_count *= anchor.extents[i];
  std::vector<std::string> rows(anchor.vars.begin(), anchor.vars.begin() + static_cast<long>(outer));
  std::vector<std::string> cols(anchor.vars.begin() + static_cast<long>(outer), anchor.vars.end());
  std::string row = fuse_in_order(rows, r.anchor), col = fuse_in_order(cols, r.anchor);
  if (l.row_threads <= 1) {
    // Short rows: a thread per row, its reductions serial in the thread.
    r.anchor.push_back(fmt::format("split {} {} -> {}_b {}_t", row, l.rows_per_block, row, row));
    r.anchor.push_back(fmt::format("bind {}_b block.x; bind {}_t thread.x", row, row));
    r.at = row + "_t";
    r.inner = col;
  } else {
    spread_over_threads(col, l.row_threads, r.anchor);
    r.at = bind_rows(row, row_count, l.rows_per_block, r.anchor);
    r.inner = col + "_o";
  }
  for (const LStage* m : members) {
    std::vector<std::string> dirs;
    if (m->has_reduction() && l.row_threads > 1) spread_over_threads(fuse_in_order(m->rvars, dirs), l.row_threads, dirs);
    r.members.push_back({m->name, dirs});
  }
  return r;
}

}  // namespace ekb::default_schedule
