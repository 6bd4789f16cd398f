// Well-formedness of the L1 `schedule` and L2 `memory` sections: one section per layer and backend,
// and each backend's directives replayed (src/schedule/apply.h) with their legality checks.
#pragma once
#include <map>
#include <string>

#include "ir/program.h"
#include "target/backend.h"
#include "util/diagnostics.h"

namespace ekb {

struct BackendSections {
  const Section* schedule = nullptr;
  const Section* memory = nullptr;
};

// The sections of `p` per backend; unknown backends and duplicate sections are reported.
std::map<Backend, BackendSections> sections_by_backend(const Program& p, DiagnosticList& diags);

void check_sections(const Program& p, DiagnosticList& diags);

}  // namespace ekb
