// Dispatch of the action tables by layer and backend, deduplication, and the factor sets (actions.h).
#include "agent/actions.h"

#include <algorithm>
#include <set>

#include "agent/cpu_actions.h"

namespace ekb::agent {

const char* layer_label(AgentLayer l) {
  switch (l) {
    case AgentLayer::compute: return "L0";
    case AgentLayer::schedule: return "L1";
    case AgentLayer::memory: return "L2";
  }
  return "?";
}

const char* layer_name(AgentLayer l) {
  switch (l) {
    case AgentLayer::compute: return "compute";
    case AgentLayer::schedule: return "schedule";
    case AgentLayer::memory: return "memory";
  }
  return "?";
}

const std::vector<ActionKindInfo>& action_kinds() {
  using K = ActionKind;
  constexpr auto L0 = AgentLayer::compute, L1 = AgentLayer::schedule, L2 = AgentLayer::memory;
  static const std::vector<ActionKindInfo> v = {
      {K::reciprocal, L0, "reciprocal", "a division by a row's value becomes a multiplication by a reciprocal stage, one division per row"},
      {K::constant_divisor, L0, "constant divisor", "a division by a constant becomes a multiplication by its reciprocal"},
      {K::split_reduction, L0, "split reduction", "a reduction inside an element-wise expression becomes a stage of its own"},
      {K::serial, L1, "serial", "the whole program on one thread (no parallel loops)"},
      {K::parallel, L1, "parallel", "a stage's parallel loop added, moved one level inward (or fused with the next), split in as many pieces as threads and made outermost, or removed"},
      {K::vectorize, L1, "vectorize", "a stage's innermost pure loop in one, two or four vector registers of lanes, or none"},
      {K::unroll, L1, "unroll", "one of the two innermost serial loops unrolled by 2, 4, 8 or fully, or no longer"},
      {K::reorder, L1, "reorder", "two neighbouring loops swapped"},
      {K::tile, L1, "tile", "the two innermost pure loops tiled (factors: divisors and powers of two), reductions inside or outside"},
      {K::split, L1, "split", "the innermost pure loop split, its inner piece under the reduction loops, in vector lanes"},
      {K::interchange, L1, "interchange", "another pure loop innermost, in vector lanes"},
      {K::gpu_threads, L1, "threads", "a kernel's threads per block: 32 to the profile's limit, powers of two"},
      {K::gpu_elements, L1, "elements per thread", "each thread handles 2, 4 or 8 elements, a block's width apart (coalesced)"},
      {K::gpu_reduction_threads, L1, "reduction threads", "the threads that reduce one point together (a cross-thread reduction); for a row group, the threads per row and rows per block"},
      {K::compute_at, L2, "compute_at", "a producer computed inside a consumer's loop (fusion), or back at the root"},
      {K::inline_stage, L2, "inline", "a pure intermediate inlined into its readers, or given its own loops"},
      {K::register_tile, L2, "register tile",
       "an mi x ni tile accumulated in vector registers (tile, cache_write local, unrolled rows, vector columns), the streamed operand optionally packed in panels"},
      {K::fused_register_tile, L2, "fused register tile",
       "a reduction's mi x ni tile computed at each tile of its element-wise consumer (a convolution's bias and activation): accumulators in registers, small reduction loops unrolled; optionally its element-wise producers (a padded copy) inlined"},
      {K::vector_reduction, L2, "vector reduction", "a reduction over its contiguous axis in 1, 2 or 4 registers of partial sums (split, rfactor, vectorize)"},
      {K::gpu_fuse, L2, "fuse", "a producer computed inside each thread of its consumer's kernel (one kernel fewer)"},
      {K::gpu_block_tile, L2, "block tile",
       "a reduction as a block tile: threads with register tiles (a thread's columns in groups of 4 spread across the tile when it has 8 "
       "or more), the operands' panels cached in shared memory (copied 4 neighbouring elements per thread where that divides), rows "
       "of blocks in groups of 8 along block.x"},
      {K::gpu_double_buffer, L2, "double buffer",
       "a block tile's shared panels in two copies: each thread loads its part of the next panels into registers while the block computes on these"},
  };
  return v;
}

const ActionKindInfo& action_kind_info(ActionKind k) {
  for (const auto& i : action_kinds())
    if (i.kind == k) return i;
  return action_kinds().front();
}

std::vector<int64_t> tile_factors(int64_t extent, int64_t lo, int64_t hi, size_t count) {
  std::set<int64_t> all;
  for (int64_t f = 2; f <= hi && f < extent; ++f)
    if (f >= lo && (extent % f == 0 || (f & (f - 1)) == 0)) all.insert(f);
  std::vector<int64_t> v(all.begin(), all.end());
  if (v.size() <= count) return v;
  // Spread over the range (log scale): always the smallest and the largest.
  std::vector<int64_t> out;
  for (size_t i = 0; i < count; ++i) {
    int64_t f = v[i * (v.size() - 1) / (count - 1)];
    if (out.empty() || out.back() != f) out.push_back(f);
  }
  return out;
}

std::vector<Action> enumerate_actions(const AgentProgram& p, const Analysis& a, AgentLayer layer, const Target& t) {
  std::vector<Action> all;
  switch (layer) {
    case AgentLayer::compute: detail::compute_actions(p, a, t, all); break;
    case AgentLayer::schedule:
      if (t.gpu()) detail::gpu_schedule_actions(p, a, t, all);
      else detail::cpu_schedule_actions(p, a, t, all);
      break;
    case AgentLayer::memory:
      if (t.gpu()) detail::gpu_memory_actions(p, a, t, all);
      else detail::cpu_memory_actions(p, a, t, all);
      break;
  }
  // The same program reached two ways is one candidate; the program itself is not one.
  std::set<uint64_t> seen = {p.hash()};
  std::vector<Action> out;
  for (auto& x : all)
    if (seen.insert(x.program.hash()).second) out.push_back(std::move(x));
  return out;
}

}  // namespace ekb::agent
