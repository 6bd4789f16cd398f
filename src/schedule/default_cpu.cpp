// The default schedule on the cpu backend (default_schedule.h): what a competent compiler does for a
// CPU without search. Per stage that keeps its own loops:
//  - vector lanes on the pure loop whose reads and write are most contiguous (moved innermost), as
//    many lanes as one register holds of the widest value the stage computes; a top-level reduction
//    whose reads are contiguous along its innermost reduction loop (a row's sum) accumulates vector
//    partial sums along it instead (rfactor);
//  - a stage that reduces, read by its consumers only at their own point or at a prefix of their
//    loops (a row's mean read across the row), is computed inside the consumer's loop over that
//    prefix: the data it reads is then in the cache for the consumer;
//  - the outermost pure loop (fused with the next while it is too short to share) runs in parallel
//    only when the nest's estimated work pays for starting a parallel region, at the cost measured on
//    this machine for the timing regime (target.h's ParallelCost);
//  - contractions get register tiles (default_contraction.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "lower/simplify.h"
#include "schedule/default_common.h"
#include "schedule/default_contraction.h"
#include "loops/hoisting.h"
#include "schedule/default_schedule.h"
#include "schedule/stage_access.h"

namespace ekb::default_schedule {

namespace {

// A recurrence (docs/ir.md "Recurrences"): its steps run in order, serially; the points that keep
// to themselves (local variables) are the parallel ones, outside the steps, or vector lanes inside
// them; the points that read each other's earlier steps run inside each step, vectorized.
double vector_memory_cost(const Graph& g, const LStage& s, const std::string& v, int lanes, bool write);
double scalar_memory_cost(const LStage& s, int lanes);

constexpr int64_t kInterleavedSequences = 8;

// Does a select's condition in `e` use one of `vars`?
bool guard_uses(const lir::ExprP& e, const std::set<std::string>& vars) {
  if (e->kind == lir::EK::select)
    for (const auto& v : vars)
      if (lower::uses_var(e->args[0], v)) return true;
  for (const auto& a : e->args)
    if (guard_uses(a, vars)) return true;
  return false;
}

std::vector<std::string> recurrence_directives(const Graph& g, const LStage& s, const Target& target, bool parallel) {
  auto [local, nonlocal, extent] = recurrence_vars(s);
  std::vector<std::string> dirs, order;
  // The innermost of the step's own points (or of the local ones) as vector lanes.
  int lanes = lanes_for(s, target);
  std::vector<std::string> outer = local;
  std::string vec = !nonlocal.empty() ? nonlocal.back() : (local.empty() ? "" : local.back());
  // (Only where the lanes read contiguously enough: a GRU's step reads its weights along its points'
  // rows, which its reductions read in vector partial sums on their own.)
  if (!vec.empty() && lanes > 1 && vector_memory_cost(g, s, vec, lanes, true) >= 0.6 * scalar_memory_cost(s, lanes)) lanes = 1;
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
  // Without lanes, a few independent sequences (up to 8) run interleaved inside each step: their
  // steps' latencies overlap in one thread, where one after the other (or two threads with two
  // each) each waits for its own chain (a biquad over 4 microphones: 1.46x slower apart).
  int64_t sequences = 1;
  for (const auto& v : local) sequences *= extent[v];
  if (vec_loop.empty() && !local.empty() && sequences <= kInterleavedSequences) {
    inner.insert(inner.begin(), local.begin(), local.end());
    outer.clear();
  }
  if (!vec_loop.empty()) {
    if (!nonlocal.empty()) inner.back() = vec_loop;
  }
  order = outer;
  order.push_back(s.scan_var);
  order.insert(order.end(), inner.begin(), inner.end());
  if (nonlocal.empty() && !vec_loop.empty()) order.push_back(vec_loop);
  if (order.size() >= 2) dirs.push_back(fmt::format("reorder {}", fmt::join(order, " ")));
  if (!vec_loop.empty()) dirs.push_back("vectorize " + vec_loop);
  if (parallel && !outer.empty()) dirs.push_back("parallel " + outer[0]);
  return dirs;
}

// What one vector of `lanes` points costs when `v` is the lane loop, in operations: a contiguous
// read or write one, a read that does not move with v nothing, a gather or scatter more than a
// scalar operation per lane, the arithmetic once. The reads count as often as they run per point
// (inside reductions).
// A gathered read costs more than its lanes' scalar loads (each lane's address, then packing the
// lanes), a scattered write more again; an integer division by something other than a positive
// constant runs lane by lane.
// A read with a short constant stride (2 to 4: interleaved channels, a halved image, or backwards:
// a true convolution's reversed taps) is read as that many whole vectors and shuffled, as clang's
// vectorizer reads an interleaved group (c_printer.cpp). With a stride of 2 or -1 that is two
// operations a vector read; 3 and 4 take chains of two-vector shuffles, which run on one port, and
// cost more than in plain loops (RGB to I420 along w: 2.5x slower in our lanes, a stride-4
// convolution's lanes 1.6x slower than plain loops even shuffled, an RGB to HSV 1.4x).
constexpr double kGatherCost = 1.5, kScatterCost = 2.0, kInterleavedCost = 3.0;
constexpr int64_t kShortStride = 4;  // the longest stride (and divisor) that counts as short

// A loop too short for vector lanes of its own: under 4 points, or fewer than the lanes and not a
// power of two. Such a loop takes lanes only fused with the loop outside it (Rules::vector_var).
bool too_short_for_lanes(int64_t extent, int lanes) { return extent < 4 || (extent < lanes && (extent & (extent - 1)) != 0); }

// The operations a read's address takes beyond sums and constant multiples: clamps, divisions,
// selects. Scalar code pays them per point, gathering lanes per lane; a contiguous or uniform read
// once per vector.
int index_ops(const lir::ExprP& load) {
  std::function<int(const lir::ExprP&)> count = [&](const lir::ExprP& e) {
    int n = (e->kind == lir::EK::call || e->kind == lir::EK::select ||
             (e->kind == lir::EK::binary && (e->binop == BinOp::div || e->binop == BinOp::mod))) ? 1 : 0;
    for (const auto& a : e->args) n += count(a);
    return n;
  };
  int n = 0;
  for (const auto& i : load->args) n += count(i);
  return n;
}

// How a read's indices divide the lane variable: not at all, by a multiple of the lanes' width
// (`k / 128`), or by 2 to 4 (`k / 2`).
enum class DivAlongLanes { none, uniform, short_step };
DivAlongLanes lane_division(const lir::ExprP& load, const std::string& v, int lanes) {
  DivAlongLanes found = DivAlongLanes::none;
  std::function<void(const lir::ExprP&)> walk = [&](const lir::ExprP& e) {
    int64_t c = 0;
    if (e->kind == lir::EK::binary && (e->binop == BinOp::div || e->binop == BinOp::mod) && lir::is_const(e->args[1], &c) &&
        lower::uses_var(e->args[0], v)) {
      if (e->binop == BinOp::div && c >= lanes && c % lanes == 0) {
        // (Uniform only where the lanes step the dividend by one: `i * 441 / 160` moves 2.76 elements
        // a lane, a gather.)
        auto step = affine_coefficient(e->args[0], v);
        if (step && *step == 1 && found == DivAlongLanes::none) found = DivAlongLanes::uniform;
      } else if (c >= 2 && c <= kShortStride) {
        found = DivAlongLanes::short_step;
      }
      return;
    }
    for (const auto& a : e->args) walk(a);
  };
  for (const auto& i : load->args) walk(i);
  return found;
}

// Whether some read of `s` in lanes of `v` gathers: it moves along them by more than one element,
// or by an index that is not affine in them (other than one element for all the lanes).
bool gathers_along(const Graph& g, const LStage& s, const std::string& v, int lanes) {
  for (const auto& a : stage_reads(s)) {
    auto st = read_stride(g, a.load, v);
    if (st ? std::llabs(*st) >= 2 : lane_division(a.load, v, lanes) != DivAlongLanes::uniform) return true;
  }
  return false;
}

// Whether some read of `s` in lanes of `v` has an index that is not affine in them (a table's entry,
// a division by more than 4), other than one element for all the lanes.
bool gathers_irregularly(const Graph& g, const LStage& s, const std::string& v, int lanes) {
  for (const auto& a : stage_reads(s))
    if (!read_stride(g, a.load, v) && lane_division(a.load, v, lanes) == DivAlongLanes::none) return true;
  return false;
}

// Whether some read of `s` divides the lane variable `v` by 2 to 4 (DivAlongLanes::short_step).
bool halves_along(const LStage& s, const std::string& v, int lanes) {
  for (const auto& a : stage_reads(s))
    if (lane_division(a.load, v, lanes) == DivAlongLanes::short_step) return true;
  return false;
}

double vector_memory_cost(const Graph& g, const LStage& s, const std::string& v, int lanes, bool write) {
  double cost = 0;
  for (const auto& a : stage_reads(s)) {
    auto st = read_stride(g, a.load, v);
    // (A gathered read's address is computed lane by lane: a search window's clamped rows and
    // columns, `Ref[clamp(y + m / 5 - 2, ...), clamp(x + m % 5 - 2, ...)]` in lanes of m, cost 3.6x
    // the plain loops that read along x.)
    const int ops = index_ops(a.load);
    // (A byte gathered into wider lanes costs as a short stride's lane-by-lane read: RGB to I420's
    // 2x2 means read every sixth byte into 16 int lanes, 2.3x slower than plain loops.)
    const double gather = ((dtype_bytes(a.type) == 1 ? kInterleavedCost : kGatherCost) + ops) * lanes, once = 1.0 + ops;
    const int64_t step = st.value_or(0);
    const double lane_by_lane_short = (kInterleavedCost + ops) * lanes;
    const double shuffled = step == 2 || step == -2 || step == -1 ? 2.0 + ops : lane_by_lane_short;
    const double interleaved = std::llabs(step) <= kShortStride ? shuffled : gather;
    if (!st) {
      // An index divided along the lanes by a constant: by a multiple of the lanes, one element for
      // all of them (the printer reads it once: a group's scale `S[n, k / 128]`); by 2 to 4, a
      // halved or quartered read, which plain loops vectorize as an interleaved one — where the
      // lanes are bytes (32 or 64 of them gathered one by one: an int4 unpack's `Wp[n, k / 2]`
      // ran 2.5x slower than plain loops). In float lanes the gather is paid for by the arithmetic
      // (NV12's chroma read at w / 2: plain loops 4.6x slower than the lanes).
      DivAlongLanes d = lane_division(a.load, v, lanes);
      if (d == DivAlongLanes::uniform) {
        cost += a.repeat * once;
        continue;
      }
      if (d == DivAlongLanes::short_step && lanes >= 32) {
        cost += a.repeat * lane_by_lane_short;
        continue;
      }
    }
    cost += a.repeat * (!st ? gather : *st == 0 ? 0.0 : *st == 1 ? once : interleaved);
  }
  if (write) cost += write_stride(s, v) == 1 ? 1.0 : kScatterCost * lanes;
  // (The arithmetic: once per vector in lanes, as in scalar_memory_cost once per point.)
  return cost + varying_integer_divisions(s, v) * lanes + weighted_ops_per_point(s) + scalar_only_calls(s) * 10.0 * lanes;
}

// The same points computed one by one: every read and the write once per point.
// (A reduction in the expression that reads contiguously runs in vector lanes even so:
// lower/vector_reductions.h.)
double scalar_memory_cost(const LStage& s, int lanes) {
  double cost = lanes;
  for (const auto& a : stage_reads(s)) cost += a.repeat * (1.0 + index_ops(a.load)) * (a.vector_reduced ? 1.0 : lanes);
  return cost + weighted_ops_per_point(s) * lanes;
}

// A reduction's contiguous axis: the innermost reduction variable when the reads along it are
// contiguous (or do not move) and it is long enough for vector partial sums of `lanes` lanes.
bool reduces_contiguously(const Graph& g, const LStage& s, int lanes) {
  if (!s.has_reduction() || lanes < 2 || s.rextents.back() < 2 * lanes) return false;
  if (s.rop != ReduceOp::sum && s.rop != ReduceOp::max && s.rop != ReduceOp::min) return false;
  if (s.type == DType::boolean) return false;
  const std::string& r = s.rvars.back();
  bool any = false;
  for (const auto& a : stage_reads(s)) {
    auto st = read_stride(g, a.load, r);
    if (!st || (*st != 0 && std::llabs(*st) != 1)) return false;
    any = any || *st == 1;
  }
  return any;
}

// A stage's loop nest as the rules below choose it.
struct Nest {
  std::vector<std::string> dirs;
  std::vector<std::string> order;  // its pure loops, outermost first, after the directives
  std::string vec_var;             // the pure variable in vector lanes ("" for none)
  int lanes = 0;                   // how many
  std::string outer_of_vec;        // the loop just outside the lanes: where pointwise producers go
  bool vector_reduction = false;   // vector partial sums along the reduction (rfactor)
  std::string partial;             // the partial sums' stage
  std::map<std::string, int64_t> fused;  // loops made by fusing the lanes' loop with outer ones: extents
  // Its pure loops outside the lanes with their extents, outermost first.
  std::vector<std::pair<std::string, int64_t>> loops(const LStage& s) const {
    auto extent = [&](const std::string& l) -> int64_t {
      auto it = std::find(s.vars.begin(), s.vars.end(), l);
      if (it != s.vars.end()) return s.extents[static_cast<size_t>(it - s.vars.begin())];
      auto f = fused.find(l);
      return f != fused.end() ? f->second : 0;
    };
    std::vector<std::pair<std::string, int64_t>> out;
    for (const auto& l : order) {
      if (int64_t e = extent(l)) out.push_back({l, e});
      else if (l == vec_var + "_o") out.push_back({l, (extent(vec_var) + lanes - 1) / lanes});
    }
    return out;
  }
};

struct Rules {
  const Graph& g;
  const Target& t;
  Plan& plan;

