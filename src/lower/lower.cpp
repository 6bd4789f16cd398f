// The lowering pipeline, in order. Each step is one function; reading this file tells what happens
// to a kernel between its text and the printer.
#include "lower/lower.h"

#include "lower/passes.h"
#include "lower/realize.h"
#include "lower/register_accumulators.h"
#include "lower/vector_reductions.h"
#include "schedule/apply.h"
#include "schedule/check_sections.h"

namespace ekb::lower {

LoweredKernel lower_kernel(const Program& p, const Target& target, const Section* schedule, const Section* memory,
                           SourcePtr sections_source) {
  DiagnosticList diags;
  LoweredKernel k;
  k.name = p.name;
  k.target = target;
  // 1. The stage graph from L0 (explicit conversions, lazy logic as selects).
  Graph g = build_graph(p);
  // 2. The L1 and L2 directives replayed by the schedule primitives (legality checks; inline,
  //    caches, rfactor and pack rewrite the graph).
  Schedule s = apply_schedule(p, g, target, schedule, memory, diags, sections_source);
  if (diags.has_errors()) throw DiagnosticError(std::move(diags));
  k.inputs = g.inputs;
  k.outputs = g.outputs;
  // 3. Realization: loop nests per stage, guards and tails, reductions' initial values, stages
  //    computed inside other stages' loops over the regions bounds inference finds, allocations.
  lir::StmtP body = realize(p, g, s, diags);
  if (diags.has_errors()) throw DiagnosticError(std::move(diags));
  // 4. Simplification with the loops' ranges (index arithmetic, min/max, divisions by constants).
  body = simplify_stmt(body);
  // 4b. cpu: reductions in scalar accumulators whose innermost loop reads contiguously accumulate in
  //     vector partial sums (any program; vector_reductions.h).
  body = vectorize_scalar_reductions(body, target);
  // 4c. cpu: reductions accumulating in their output's memory accumulate in a local (register_accumulators.h).
  if (!target.gpu()) body = accumulate_in_registers(body);
  // 5. Vectorized loops with guarded tails split into full vectors and a serial remainder (after the
  //    loops of one iteration are gone: a region computed inside one, `co_o * 16 + 16` points for
  //    co_o in [0, 1), is a constant 16 only then, and a vector loop of unknown extent runs serially —
  //    every register tile computed at its reader's loop lost its lanes).
  body = partition_vector_loops(simplify_stmt(remove_trivial_loops(body)));
  // 5b. Conditions the loops do not change tested above them (cpu), full tiles without branches
  //     (after the loops of one iteration are gone: a condition on one of them is on its value).
  if (!target.gpu()) body = unswitch_loops(simplify_stmt(remove_trivial_loops(body)));
  // 6. Unrolled loops expanded.
  body = unroll_loops(body);
  // 7. Loops of one iteration become lets; a last simplification.
  body = simplify_stmt(remove_trivial_loops(body));
  // 8. GPU: each block's threads and shared memory within the target's limits, its barriers reached
  //    by all.
  if (target.gpu()) {
    if (auto problem = check_gpu_blocks(body, target)) {
      SourcePtr where = problem->loc.valid() && sections_source ? sections_source : p.source();
      diags.error(where, problem->loc, problem->message, problem->fix);
      throw DiagnosticError(std::move(diags));
    }
  }
  k.body = body;
  return k;
}

LoweredKernel lower_kernel(const Program& p, const Target& target) {
  DiagnosticList diags;
  auto secs = sections_by_backend(p, diags);
  if (diags.has_errors()) throw DiagnosticError(std::move(diags));
  auto it = secs.find(target.backend);
  if (it == secs.end()) return lower_kernel(p, target, nullptr, nullptr);
  return lower_kernel(p, target, it->second.schedule, it->second.memory);
}

}  // namespace ekb::lower
