// The float64 reference interpreter: the oracle every candidate is checked against. It evaluates L0
// exactly as docs/ir.md defines it (floats in double, integers wrapping in their declared type,
// reductions accumulating in double, select / && / || lazy), vectorised over lanes of outputs so that
// a 256^3 matmul takes well under a second.
#pragma once
#include <array>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "interp/tensor_data.h"
#include "ir/program.h"
#include "util/diagnostics.h"

namespace ekb {

// Which way every choice of a program went, over the points where it was evaluated: per `select`
// (condition true, false), `clamp` (below the low bound, inside, above the high bound) and
// two-argument `min`/`max` (the first operand chosen, the second, a tie). The degeneracy filter
// rejects a task with a choice that never goes both ways (src/suite/degenerate.h).
struct BranchCoverage {
  std::map<const Expr*, std::array<int64_t, 3>> counts;
  std::mutex mutex;  // the interpreter's threads add their counts under it
};

struct InterpretOptions {
  bool keep_intermediates = false;  // also return intermediate stages (after the outputs)
  int threads = 0;                  // threads for a large stage; 0: the machine's (results do not depend on it)
  BranchCoverage* coverage = nullptr;  // when set, every choice's outcomes are counted into it
};

// Throws std::runtime_error when the program is too large to interpret in memory (all its tensors
// in 8-byte values above 8 GiB).
void check_interpretable(const Program& p);

// Evaluates `p` on `inputs` (in p.inputs order). Returns the outputs in p.outputs order. A run-time
// fault (an out-of-range read the static check could not rule out, an integer division by zero, a
// shift out of range) throws DiagnosticError pointing at the expression.
std::vector<TensorData> interpret(const Program& p, const std::vector<TensorData>& inputs,
                                  const InterpretOptions& opts = {});

}  // namespace ekb
