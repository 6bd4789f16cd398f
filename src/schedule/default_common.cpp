// The default schedule's shared rules (default_common.h).
#include "schedule/default_common.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "ir/limits.h"
#include "loops/inlining.h"

namespace ekb::default_schedule {

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

bool reduces(const LStage& s) { return s.has_reduction() || has_reduce(s.value); }

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

void Plan::schedule(const std::string& stage, const std::vector<std::string>& dirs) {
  if (!dirs.empty()) l1.push_back(fmt::format("  {}: {}", stage, fmt::join(dirs, "; ")));
}

void Plan::memory(const std::string& stage, const std::string& dir) {
  // (One line per stage: a second directive for it joins its line.)
  std::string head = fmt::format("  {}: ", stage);
  for (auto& line : l2)
    if (line.rfind(head, 0) == 0) {
      line += "; " + dir;
      return;
    }
  l2.push_back(head + dir);
}

std::string Plan::text(Backend backend) const {
  const char* b = backend_name(backend);
  std::string out;
  if (!l1.empty()) out += fmt::format("schedule {}\n{}\n", b, fmt::join(l1, "\n"));
  if (!l2.empty()) out += fmt::format("{}memory {}\n{}\n", out.empty() ? "" : "\n", b, fmt::join(l2, "\n"));
  return out;
}

bool inline_within_limits(Graph& sim, const std::string& name) {
  LStage producer = sim.stages[sim.find(name)];
  std::vector<std::pair<int, lir::ExprP>> inlined;
  int site = 0;
  if (!lower::try_inline(sim, producer, site, &inlined).empty()) return false;
  for (auto& [i, v] : inlined) sim.stages[i].value = std::move(v);
  sim.stages.erase(sim.stages.begin() + sim.find(name));
  return true;
}

namespace {

// Is an index of some read in `e` more than sums and constant multiples of variables (a clamp, a
// division, a value read from data)?
bool reads_through_nonlinear_index(const lir::ExprP& e) {
  std::function<bool(const lir::ExprP&)> nonlinear = [&](const lir::ExprP& x) {
    if (x->kind == lir::EK::load || x->kind == lir::EK::call || x->kind == lir::EK::select) return true;
    if (x->kind == lir::EK::binary && (x->binop == BinOp::div || x->binop == BinOp::mod)) return true;
    for (const auto& a : x->args)
      if (nonlinear(a)) return true;
    return false;
  };
  if (e->kind == lir::EK::load)
    for (const auto& i : e->args)
      if (nonlinear(i)) return true;
  for (const auto& a : e->args)
    if (reads_through_nonlinear_index(a)) return true;
  return false;
}

}  // namespace

namespace {
int64_t points(const LStage& s) {
  int64_t n = 1;
  for (int64_t e : s.extents) n *= e;
  return n;
}
}  // namespace

Inlining decide_inlining(const Graph& g, Plan& plan, bool cpu) {
  Inlining r{{}, g};
  std::set<std::string> costly_inlined;
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
    // A stage is as costly, and as guarded, as what is inlined into it (its value in the simulation).
    const lir::ExprP& now = r.sim.stages[r.sim.find(s.name)].value;
    bool costly = has_costly_call(now);
    for (const auto& c : costly_inlined) costly = costly || lower::reads(s.value, c);
    // (A product of guarded shifted reads, `Dv * Dv` with Dv's four borders inlined, is no cheaper to
    // recompute at every point of a window than Dv itself: judged by its own text, it was inlined into
    // a 30-point moving sum, and plain loops were 5x faster.)
    bool cheap = !costly && !has_select(now);
    // (Recomputed at every point of the window, a stage of more than two reads is a stencil of its
    // own: a structure tensor's Dx * Dx, twelve reads, inlined into a 3x3 sum made Harris 2.3x slower
    // than plain loops.)
    std::function<int(const lir::ExprP&)> loads = [&](const lir::ExprP& e) {
      int n = e->kind == lir::EK::load ? 1 : 0;
      for (const auto& a : e->args) n += loads(a);
      return n;
    };
    if (reread && loads(now) > 2) cheap = false;
    // (On a CPU, a stage read at every point of a reduction through indices that are not sums of
    // variables — a border replicated by clamping — is computed once: inlined, every term of the
    // reduction would gather lane by lane what its own loops read in a contiguous run.)
    if (cpu && reread && reads_through_nonlinear_index(s.value)) cheap = false;
    // (On a CPU, a costly stage whose readers have more points than it has — a table read through
    // the data, `Lut[X[h, w]]`, or a window read by every frame, `Win[n]` in `Y[f, n]` — is computed
    // once per its own point: inlined, its math functions ran once per reader's point, a gamma
    // table's pow 921,600 times instead of 256, and plain loops were 7x faster.)
    bool recomputed = false;
    if (cpu && costly)
      for (const auto& c : consumers) recomputed = recomputed || points(g.stages[g.find(c)]) > points(s);
    // (On a CPU, a stage that reads through a clamped index keeps its loops whoever reads it: its
    // readers then read it along their lanes, where inlined every read would gather through the
    // clamp lane by lane — a 3x3 median over a replicated border was 5x slower than plain loops.)
    bool gathers = cpu && reads_through_nonlinear_index(s.value);
    if (!reduces && !gathers && (reread ? cheap : (!costly || (sites <= 1 && !recomputed))) && inline_within_limits(r.sim, s.name)) {
      r.inlined.insert(s.name);
      if (costly) costly_inlined.insert(s.name);
      plan.memory(s.name, "inline");
    }
  }
  return r;
}

void keep_loop_nests_shallow(const Graph& g, std::map<std::string, std::string>& fused_into) {
  // A stage gets at most one loop more than it has variables (a vector split), and is computed at
  // most at its reader's innermost loop.
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

RecurrenceVars recurrence_vars(const LStage& s) {
  RecurrenceVars r;
  r.nonlocal = s.scan_nonlocal;
  for (size_t i = 0; i < s.vars.size(); ++i) {
    r.extent[s.vars[i]] = s.extents[i];
    if (s.vars[i] != s.scan_var && std::find(r.nonlocal.begin(), r.nonlocal.end(), s.vars[i]) == r.nonlocal.end())
      r.local.push_back(s.vars[i]);
  }
  return r;
}

}  // namespace ekb::default_schedule
