// Well-formedness of the L1 `schedule` and L2 `memory` sections: one section per layer and backend,
// known directives with the right arguments, names that refer to existing stages, tensors and axes
// (tracking the axes each directive creates). Their meaning comes with the compilers.
#pragma once
#include "ir/program.h"
#include "util/diagnostics.h"

namespace ekb {

void check_sections(const Program& p, DiagnosticList& diags);

// Backends a section may name.
const std::vector<std::string>& known_backends();

}  // namespace ekb
