// Realization: turning each stage and its schedule into a loop nest over the region it must compute,
// placing stages computed inside other stages' loops (with bounds inference for their regions) and
// allocating every buffer where it is stored.
#pragma once
#include "ir/program.h"
#include "loops/graph.h"
#include "loops/loop_ir.h"
#include "schedule/schedule.h"
#include "util/diagnostics.h"

namespace ekb::lower {

// The kernel body: every stage computed where its schedule says. Reports problems (a pad that would
// write past an output, a local buffer too big for the stack) into `diags`.
lir::StmtP realize(const Program& p, const Graph& g, const Schedule& s, DiagnosticList& diags);

// The names of a stage's loops ("S.d") and of its original variables' values ("S:v") in the loop IR.
std::string qualified(const std::string& stage, const std::string& name);
std::string value_name(const std::string& stage, const std::string& var);

}  // namespace ekb::lower
