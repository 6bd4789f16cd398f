// Lowering: L0 + L1 + L2 of one backend to one loop-IR statement, through an ordered pipeline (see
// lower.cpp, `lower_kernel`). The result is what the printer turns into C, CUDA C or OpenCL C.
#pragma once
#include <string>
#include <vector>

#include "ir/program.h"
#include "loops/graph.h"
#include "loops/loop_ir.h"
#include "schedule/schedule.h"
#include "util/diagnostics.h"

namespace ekb::lower {

struct LoweredKernel {
  std::string name;
  Target target;  // what it was lowered for (the printer's dialect and vector code follow it)
  std::vector<TensorArg> inputs, outputs;  // the parameters, in ABI order
  lir::StmtP body;
};

// Lowers `p` with its own schedule and memory sections for the target's backend (none: the plain
// loops). Throws DiagnosticError when the schedule is illegal or exceeds the target's limits (GPU
// threads and shared memory per block), located at the directive to change.
LoweredKernel lower_kernel(const Program& p, const Target& target);

// Lowers `p` with the sections of another module (a schedule file for a task), or none;
// `sections_source` is the file they come from (for diagnostics; default: the kernel's).
LoweredKernel lower_kernel(const Program& p, const Target& target, const Section* schedule, const Section* memory,
                           SourcePtr sections_source = nullptr);

}  // namespace ekb::lower
