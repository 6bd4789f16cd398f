// The CPU action tables (actions.h): L1 marks and loop nests, L2 placement, register tiles and
// vector reductions.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>

#include "agent/action_util.h"
#include "agent/cpu_actions.h"

namespace ekb::agent::detail {

namespace {

void add(std::vector<Action>& out, AgentLayer layer, ActionKind kind, std::string name, AgentProgram p) {
  out.push_back({layer, std::move(name), std::move(p), kind});
}

// The loop a parallel mark would go on: the outermost pure serial loop.
const LoopInfo* outermost_pure(const StageView& v) {
  for (const auto& l : v.loops)
    if (!l.reduction && l.kind == lir::LoopKind::serial) return &l;
  return nullptr;
}

// The innermost loop, when it is pure and still serial: where vector lanes go.
const LoopInfo* innermost_pure(const StageView& v) {
  if (v.loops.empty()) return nullptr;
  const LoopInfo& l = v.loops.back();
  return !l.reduction && l.kind == lir::LoopKind::serial ? &l : nullptr;
}

// ---- L1: marks on the existing nest ----

// `p` with every memory directive that places something at `stage`'s loop `from` placing it at `to`
// (`cache_write ... at from`, `cache_read ... at from` on the stage's own line; `compute_at stage
// from`, `store_at stage from` on the others').
AgentProgram with_attach_point_renamed(AgentProgram p, const std::string& stage, const std::string& from, const std::string& to) {
  for (auto& line : p.l2)
    for (auto& d : line.directives) {
      std::vector<std::string> w = words_of(d);
      if (w.empty()) continue;
      bool own = line.stage == stage && (w[0] == "cache_write" || w[0] == "cache_read");
      for (size_t i = 1; i < w.size(); ++i) {
        if (own && w[i - 1] == "at" && w[i] == from) w[i] = to;
        if (!own && (w[0] == "compute_at" || w[0] == "store_at") && i == 2 && w[1] == stage && w[i] == from) w[i] = to;
      }
      d = fmt::format("{}", fmt::join(w, " "));
    }
  return p;
}

// A parallel loop inside serial pure loops starts its threads once per iteration of those: split in
// as many pieces as threads, the piece loop outermost and parallel, each thread owns a contiguous
// share and the threads start once (work the loops between compute, e.g. a packed panel, is done
// by each thread for its share).
void hoisted_parallel_action(const AgentProgram& p, const StageView& v, const Target& t, size_t mark, const std::string& cur,
                             std::vector<Action>& out) {
  const std::string& s = v.stage->name;
  size_t pos = 0;
  while (pos < v.loops.size() && v.loops[pos].name != cur) ++pos;
  if (pos == 0 || pos == v.loops.size() || t.threads < 2) return;
  const LoopInfo& l = v.loops[pos];
  if (l.extent % t.threads != 0 || l.extent / t.threads < 2) return;
  for (size_t i = 0; i < pos; ++i)
    if (v.loops[i].reduction || v.loops[i].kind != lir::LoopKind::serial) return;
  std::string piece = l.name + "_t", share = l.name + "_s";
  for (const auto& x : v.loops)
    if (x.name == piece || x.name == share) return;
  std::vector<std::string> order = {piece};
  for (size_t i = 0; i < v.loops.size(); ++i)
    if (!v.loops[i].reduction) order.push_back(i == pos ? share : v.loops[i].name);
  AgentProgram q = with_replaced(p, s, false, mark, "");
  q = with_structure(q, s, fmt::format("split {} {} -> {} {}", l.name, l.extent / t.threads, piece, share));
  q = with_structure(q, s, fmt::format("reorder {}", fmt::join(order, " ")));
  q = with_appended(q, s, "parallel " + piece, false);
  q = with_attach_point_renamed(q, s, l.name, share);
  add(out, AgentLayer::schedule, ActionKind::parallel, fmt::format("{}: parallel {} in {} pieces, outermost", s, l.name, t.threads),
      std::move(q));
}

void parallel_actions(const AgentProgram& p, const StageView& v, const Target& t, std::vector<Action>& out) {
  const std::string& s = v.stage->name;
  const StageLine* line = p.line(s, false);
  auto have = find_directives(line, "parallel");
  if (!have.empty()) {
    add(out, AgentLayer::schedule, ActionKind::parallel, fmt::format("{}: no parallel loop", s), with_replaced(p, s, false, have[0], ""));
    // The parallel loop moved one level inward (more, smaller pieces; or one nest that balances better).
    std::string cur = line->directives[have[0]].substr(9);
    for (size_t i = 0; i + 1 < v.loops.size(); ++i)
      if (v.loops[i].name == cur && !v.loops[i + 1].reduction && v.loops[i + 1].kind == lir::LoopKind::serial)
        add(out, AgentLayer::schedule, ActionKind::parallel, fmt::format("{}: parallel {} instead of {}", s, v.loops[i + 1].name, cur),
            with_replaced(p, s, false, have[0], "parallel " + v.loops[i + 1].name));
    hoisted_parallel_action(p, v, t, have[0], cur, out);
    return;
  }
  if (!v.root() || t.threads < 2) return;
  if (const LoopInfo* l = outermost_pure(v)) {
    add(out, AgentLayer::schedule, ActionKind::parallel, fmt::format("{}: parallel {}", s, l->name), with_appended(p, s, "parallel " + l->name, false));
    // Two outer pure loops fused first, when the outer one is short for the threads.
    for (size_t i = 0; i + 1 < v.loops.size(); ++i)
      if (&v.loops[i] == l && !v.loops[i + 1].reduction && v.loops[i + 1].kind == lir::LoopKind::serial &&
          l->extent < 4 * t.threads) {
        std::string fused = l->name + "_" + v.loops[i + 1].name;
        AgentProgram q = with_structure(p, s, fmt::format("fuse {} {} -> {}", l->name, v.loops[i + 1].name, fused));
        add(out, AgentLayer::schedule, ActionKind::parallel, fmt::format("{}: fuse {} {} and parallel", s, l->name, v.loops[i + 1].name),
            with_appended(q, s, "parallel " + fused, false));
      }
  }
}

void vectorize_actions(const AgentProgram& p, const StageView& v, const Target& t, std::vector<Action>& out) {
  const std::string& s = v.stage->name;
  const StageLine* line = p.line(s, false);
  auto have = find_directives(line, "vectorize");
  if (!have.empty()) {
    std::string d = line->directives[have[0]];
    std::string axis = d.substr(10, d.find(' ', 10) == std::string::npos ? std::string::npos : d.find(' ', 10) - 10);
    for (int64_t w : vector_widths(t, v.stage->type, 0)) {
      std::string nd = fmt::format("vectorize {} {}", axis, w);
      if (nd != d) add(out, AgentLayer::schedule, ActionKind::vectorize, fmt::format("{}: vectorize {} by {}", s, axis, w), with_replaced(p, s, false, have[0], nd));
    }
    add(out, AgentLayer::schedule, ActionKind::vectorize, fmt::format("{}: no vector lanes", s), with_replaced(p, s, false, have[0], ""));
    return;
  }
  if (const LoopInfo* l = innermost_pure(v); l && l->extent >= 2)
    for (int64_t w : vector_widths(t, v.stage->type, l->extent))
      add(out, AgentLayer::schedule, ActionKind::vectorize, fmt::format("{}: vectorize {} by {}", s, l->name, w),
          with_appended(p, s, fmt::format("vectorize {} {}", l->name, w), false));
}

void unroll_actions(const AgentProgram& p, const StageView& v, std::vector<Action>& out) {
  const std::string& s = v.stage->name;
  const StageLine* line = p.line(s, false);
  for (size_t i : find_directives(line, "unroll"))
    add(out, AgentLayer::schedule, ActionKind::unroll, fmt::format("{}: no `{}`", s, line->directives[i]), with_replaced(p, s, false, i, ""));
  // The innermost two serial loops (not vector lanes) that are not unrolled yet.
  int taken = 0;
  for (auto it = v.loops.rbegin(); it != v.loops.rend() && taken < 2; ++it) {
    if (it->kind == lir::LoopKind::vectorized) continue;
    if (it->kind != lir::LoopKind::serial) break;
    ++taken;
    if (it->extent < 2) continue;
    for (int64_t f : {2, 4, 8}) {
      if (f >= it->extent) break;
      add(out, AgentLayer::schedule, ActionKind::unroll, fmt::format("{}: unroll {} by {}", s, it->name, f),
          with_appended(p, s, fmt::format("unroll {} {}", it->name, f), false));
    }
    if (it->extent <= 16)
      add(out, AgentLayer::schedule, ActionKind::unroll, fmt::format("{}: unroll {} fully", s, it->name), with_appended(p, s, "unroll " + it->name, false));
  }
}

void reorder_actions(const AgentProgram& p, const StageView& v, std::vector<Action>& out) {
  const std::string& s = v.stage->name;
  for (size_t i = 0; i + 1 < v.loops.size(); ++i) {
    const auto &a = v.loops[i], &b = v.loops[i + 1];
    if (a.kind != lir::LoopKind::serial || b.kind != lir::LoopKind::serial) continue;
    add(out, AgentLayer::schedule, ActionKind::reorder, fmt::format("{}: {} inside {}", s, a.name, b.name),
        with_structure(p, s, fmt::format("reorder {} {}", b.name, a.name)));
  }
}

// ---- L1: loop nests rebuilt from the stage's own variables ----

// The marks a rebuilt nest gets: parallel on its first loop (at the root, with threads), vector
// lanes on its last loop when it is pure.
std::vector<std::string> marks(const StageView& v, const Target& t, const std::vector<std::string>& order,
                               const std::string& vector_loop, int64_t vector_extent) {
  std::vector<std::string> m;
  if (v.root() && t.threads > 1 && !order.empty()) m.push_back("parallel " + order.front());
  int lanes = t.lanes(v.stage->type);
  if (!vector_loop.empty() && lanes > 1 && vector_extent >= 2)
    m.push_back(fmt::format("vectorize {} {}", vector_loop, std::min<int64_t>(lanes, vector_extent)));
  return m;
}

void nest_actions(const AgentProgram& p, const StageView& v, const Target& t, std::vector<Action>& out) {
  const lower::LStage& st = *v.stage;
  const std::string& s = st.name;
  size_t n = st.vars.size();
  if (n == 0) return;
  std::vector<std::string> reds = st.rvars;
  int lanes = std::max(1, t.lanes(st.type));
  // Tiles of the two innermost pure variables, reductions inside the tile or between its halves.
  if (n >= 2) {
    const std::string &a = st.vars[n - 2], &b = st.vars[n - 1];
    int64_t ea = st.extents[n - 2], eb = st.extents[n - 1];
    for (int64_t fa : tile_factors(ea, 2, 64, 4))
      for (int64_t fb : tile_factors(eb, std::max(2, lanes), 256, 4)) {
        std::vector<std::string> order(st.vars.begin(), st.vars.end() - 2);
        order.insert(order.end(), {a + "_o", b + "_o"});
        for (bool red_inside : {true, false}) {
          if (!red_inside && reds.empty()) continue;
          std::vector<std::string> ord = order;
          if (!red_inside) ord.insert(ord.end(), reds.begin(), reds.end());
          ord.insert(ord.end(), {a + "_i", b + "_i"});
          if (red_inside) ord.insert(ord.end(), reds.begin(), reds.end());
          std::vector<std::string> dirs = {fmt::format("tile {} {} {} {} -> {}_o {}_o {}_i {}_i", a, b, fa, fb, a, b, a, b)};
          dirs.push_back(fmt::format("reorder {}", fmt::join(ord, " ")));
          auto m = marks(v, t, ord, red_inside && !reds.empty() ? "" : b + "_i", fb);
          dirs.insert(dirs.end(), m.begin(), m.end());
          add(out, AgentLayer::schedule, ActionKind::tile,
              fmt::format("{}: tile {} x {} by {} x {}{}", s, a, b, fa, fb, reds.empty() ? "" : red_inside ? "" : ", reduction outside the tile"),
              with_line(p, s, dirs, false));
        }
      }
  }
  // The innermost pure variable split, its inner piece innermost under the reduction: the
  // reduction then accumulates whole vectors.
  if (!reds.empty()) {
    const std::string& b = st.vars[n - 1];
    for (int64_t fb : tile_factors(st.extents[n - 1], std::max(2, lanes), 4 * lanes, 3)) {
      std::vector<std::string> ord(st.vars.begin(), st.vars.end() - 1);
      ord.push_back(b + "_o");
      ord.insert(ord.end(), reds.begin(), reds.end());
      ord.push_back(b + "_i");
      std::vector<std::string> dirs = {fmt::format("split {} {} -> {}_o {}_i", b, fb, b, b), fmt::format("reorder {}", fmt::join(ord, " "))};
      auto m = marks(v, t, ord, b + "_i", fb);
      dirs.insert(dirs.end(), m.begin(), m.end());
      add(out, AgentLayer::schedule, ActionKind::split, fmt::format("{}: {} in pieces of {} under the reduction", s, b, fb), with_line(p, s, dirs, false));
    }
  }
  // Interchanges: each pure variable innermost (the rest in order), with lanes on it.
  if (n >= 2)
    for (size_t i = 0; i + 1 < n; ++i) {
      std::vector<std::string> ord;
      for (size_t j = 0; j < n; ++j)
        if (j != i) ord.push_back(st.vars[j]);
      ord.push_back(st.vars[i]);
      ord.insert(ord.end(), reds.begin(), reds.end());
      std::vector<std::string> dirs = {fmt::format("reorder {}", fmt::join(ord, " "))};
      auto m = marks(v, t, ord, reds.empty() ? st.vars[i] : "", st.extents[i]);
      dirs.insert(dirs.end(), m.begin(), m.end());
      add(out, AgentLayer::schedule, ActionKind::interchange, fmt::format("{}: {} innermost", s, st.vars[i]), with_line(p, s, dirs, false));
    }
}

// ---- L2: placement ----

void placement_actions(const AgentProgram& p, const Analysis& a, const StageView& v, const std::vector<StageView>& all,
                       std::vector<Action>& out) {
  const lower::LStage& st = *v.stage;
  const std::string& s = st.name;
  // (A stage a memory directive made — a cache, packed panels, partial sums — is placed by it.)
  if (st.is_output || st.created) return;
  const StageLine* l2 = p.line(s, true);
  if (v.inlined()) {
    for (size_t i : find_directives(l2, "inline"))
      add(out, AgentLayer::memory, ActionKind::inline_stage, fmt::format("{}: not inlined (its own loops)", s), with_replaced(p, s, true, i, ""));
    return;
  }
  auto at = find_directives(l2, "compute_at");
  if (!at.empty()) add(out, AgentLayer::memory, ActionKind::compute_at, fmt::format("{}: computed at the root", s), with_replaced(p, s, true, at[0], ""));
  if (!st.has_reduction() && !st.created && find_directives(l2, "inline").empty()) {
    AgentProgram q = with_line(p, s, {}, false);
    drop_directives(q, s, true, "compute_at");
    add(out, AgentLayer::memory, ActionKind::inline_stage, fmt::format("{}: inlined into its readers", s), with_appended(q, s, "inline", true));
  }
  for (const auto& c : a.graph.consumers(s)) {
    const StageView* cv = nullptr;
    for (const auto& x : all)
      if (x.stage->name == c) cv = &x;
    if (!cv || cv->inlined()) continue;
    for (const auto& l : cv->loops) {
      if (l.reduction || l.kind == lir::LoopKind::vectorized) continue;
      AgentProgram q = p;
      drop_directives(q, s, true, "compute_at");
      drop_directives(q, s, false, "parallel");
      add(out, AgentLayer::memory, ActionKind::compute_at, fmt::format("{}: computed at {}.{}", s, c, l.name),
          with_appended(q, s, fmt::format("compute_at {} {}", c, l.name), true));
    }
  }
}

// ---- L2: register tiles ----

// An input the stage reads with the reduction variable and, last, the innermost pure variable: the
// operand whose panels a register tile streams (B of C = A x B).
std::optional<std::pair<std::string, int>> streamed_operand(const lower::LStage& st, const Analysis& a) {
  if (st.vars.empty() || st.rvars.empty()) return std::nullopt;
  const std::string& b = st.vars.back();
  std::optional<std::pair<std::string, int>> found;
  std::function<void(const lir::ExprP&)> walk = [&](const lir::ExprP& e) {
    if (!e || found) return;
    if (e->kind == lir::EK::load && a.graph.input(e->name) && e->args.size() >= 2) {
      const auto& last = e->args.back();
      bool uses_r = false;
      for (const auto& x : e->args)
        for (const auto& r : st.rvars) uses_r = uses_r || (x->kind == lir::EK::var && x->name == r);
      if (last->kind == lir::EK::var && last->name == b && uses_r) found = {{e->name, static_cast<int>(e->args.size()) - 1}};
    }
    for (const auto& x : e->args) walk(x);
  };
  walk(st.value);
  return found;
}

void register_tile_actions(const AgentProgram& p, const Analysis& a, const StageView& v, const Target& t,
                           std::vector<Action>& out) {
  const lower::LStage& st = *v.stage;
  if (!st.has_reduction() || st.vars.empty() || st.created) return;
  if (!find_directives(p.line(st.name, true), "cache_write").empty()) return;
  const std::string& s = st.name;
  size_t n = st.vars.size();
  int lanes = std::max(1, t.lanes(st.type));
  int regs = std::max(8, t.vector_registers);
  const std::string& b = st.vars[n - 1];
  int64_t eb = st.extents[n - 1];
  bool two = n >= 2;
  std::string av = two ? st.vars[n - 2] : "";
  int64_t ea = two ? st.extents[n - 2] : 1;
  auto operand = streamed_operand(st, a);
  std::string local = fresh_name(a, s + "_l");
  for (int64_t ni : {lanes, 2 * lanes, 3 * lanes, 4 * lanes}) {
    if (ni > eb || ni < 2) continue;
    int64_t vecs = (ni + lanes - 1) / lanes;
    for (int64_t mi : {1, 2, 3, 4, 6, 8}) {
      if (!two && mi > 1) break;
      if (mi > ea || mi * vecs + vecs + 1 > regs) continue;
      for (bool pack : {false, true}) {
        if (pack && (!operand || !two)) continue;
        std::vector<std::string> l1, l2, cl;
        std::string bo = b + "_o", bi = b + "_i", ao = av + "_o", ai = av + "_i";
        std::string at;
        if (two) {
          l1.push_back(fmt::format("tile {} {} {} {} -> {} {} {} {}", av, b, mi, ni, ao, bo, ai, bi));
          if (pack) l1.push_back(fmt::format("reorder {} {} {} {}", bo, ao, ai, bi));
          at = pack ? ao : bo;
        } else {
          l1.push_back(fmt::format("split {} {} -> {} {}", b, ni, bo, bi));
          at = bo;
        }
        std::string first = n > 2 ? st.vars[0] : pack ? bo : two ? ao : bo;
        if (t.threads > 1) l1.push_back("parallel " + first);
        std::string packed;
        if (pack) {
          packed = fresh_name(a, operand->first + "_p");
          l2.push_back(fmt::format("pack {} {} {} -> {}", operand->first, operand->second, ni, packed));
        }
        l2.push_back(fmt::format("cache_write local at {} -> {}", at, local));
        // The accumulation: reductions outside the tile, rows unrolled, columns in vector registers.
        std::vector<std::string> ro(st.rvars.begin(), st.rvars.end());
        if (two) {
          ro.push_back(ai);
          cl.push_back(fmt::format("reorder {}", fmt::join(ro, " ")));
          if (mi > 1) cl.push_back("unroll " + ai);
        } else {
          ro.push_back(bi);
          cl.push_back(fmt::format("reorder {}", fmt::join(ro, " ")));
        }
        if (lanes > 1) {
          if (ni > lanes) {
            cl.push_back(fmt::format("split {} {} -> {}_r {}_v", bi, lanes, bi, bi));
            cl.push_back(fmt::format("unroll {}_r", bi));
            cl.push_back(fmt::format("vectorize {}_v", bi));
          } else {
            cl.push_back("vectorize " + bi);
          }
        }
        AgentProgram q = with_line(p, s, l1, false);
        drop_directives(q, s, true, "compute_at");
        auto& mem = q.line_for(s, true).directives;
        mem.insert(mem.end(), l2.begin(), l2.end());
        q = with_line(q, local, cl, false);
        if (pack) {
          q = with_appended(q, packed, fmt::format("compute_at {} {}", s, bo), true);
          // The packed copy's last axis is the position within a panel (ax0 is the panel).
          if (lanes > 1) q = with_line(q, packed, {fmt::format("vectorize ax{} {}", operand->second + 1, std::min<int64_t>(lanes, ni))}, false);
        }
        add(out, AgentLayer::memory, ActionKind::register_tile,
            fmt::format("{}: register tile {}x{}{}", s, mi, ni, pack ? fmt::format(" ({} packed in panels of {})", operand->first, ni) : ""),
            std::move(q));
      }
    }
  }
}

// ---- L2: a reduction's register tile computed per tile of its element-wise consumer ----

// The consumer tiled over its two innermost loops, mi x ni, the reduction computed at each tile with
// its reduction loops outside, the tile's rows unrolled and its columns in vector registers: the
// tile's accumulators stay in registers and the result goes straight to the consumer. (The register
// tile above writes the whole reduction out before its consumer reads it: for a depthwise
// convolution, twice the memory traffic of the kernel itself.) Small reduction loops (a 3x3 window)
// are unrolled too.
void fused_register_tile_actions(const AgentProgram& p, const Analysis& a, const StageView& v,
                                 const std::vector<StageView>& all, const Target& t, std::vector<Action>& out) {
  const lower::LStage& st = *v.stage;
  size_t n = st.vars.size();
  if (!st.has_reduction() || n < 2 || st.created || st.is_output) return;
  auto consumers = a.graph.consumers(st.name);
  if (consumers.size() != 1) return;
  const StageView* cv = nullptr;
  for (const auto& x : all)
    if (x.stage->name == consumers[0]) cv = &x;
  if (!cv || cv->inlined() || cv->stage->has_reduction() || cv->stage->extents != st.extents || !lower::reads_pointwise(*cv->stage, st.name))
    return;
  const std::string& s = st.name;
  const std::string& c = cv->stage->name;
  const std::string ca = cv->stage->vars[n - 2], cb = cv->stage->vars[n - 1];
  const std::string& sa = st.vars[n - 2];
  const std::string& sb = st.vars[n - 1];
  int64_t ea = st.extents[n - 2], eb = st.extents[n - 1];
  int lanes = std::max(1, t.lanes(st.type));
  int regs = std::max(8, t.vector_registers);
  for (int64_t ni : {lanes, 2 * lanes, 3 * lanes, 4 * lanes}) {
    if (ni < 2 || ni > eb || eb % ni != 0) continue;
    int64_t vecs = (ni + lanes - 1) / lanes;
    for (int64_t mi : {2, 3, 4, 6, 7, 8}) {
      if (mi > ea || ea % mi != 0 || mi * vecs + vecs + 1 > regs) continue;
      // The consumer: tiled, rows unrolled, columns in vectors, its outermost loop parallel.
      std::string ao = ca + "_o", bo = cb + "_o", ai = ca + "_i", bi = cb + "_i";
      std::vector<std::string> cl = {fmt::format("tile {} {} {} {} -> {} {} {} {}", ca, cb, mi, ni, ao, bo, ai, bi),
                                     "unroll " + ai};
      auto columns = [&](const std::string& var, std::vector<std::string>& dirs) {
        if (lanes <= 1) return;
        if (ni > lanes) {
          dirs.push_back(fmt::format("split {} {} -> {}_r {}_v", var, lanes, var, var));
          dirs.push_back(fmt::format("unroll {}_r", var));
          dirs.push_back(fmt::format("vectorize {}_v", var));
        } else {
          dirs.push_back(fmt::format("vectorize {} {}", var, lanes));  // (the reduction's own c spans the whole extent)
        }
      };
      columns(bi, cl);
      if (t.threads > 1) cl.push_back("parallel " + (n > 2 ? cv->stage->vars[0] : ao));
      // The reduction, at the consumer's tile: its reductions outside its (tile-sized) pure loops.
      std::vector<std::string> order(st.rvars.begin(), st.rvars.end());
      order.insert(order.end(), st.vars.begin(), st.vars.end());
      // `unroll sa mi`, not the whole axis: the schedule is checked on the stage's own extent (a 112-wide
      // image would be 112 copies, refused), and compute_at leaves mi rows of it at each tile.
      std::vector<std::string> sl = {fmt::format("reorder {}", fmt::join(order, " ")), fmt::format("unroll {} {}", sa, mi)};
      for (size_t r = 0; r < st.rvars.size(); ++r)
        if (st.rextents[r] <= 4) sl.push_back("unroll " + st.rvars[r]);
      columns(sb, sl);
      AgentProgram q = with_line(p, c, cl, false);
      q = with_line(q, s, sl, false);
      drop_directives(q, s, true, "compute_at");
      q = with_appended(q, s, fmt::format("compute_at {} {}", c, bo), true);
      std::string name = fmt::format("{}: register tile {}x{} at {}'s tiles", s, mi, ni, c);
      // Also with the reduction's element-wise producers inlined (a padded copy of the input read
      // through guarded loads): what such a tile wants, and one step instead of two for the search.
      AgentProgram inl = q;
      std::vector<std::string> inlined;
      for (const auto& x : all) {
        const lower::LStage& ps = *x.stage;
        if (ps.has_reduction() || ps.created || ps.is_output || x.inlined()) continue;
        auto readers = a.graph.consumers(ps.name);
        if (std::find(readers.begin(), readers.end(), s) == readers.end()) continue;
        inl = with_line(inl, ps.name, {}, false);
        drop_directives(inl, ps.name, true, "compute_at");
        inl = with_appended(inl, ps.name, "inline", true);
        inlined.push_back(ps.name);
      }
      add(out, AgentLayer::memory, ActionKind::fused_register_tile, name, std::move(q));
      if (!inlined.empty())
        add(out, AgentLayer::memory, ActionKind::fused_register_tile,
            fmt::format("{}, {} inlined", name, fmt::join(inlined, ", ")), std::move(inl));
    }
  }
}

// ---- L2: a reduction along its contiguous axis, in vector lanes ----

void vector_reduction_actions(const AgentProgram& p, const Analysis& a, const StageView& v, const Target& t,
                              std::vector<Action>& out) {
  const lower::LStage& st = *v.stage;
  if (!st.has_reduction() || st.created || !is_float(st.type) || !find_directives(p.line(st.name, true), "rfactor").empty())
    return;
  int lanes = t.lanes(st.type);
  if (lanes <= 1) return;
  const std::string& s = st.name;
  const std::string& r = st.rvars.back();
  int64_t er = st.rextents.back();
  std::string part = fresh_name(a, s + "_rf");
  for (int64_t w : {lanes, 2 * lanes, 4 * lanes}) {
    if (w > er / 2) break;
    std::vector<std::string> l1;
    const StageLine* line = p.line(s, false);
    if (line)
      for (const auto& d : line->directives)
        if (directive_word(d) == "parallel") l1.push_back(d);
    l1.insert(l1.begin(), fmt::format("split {} {} -> {}_o {}_i", r, w, r, r));
    AgentProgram q = with_line(p, s, l1, false);
    q = with_appended(q, s, fmt::format("rfactor {}_i -> {}", r, part), true);
    std::vector<std::string> pl = {fmt::format("vectorize {}_i {}", r, lanes)};
    if (w > lanes) pl.push_back(fmt::format("unroll {}_i_o", r));
    q = with_line(q, part, pl, false);
    add(out, AgentLayer::memory, ActionKind::vector_reduction, fmt::format("{}: reduce {} in {} vector lanes", s, r, w), std::move(q));
  }
}

}  // namespace

void cpu_schedule_actions(const AgentProgram& p, const Analysis& a, const Target& t, std::vector<Action>& out) {
  // The whole program on one thread: for a small kernel, starting threads costs more than they save.
  AgentProgram serial = p;
  for (auto& l : serial.l1) std::erase_if(l.directives, [](const std::string& d) { return directive_word(d) == "parallel"; });
  if (!(serial == p)) add(out, AgentLayer::schedule, ActionKind::serial, "every stage on one thread (no parallel loops)", serial);
  for (const auto& v : stage_views(a)) {
    if (v.inlined()) continue;
    parallel_actions(p, v, t, out);
    vectorize_actions(p, v, t, out);
    unroll_actions(p, v, out);
    reorder_actions(p, v, out);
    if (!v.stage->created) nest_actions(p, v, t, out);
  }
}

void cpu_memory_actions(const AgentProgram& p, const Analysis& a, const Target& t, std::vector<Action>& out) {
  auto views = stage_views(a);
  for (const auto& v : views) {
    placement_actions(p, a, v, views, out);
    if (v.inlined()) continue;
    register_tile_actions(p, a, v, t, out);
    fused_register_tile_actions(p, a, v, views, t, out);
    vector_reduction_actions(p, a, v, t, out);
  }
}

}  // namespace ekb::agent::detail