  // The pure variable whose lanes cost the least memory traffic, among those with at least 4
  // points and not among the first `keep` (they stay the outermost loops, in order); "" when no
  // choice beats scalar code.
  // `may_fuse`: the lanes' loop may be fused with the loops outside it (Nest's one contiguous run).
  std::string vector_var(const LStage& s, size_t keep, int lanes, bool may_fuse) const {
    if (lanes < 2) return "";
    std::string best;
    double best_cost = 0.6 * scalar_memory_cost(s, lanes);
    for (size_t i = s.vars.size(); i-- > keep;) {
      // (A short innermost loop that is one contiguous run with the loop outside it is a candidate
      // too: fused with it, its lanes are full — an IMU filter's 6 axes of [T, 6] in lanes of
      // t * 6 + c ran 2.1x faster than plain loops, where lanes across t gathered every sixth float
      // and ran 1.8x slower than them.)
      // (Not where a select's condition or a call without a vector form would then run lane by
      // lane: an sRGB encode's pow in lanes of w * 3 + c ran 2.3x slower than plain loops.)
      const bool fusable = may_fuse && i + 1 == s.vars.size() && i >= keep + 1 && one_run(s, s.vars[i - 1], s.vars[i], s.extents[i]) &&
                           !guard_uses(s.value, {s.vars[i - 1]}) && scalar_only_calls(s) == 0;
      if (too_short_for_lanes(s.extents[i], lanes) && !fusable) continue;
      // (Lanes whose write interleaves with others — x, y, z of a sample side by side, a short
      // constant stride — are not chosen: plain loops leave clang's vectorizer to read and write such
      // a layout in whole vectors with shuffles, 3.6x faster than our lanes scattering to every
      // third float.)
      int64_t ws = std::llabs(write_stride(s, s.vars[i]));
      if (ws >= 2 && ws <= kShortStride) continue;
      // (Nor, in a stage that does not reduce, lanes that scatter the write and gather a read: a
      // loop across rows on both sides, every lane its own cache line twice, where plain loops
      // along the row are left to clang's vectorizer — an int4 unpack in lanes across rows 15x
      // slower than plain loops, a bilinear resize across output rows 2x. A reduction's lanes across
      // rows still pay: its sum's uniform reads and index arithmetic are once per vector — a
      // transposed convolution's lanes of output channels 2.2x faster than without lanes.)
      if (ws >= 2 && !reduces(s) && gathers_along(g, s, s.vars[i], lanes)) continue;
      // (Nor lanes along a row's own loop, in a stage that does not reduce, where a read's index is
      // not affine in them — a table's entry, `i * 441 / 160`: plain loops leave that loop to clang's
      // vectorizer, whose gathers beat our lane-by-lane reads — a linear resampler 2.3x faster without
      // our lanes.)
      if (ws == 1 && i + 1 == s.vars.size() && !reduces(s) && gathers_irregularly(g, s, s.vars[i], lanes)) continue;
      // (Nor byte lanes that read through a halved or quartered index: the printer fills 32 or 64
      // lanes one by one where clang's vectorizer reads whole vectors and shuffles them — an int4
      // unpack's `P[r, k / 2]` in lanes of k 13x slower than plain loops.)
      if (lanes >= 32 && halves_along(s, s.vars[i], lanes)) continue;
      double c = vector_memory_cost(g, s, s.vars[i], lanes, true);
      if (c < best_cost - 1e-9) best = s.vars[i], best_cost = c;
    }
    return best;
  }

