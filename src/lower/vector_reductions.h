// A loop-IR pass (cpu): a reduction computed in a scalar accumulator (a reduction inside an
// expression, lowered by lower_expr.h) whose innermost reduction loop reads memory contiguously or
// not at all accumulates in vector partial sums instead, as a compiler that may reassociate does:
// W = 1, 2 or 4 registers' worth of lanes accumulate side by side (independent chains), the last
// iterations that do not fill W are added one by one, and the partial sums are combined at the end.
// The order of the operations changes, as the comparison rule allows for float sums (docs/metrics.md:
// an implementation may reassociate); integer sums wrap the same way in any order, max and min are
// exact. Applies to every program alike (candidates, baselines, naive loops); not inside a loop
// already in vector lanes.
#pragma once
#include "loops/loop_ir.h"
#include "target/target.h"

namespace ekb::lower {

lir::StmtP vectorize_scalar_reductions(const lir::StmtP& s, const Target& target);

}  // namespace ekb::lower
