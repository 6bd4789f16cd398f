// Lowering the value of a stage to statements plus an expression: nested reductions become scalar
// accumulators filled by loops just before the value is used; a select whose branch holds such a
// reduction becomes an if, so the branch not taken is never evaluated (L0's select is lazy).
#pragma once
#include <string>
#include <vector>

#include "loops/loop_ir.h"

namespace ekb::lower {

struct LoweredValue {
  std::vector<lir::StmtP> pre;  // run these first (they declare scalars with bodiless allocations)
  lir::ExprP value;
};

// `counter` makes the temporaries' names unique within the kernel.
LoweredValue lower_value(const lir::ExprP& e, int& counter);

// The value a reduction starts from: 0, 1, the lowest or the highest value of its type.
lir::ExprP reduction_identity(ReduceOp op, DType t);
// acc op v
lir::ExprP reduction_combine(ReduceOp op, lir::ExprP acc, lir::ExprP v);

}  // namespace ekb::lower