  // The nest of stage `s` (root or computed at its consumer), keeping its first `keep` pure loops
  // intact and outermost; `vec_hint`: the pure variable a pointwise consumer has in its lanes.
  // Whether the loops `u` (just outside) and `v` (of `v_extent` points) run through memory as one
  // contiguous run in every read and in the write: fused, they are one loop of lanes without the
  // tail a short v leaves (an NHWC image's rows of 24 channels are one run of W * 24).
  bool one_run(const LStage& s, const std::string& u, const std::string& v, int64_t v_extent) const {
    if (write_stride(s, u) != write_stride(s, v) * v_extent) return false;
    for (const auto& a : stage_reads(s)) {
      auto su = read_stride(g, a.load, u), sv = read_stride(g, a.load, v);
      if (!su || !sv || *su != *sv * v_extent) return false;
    }
    return true;
  }

  Nest nest(const LStage& s, size_t keep, const std::string& vec_hint, int hint_lanes = 0, bool may_fuse = false) const {
    Nest n;
    n.order = s.vars;
    int lanes = hint_lanes > 0 ? hint_lanes : lanes_for(s, t);
    std::string v = vec_hint.empty() ? vector_var(s, keep, lanes, may_fuse) : vec_hint;
    // (A reader's lanes that would gather this stage's reads: its points one by one instead, its
    // reductions in lanes of their own.)
    if (!vec_hint.empty() && vector_memory_cost(g, s, v, lanes, true) >= 0.6 * scalar_memory_cost(s, lanes)) v.clear();
    // A reduction read along its contiguous axis: partial sums in vector lanes, when that moves less
    // memory than lanes on a pure loop.
    if (reduces_contiguously(g, s, lanes)) {
      const std::string& r = s.rvars.back();
      int64_t w = s.rextents.back() >= 8 * lanes ? 4 * lanes : s.rextents.back() >= 4 * lanes ? 2 * lanes : lanes;
      // (Each point then adds its w partial sums up one by one: a decimating FIR's 32 taps in two
      // vectors of 16 partial sums ran 2.4x slower than lanes along its outputs, whose taps are
      // stride-2 reads.)
      double along_r = vector_memory_cost(g, s, r, lanes, false) + static_cast<double>(lanes * w);
      double along_v = v.empty() ? scalar_memory_cost(s, lanes) : vector_memory_cost(g, s, v, lanes, true);
      if (along_r < along_v) {
        n.vector_reduction = true;
        n.partial = s.name + "_vp";
        n.dirs.push_back(fmt::format("split {} {} -> {}_o {}_v", r, w, r, r));
        plan.memory(s.name, fmt::format("rfactor {}_v -> {}", r, n.partial));
        std::vector<std::string> pdirs = {fmt::format("vectorize {}_v {}", r, lanes)};
        if (w > lanes) pdirs.push_back(fmt::format("unroll {}_v_o", r));
        plan.schedule(n.partial, pdirs);
        v.clear();
      }
    }
    if (!v.empty()) {
      size_t i = std::find(s.vars.begin(), s.vars.end(), v) - s.vars.begin();
      int64_t e = s.extents[i];
      if (i + 1 != s.vars.size()) {
        n.order.erase(n.order.begin() + static_cast<std::ptrdiff_t>(i));
        n.order.push_back(v);
        n.dirs.push_back(fmt::format("reorder {}", fmt::join(n.order, " ")));
      }
      // A short lanes' loop, or one that leaves a tail, fused with the loops outside it while they
      // are one contiguous run with it.
      std::string first_var = v;  // (strides are the innermost variable's)
      const bool too_short = too_short_for_lanes(e, lanes);
      while (may_fuse && (e % lanes != 0 || e < 4 * lanes) && n.order.size() >= 2 + keep) {
        const std::string& u = n.order[n.order.size() - 2];
        auto ui = std::find(s.vars.begin(), s.vars.end(), u);
        if (ui == s.vars.end() || !one_run(s, u, first_var, e)) break;
        // (A loop too short for lanes of its own is not fused with one that a select's condition
        // uses: the condition would vary along the lanes and every read under it be masked — a
        // concatenation's channel ranges in lanes of o * H * W + h * W + w ran 3.8x slower than
        // plain loops.)
        if (too_short && guard_uses(s.value, {u})) break;
        std::string f = u + "_" + v;
        n.dirs.push_back(fmt::format("fuse {} {} -> {}", u, v, f));
        e *= s.extents[static_cast<size_t>(ui - s.vars.begin())];
        n.fused[f] = e;
        n.order.pop_back();
        n.order.back() = f;
        v = f;
      }
      n.vec_var = v;
      n.lanes = lanes;
      if (e > lanes) {
        n.dirs.push_back(fmt::format("vectorize {} {}", v, lanes));
        n.order.back() = v + "_o";
        n.outer_of_vec = v + "_o";
      } else {
        n.dirs.push_back("vectorize " + v);
        n.order.pop_back();
        n.outer_of_vec = n.order.empty() ? "" : n.order.back();
      }
    } else {
      n.outer_of_vec = n.order.empty() ? "" : n.order.back();
    }
    return n;
  }

