// The loop-IR passes that run after realization, each a function from statement to statement.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "loops/loop_ir.h"
#include "target/target.h"

namespace ekb::lower {

// Simplifies every expression with the ranges of the enclosing loops and lets.
lir::StmtP simplify_stmt(const lir::StmtP& s);
// A vectorized or unrolled loop whose extent is not a constant (a guarded tail) becomes
// `if (extent == W) <vectorized / unrolled loop of W> else <serial loop>`.
lir::StmtP partition_vector_loops(const lir::StmtP& s);
// A condition that loops do not change (a guarded tail's `extent == W`, which depends on outer loops
// only) is tested once above them: the loops below are copied, once where it holds and once where
// it does not, so that the full tiles run without branches and their buffers keep constant indices
// (the compiler then keeps them in registers). At most 3 conditions on a path. CPU only: on GPUs a
// condition on the thread would move barriers into a branch.
lir::StmtP unswitch_loops(const lir::StmtP& s);
// Unrolled loops with a constant extent are replaced by one copy of their body per iteration.
lir::StmtP unroll_loops(const lir::StmtP& s);
// Loops of extent 1 become lets; empty loops disappear.
lir::StmtP remove_trivial_loops(const lir::StmtP& s);

// GPU backends: what one block of each kernel (root loop nest) may do. Its threads (the product of
// the largest extent bound to each thread axis) are at most the target's limit (1024 unless the
// device profile allows fewer), its static shared memory at most the target's (48 KiB unless the
// profile allows less), and every barrier and cross-thread reduction is reached by every thread of the block (not
// inside a branch, a loop bound to fewer threads than the block has, or a loop whose trip count
// depends on the thread). Returns what is wrong and how to fix it, or nothing.
struct GpuBlockProblem {
  std::string message, fix;
  Loc loc;  // the directive to fix (the widest loop bound to threads), when known
};
std::optional<GpuBlockProblem> check_gpu_blocks(const lir::StmtP& body, const Target& target);

// A GPU program's kernels: the root loop nests of a lowered body, in order. The global allocations at
// the root, around them, are the program's scratch buffers (the host allocates them); `scratch`,
// when given, receives those allocation statements in order.
std::vector<lir::StmtP> gpu_kernel_nests(const lir::StmtP& body, std::vector<lir::StmtP>* scratch = nullptr);

}  // namespace ekb::lower
