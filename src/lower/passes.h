// The loop-IR passes that run after realization, each a function from statement to statement.
#pragma once
#include "lower/loop_ir.h"

namespace ekb::lower {

// Simplifies every expression with the ranges of the enclosing loops and lets.
lir::StmtP simplify_stmt(const lir::StmtP& s);
// A vectorized or unrolled loop whose extent is not a constant (a guarded tail) becomes
// `if (extent == W) <vectorized / unrolled loop of W> else <serial loop>`.
lir::StmtP partition_vector_loops(const lir::StmtP& s);
// Unrolled loops with a constant extent are replaced by one copy of their body per iteration.
lir::StmtP unroll_loops(const lir::StmtP& s);
// Loops of extent 1 become lets; empty loops disappear.
lir::StmtP remove_trivial_loops(const lir::StmtP& s);

}  // namespace ekb::lower