  // One thread's estimated time (us) for `s`'s work: its arithmetic (vectorized or not) and the
  // bytes it touches.
  double estimated_us(const LStage& s, bool vectorized) const {
    const ParallelCost& c = t.parallel_cost;
    double ops = weighted_ops_per_point(s) * points(s);
    double rate = c.thread_gflops * 1e3 / (vectorized ? 1.0 : 3.0);  // operations per us
    return ops / rate + touched_bytes(g, s) / (c.thread_gbps * 1e3);
  }

  // Whether a root nest whose work takes `us` on one thread pays for a parallel region: the time
  // the other threads save must exceed three times what starting the region costs (the estimate is
  // rough, and a gain of less than that is within the timing's noise).
  bool pays_for_threads(double us) const {
    if (t.threads < 2) return false;
    return us * (1.0 - 1.0 / t.threads) > 3.0 * t.parallel_cost.region_us;
  }

  // The parallel loop of a root nest whose loops (outermost first, with their extents) are
  // `loops`: the first with more than one iteration, fused with the next ones while it has too few
  // iterations to share among the threads, but never with a loop from position `no_fuse_from` on
  // (the loop producers are computed at, and what is inside it: fused, they would be gone; the
  // parallel mark alone leaves it as it is). Returns the directives.
  std::vector<std::string> parallel_loop(const std::vector<std::pair<std::string, int64_t>>& loops, size_t no_fuse_from) const {
    size_t first = 0;
    while (first < loops.size() && loops[first].second < 2) ++first;
    if (first == loops.size()) return {};
    std::vector<std::string> dirs;
    std::string par = loops[first].first;
    int64_t e = loops[first].second;
    for (size_t used = first + 1; e < 4 * t.threads && used < std::min(no_fuse_from, loops.size()); ++used) {
      std::string next = par + "_" + loops[used].first;
      dirs.push_back(fmt::format("fuse {} {} -> {}", par, loops[used].first, next));
      e *= loops[used].second;
      par = next;
    }
    dirs.push_back("parallel " + par);
    return dirs;
  }
};

// How `consumer` reads `producer`: the number k of its leading pure variables every read uses, in
// order, as the producer's whole index (producer[v0, ..., vk-1]); 0 when some read is otherwise.
size_t prefix_read(const LStage& consumer, const std::string& producer) {
  size_t k = 0;
  bool any = false, ok = true;
  std::function<void(const lir::ExprP&)> walk = [&](const lir::ExprP& e) {
    if (e->kind == lir::EK::load && e->name == producer) {
      bool same = e->args.size() <= consumer.vars.size() && !e->args.empty();
      for (size_t i = 0; same && i < e->args.size(); ++i)
        same = e->args[i]->kind == lir::EK::var && e->args[i]->name == consumer.vars[i];
      if (!same || (any && e->args.size() != k)) ok = false;
      k = e->args.size();
      any = true;
    }
    for (const auto& a : e->args) walk(a);
  };
  walk(consumer.value);
  return any && ok ? k : 0;
}

// A contraction written inside an expression (a linear layer's sum plus its bias, `Y[t, n] = (sum(k)
// X[t, k] * W[k, n]) + B[n]`) has no loops of its own to tile: hoisted into a stage over all of its
// reader's variables (`hoist_reduction`), it is a contraction whose reader is element-wise at its
// points, and gets the register tile. Others stay where they are.
void hoist_contractions(Graph& g, const Target& target, Plan& plan) {
  for (size_t i = 0; i < g.stages.size(); ++i) {
    const LStage& st = g.stages[i];
    if (st.is_scan() || st.has_reduction() || !lower::hoistable_reduction(st)) continue;
    std::string name = st.name + "_sum";
    for (int k = 2; g.find(name) >= 0 || g.input(name); ++k) name = fmt::format("{}_sum{}", st.name, k);
    LStage reader = st;
    std::optional<LStage> h = lower::hoist_first_reduction(reader, name);
    if (!h || h->vars != st.vars || h->extents != st.extents) continue;
    Graph trial = g;
    trial.stages[i] = reader;
    trial.stages.insert(trial.stages.begin() + static_cast<std::ptrdiff_t>(i), *h);
    // (Or a sum read contiguously along its reduction whatever its layout — an int8 layer's weights
    // stored [N, K]: hoisted, its vector partial sums run along k; left in its reader's expression,
    // the reader's lanes on n gathered the weights lane by lane, 3x slower than plain loops.)
    // (A row's statistic, one pure variable, stays in its expression: computed inside its reader's
    // row loop, its sum already runs in vector partial sums there.)
    // (Nor a sum whose reduction leaves a tail of its vectors: the partial sums then carry the tail's
    // guard in every step, and an LSTM's input projections over 200 points ran 1.4x slower hoisted.)
    const LStage& hs = trial.stages[i];
    int hl = lanes_for(hs, target);
    bool contiguous = st.vars.size() >= 2 && reduces_contiguously(trial, hs, hl) && hs.rextents.back() % hl == 0;
    if (!find_contraction(trial, trial.stages[i], target) && !contiguous) continue;
    plan.memory(st.name, "hoist_reduction -> " + name);
    g = std::move(trial);
    ++i;  // (the reader moved one place on)
  }
}

}  // namespace

std::string cpu_default_schedule(const Graph& original, const Target& target) {
  Plan plan;
  Inlining in = decide_inlining(original, plan, true);
  Graph g = in.sim;  // the stages that keep loops, with the inlined ones substituted
  hoist_contractions(g, target, plan);
  Rules rules{g, target, plan};

  // Contractions: register tiles, on the reader where it is element-wise at the sum's own points.
  std::map<std::string, Contraction> tiles;
  std::map<std::string, std::string> tile_reader;  // contraction -> the reader that carries its tile
  std::set<std::string> tile_readers, tile_inlined;
  for (const auto& s : g.stages) {
    auto c = find_contraction(g, s, target);
    if (!c) continue;
    tiles[s.name] = *c;
    // An element-wise producer only the contraction reads (a padded copy of its input) is read in
    // place in the tile instead of being written out first; a guarded one (padding) only where the
    // tile reads it the same for all its lanes (NHWC: the lanes are output channels, the guard is
    // one branch per tap). Where the read moves along the lanes its guard is a mask per lane that
    // the borders keep from being made unconditional, and those lane-by-lane loads at every tap
    // made convolutions 4x to 11x slower than plain loops over the copy.
    for (const auto& l : stage_reads(s)) {
      int pi = g.find(l.buffer);
      if (pi < 0) continue;
      const LStage& p = g.stages[static_cast<size_t>(pi)];
      // (It reads inputs only: a stage reading others may carry a tile or producers of its own.)
      bool inputs_only = true;
      for (const auto& r : stage_reads(p)) inputs_only = inputs_only && g.input(r.buffer);
      std::set<std::string> lane_dims;  // p's variables the read moves along the tile's lanes
      for (size_t d = 0; d < l.load->args.size() && d < p.vars.size(); ++d)
        if (lower::uses_var(l.load->args[d], c->n)) lane_dims.insert(p.vars[d]);
      bool guard_per_lane = guard_uses(p.value, lane_dims);
      if (p.is_output || p.has_reduction() || has_reduce(p.value) || p.is_scan() || has_costly_call(p.value) || guard_per_lane || !inputs_only ||
          g.consumers(p.name) != std::vector<std::string>{s.name} || tile_inlined.count(p.name))
        continue;
      tile_inlined.insert(p.name);
      plan.memory(p.name, "inline");
    }
    auto consumers = g.consumers(s.name);
    if (s.is_output || consumers.size() != 1) continue;
    const LStage& y = g.stages[g.find(consumers[0])];
    if (y.has_reduction() || has_reduce(y.value) || y.is_scan() || y.extents != s.extents || !lower::reads_pointwise(y, s.name) ||
        tiles.count(y.name) || tile_readers.count(y.name))
      continue;
    tile_reader[s.name] = y.name;
    tile_readers.insert(y.name);
    // (A tile of several vectors across a row its width does not divide is one vector wide at its
    // reader: the region of the last, cut tile then stays within one vector, where two-vector
    // tiles over a 101-point row made every tile's region an expression wider than the tile, its
    // loops serial; a spectrogram convolution ran 1.4x faster one vector wide.)
    Contraction& t = tiles[s.name];
    if (t.cols > t.lanes && s.extents[t.ni] % t.cols != 0) t.cols = t.lanes;
  }

  // Fusion, readers first: a stage that reduces (or is a reduction's partial result) is computed in
  // the nest of the stage that reads it, at the loop over the prefix its readers use.
  std::map<std::string, std::string> root_of;  // stage -> the root nest it is computed in
  std::map<std::string, size_t> depth;         // fused stage -> how many of the root's loops enclose it
  std::map<std::string, std::string> fused_into;
  for (size_t i = g.stages.size(); i-- > 0;) {
    const LStage& s = g.stages[i];
    root_of[s.name] = s.name;
    if (s.is_output || s.is_scan() || tiles.count(s.name) || tile_inlined.count(s.name)) continue;
    bool reduces = s.has_reduction() || has_reduce(s.value);
    if (!reduces) continue;
    auto consumers = g.consumers(s.name);
    if (consumers.empty()) continue;
    std::string root;
    size_t k = SIZE_MAX;
    bool ok = true;
    for (const auto& c : consumers) {
      const LStage& cs = g.stages[g.find(c)];
      size_t kc = prefix_read(cs, s.name);
      if (kc == 0 || cs.is_scan() || kc != s.vars.size()) ok = false;
      std::string r = root_of.count(c) ? root_of[c] : c;
      if (!root.empty() && r != root) ok = false;
      root = r;
      // (A reader computed inside the root encloses its producers no deeper than itself.)
      size_t kr = r == c ? kc : std::min(kc, depth[c]);
      k = std::min(k, kr);
    }
    if (!ok || root.empty() || k == 0) continue;
    fused_into[s.name] = root;
    root_of[s.name] = root;
    depth[s.name] = k;
  }
  keep_loop_nests_shallow(g, fused_into);
  // (A reader that other stages are computed in keeps its own nest; its contraction tiles itself.)
  for (const auto& [p, c] : fused_into)
    if (tile_readers.count(c)) {
      tile_readers.erase(c);
      for (auto it = tile_reader.begin(); it != tile_reader.end();)
        it = it->second == c ? tile_reader.erase(it) : std::next(it);
    }

  // The register tiles' directives, and their root nests' loops outside the tiles.
  std::map<std::string, std::vector<std::string>> tile_dirs;  // stage -> its L1 directives
  std::map<std::string, std::vector<std::pair<std::string, int64_t>>> tile_loops;  // root -> loops outside the tile
  std::map<std::string, double> tile_work;
  for (const auto& [name, c] : tiles) {
    const LStage& s = g.stages[g.find(name)];
    auto extent_of = [&](const std::string& loop) -> int64_t {
      for (size_t i = 0; i < s.vars.size(); ++i) {
        if (loop == s.vars[i]) return s.extents[i];
        if (i == c.mi && loop == fmt::format("{}_o", s.vars[i])) return (s.extents[i] + c.rows - 1) / c.rows;
        if (i == c.ni && loop == fmt::format("{}_o", s.vars[i])) return (s.extents[i] + c.cols - 1) / c.cols;
      }
      return 1;
    };
    std::vector<std::string> outer;
    std::string root = name;
    if (auto r = tile_reader.find(name); r != tile_reader.end()) {
      const LStage& y = g.stages[g.find(r->second)];
      FusedTilePlan f = tile_at_reader(s, y, c);
      tile_dirs[name] = f.s_dirs;
      tile_dirs[y.name] = f.y_dirs;
      plan.memory(name, fmt::format("compute_at {} {}", y.name, f.at));
      root = y.name;
      for (size_t i = 0; i < f.outer.size(); ++i) {
        // (The reader's loops have its own names: the same extents as the sum's at the same position.)
        const std::string& l = f.outer[i];
        int64_t e = i == c.mi ? (s.extents[i] + c.rows - 1) / c.rows : i == c.ni ? (s.extents[i] + c.cols - 1) / c.cols : y.extents[i];
        tile_loops[root].push_back({l, e});
      }
      tile_work[root] += rules.estimated_us(y, true);
    } else {
      TilePlan t = tile_at_root(s, c);
      tile_dirs[name] = t.dirs;
      for (const auto& [stage, dirs] : t.created) plan.schedule(stage, dirs);
      for (const auto& d : t.memory) plan.memory(name, d);
      for (const auto& [stage, d] : t.created_memory) plan.memory(stage, d);
      for (const auto& l : t.outer) tile_loops[root].push_back({l, extent_of(l)});
    }
    tile_work[root] += rules.estimated_us(s, true);
  }

  // The nests: roots with the loops their producers need kept intact.
  std::map<std::string, size_t> keep;  // root -> loops to keep intact
  std::map<std::string, bool> pointwise_into;
  for (const auto& [p, c] : fused_into) {
    const LStage& root = g.stages[g.find(c)];
    bool pointwise = depth[p] == root.vars.size();
    pointwise_into[p] = pointwise;
    if (!pointwise) keep[c] = std::max(keep[c], depth[p]);
  }
  std::map<std::string, Nest> nests;
  std::map<std::string, double> work_us;  // root -> its nest's work, its fused producers' included
  for (const auto& s : g.stages) {
    if (fused_into.count(s.name) || tile_dirs.count(s.name) || tile_inlined.count(s.name)) continue;
    if (s.is_scan()) continue;
    // (A nest that producers are computed inside keeps its loops as they are: no fused lanes.)
    bool has_producers = false;
    for (const auto& [producer, consumer] : fused_into) has_producers = has_producers || consumer == s.name;
    nests[s.name] = rules.nest(s, keep.count(s.name) ? keep[s.name] : 0, "", 0, !has_producers);
    work_us[s.name] += rules.estimated_us(s, !nests[s.name].vec_var.empty() || nests[s.name].vector_reduction);
  }
  for (const auto& s : g.stages) {
    auto it = fused_into.find(s.name);
    if (it == fused_into.end()) continue;
    const Nest& root = nests[it->second];
    // A pointwise producer keeps its reader's lanes (same variable position); one computed at a
    // prefix of its reader's loops has no pure loop left to vectorize but its reduction's.
    std::string hint;
    if (pointwise_into[s.name] && !root.vec_var.empty()) {
      const LStage& c = g.stages[g.find(it->second)];
      size_t i = std::find(c.vars.begin(), c.vars.end(), root.vec_var) - c.vars.begin();
      if (i < s.vars.size() && i + 1 == c.vars.size()) hint = s.vars[i];
    }
    nests[s.name] = rules.nest(s, pointwise_into[s.name] ? 0 : s.vars.size(), hint, hint.empty() ? 0 : root.lanes);
    work_us[it->second] += rules.estimated_us(s, !nests[s.name].vec_var.empty() || nests[s.name].vector_reduction);
  }
  for (const auto& s : g.stages) {
    if (tile_inlined.count(s.name)) continue;
    if (s.is_scan()) {
      plan.schedule(s.name, recurrence_directives(g, s, target, rules.pays_for_threads(rules.estimated_us(s, true))));
      continue;
    }
    if (tile_dirs.count(s.name)) {
      std::vector<std::string> dirs = tile_dirs[s.name];
      if (tile_loops.count(s.name) && rules.pays_for_threads(tile_work[s.name])) {
        // (A packed panel is computed at the column loop: it may be fused into the parallel loop
        // only when it is that loop itself, first.)
        // (The tile's accumulators, or the sum, are computed at the last loop outside it, and a
        // packed panel at the column loop: neither may be fused away.)
        const auto& loops = tile_loops[s.name];
        size_t no_fuse_from = loops.empty() ? 0 : loops.size() - 1;
        if (tiles.count(s.name) && tiles[s.name].pack)
          for (size_t i = 0; i < loops.size(); ++i)
            if (loops[i].first == tiles[s.name].n + "_o") no_fuse_from = std::min(no_fuse_from, i);
        auto par = rules.parallel_loop(loops, no_fuse_from);
        dirs.insert(dirs.end(), par.begin(), par.end());
      }
      plan.schedule(s.name, dirs);
      continue;
    }
    Nest& n = nests[s.name];
    std::vector<std::string> dirs = n.dirs;
    if (!fused_into.count(s.name) && rules.pays_for_threads(work_us[s.name])) {
      // (Loops that producers are computed at stay as they are: fused, they would be gone.)
      auto loops = n.loops(s);
      size_t no_fuse_from = n.partial.empty() || loops.empty() ? SIZE_MAX : loops.size() - 1;
      // (Nor the innermost loop of plain loops, which clang's vectorizer takes: fused into the
      // parallel loop, every point divides its index back into two, and a linear resampler's two
      // channels fused with their 16000 samples ran 2.6x slower than plain serial loops.)
      if (n.vec_var.empty() && !reduces(s) && loops.size() >= 2)
        no_fuse_from = std::min(no_fuse_from, loops.size() - 1);
      for (const auto& [producer, consumer] : fused_into) {
        if (consumer != s.name) continue;
        std::string at = pointwise_into[producer] ? n.outer_of_vec : s.vars[depth[producer] - 1];
        for (size_t i = 0; i < loops.size(); ++i)
          if (loops[i].first == at) no_fuse_from = std::min(no_fuse_from, i);
      }
      auto par = rules.parallel_loop(loops, no_fuse_from);
      dirs.insert(dirs.end(), par.begin(), par.end());
    }
    plan.schedule(s.name, dirs);
  }
  for (const auto& [producer, consumer] : fused_into) {
    const Nest& c = nests[consumer];
    const LStage& cs = g.stages[g.find(consumer)];
    std::string at = pointwise_into[producer] ? c.outer_of_vec : cs.vars[depth[producer] - 1];
    if (at.empty()) continue;
    plan.memory(producer, fmt::format("compute_at {} {}", consumer, at));
    // (Its vector partial sums go with it: they read what it reads.)
    if (!nests[producer].partial.empty()) plan.memory(nests[producer].partial, fmt::format("compute_at {} {}", consumer, at));
  }
  // A reduction at the root in vector partial sums computes them at each of its points (its
  // innermost pure loop), not in a pass of their own.
  for (const auto& s : g.stages) {
    auto it = nests.find(s.name);
    if (it == nests.end() || it->second.partial.empty() || fused_into.count(s.name) || it->second.order.empty()) continue;
    plan.memory(it->second.partial, fmt::format("compute_at {} {}", s.name, it->second.order.back()));
  }
  return plan.text(target.backend);
}

}  // namespace ekb::default_schedule
