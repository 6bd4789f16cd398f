// LEKA's action tables: the candidate revisions of a program at one layer, generated from ekb's
// own schedule primitives with factor sets that fit the target (divisors and powers of two of the
// loop extents, the ISA's vector width and register count, the thread count, GPU threads per block
// and elements per thread). Each action is applied to a copy of the program; the search keeps only
// those that pass ekb's checker and lowering (analyze), so an illegal program is never measured.
//   L0 compute: rewrites of the kernel that keep its interface (rewrites.h).
//   L1 schedule: parallel (add, move, remove), vectorize (width, remove), unroll (factor, remove),
//     reorder (swap neighbours), loop nests rebuilt as tiles, splits that move reductions inward,
//     interchanges; on GPUs, threads per block and elements per thread.
//   L2 memory: compute_at a consumer's loop (fusion) or back to the root, inline or not, register
//     tiles (tile + cache_write local + an unrolled, vectorized accumulation, optionally with the
//     operand packed into panels), vector reductions (split + rfactor + vectorize).
// docs/agent.md lists the tables.
#pragma once
#include <string>
#include <vector>

#include "agent/program.h"

namespace ekb::agent {

enum class AgentLayer { compute, schedule, memory };
const char* layer_label(AgentLayer l);  // "L0", "L1", "L2"
const char* layer_name(AgentLayer l);   // "compute", "schedule", "memory"

// The kinds of revision, one table (docs/agent.md lists it; a test keeps the two in step). A search
// round measures the best-ranked revision of several kinds, not only the cost model's favourite.
enum class ActionKind {
  reciprocal, constant_divisor, split_reduction,                           // L0
  serial, parallel, vectorize, unroll, reorder, tile, split, interchange,  // L1 (cpu)
  gpu_threads, gpu_elements, gpu_reduction_threads,                        // L1 (cuda, opencl)
  compute_at, inline_stage, register_tile, fused_register_tile, vector_reduction,  // L2 (cpu)
  gpu_fuse, gpu_block_tile, gpu_double_buffer,                              // L2 (cuda, opencl)
};

struct ActionKindInfo {
  ActionKind kind;
  AgentLayer layer;
  const char* name;  // as docs/agent.md and the trajectory spell it
  const char* what;  // one line: what the revision does
};
const std::vector<ActionKindInfo>& action_kinds();
const ActionKindInfo& action_kind_info(ActionKind k);

struct Action {
  AgentLayer layer;
  std::string name;      // what it does, for the trajectory: "C: register tile 6x16 (pack B)"
  AgentProgram program;  // the revised program (not yet checked)
  ActionKind kind;
};

// The candidate revisions of `p` (analysed as `a`) at `layer` for `t`, unchecked and deduplicated.
std::vector<Action> enumerate_actions(const AgentProgram& p, const Analysis& a, AgentLayer layer, const Target& t);

// Tile factors for a loop of `extent`: its divisors and the powers of two below it, from `lo` to
// `hi`, at most `count` of them spread over the range.
std::vector<int64_t> tile_factors(int64_t extent, int64_t lo, int64_t hi, size_t count = 8);

}  // namespace ekb::agent
