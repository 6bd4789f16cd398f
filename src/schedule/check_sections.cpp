// `ekb check` of the L1/L2 sections: one section per layer and backend, then each backend's
// directives replayed over the stage graph by the same primitives lowering uses.
#include "schedule/check_sections.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "loops/graph.h"
#include "schedule/apply.h"
#include "util/strings.h"

namespace ekb {

std::map<Backend, BackendSections> sections_by_backend(const Program& p, DiagnosticList& diags) {
  std::map<Backend, BackendSections> out;
  for (const auto& s : p.module->sections) {
    const char* layer = s.layer == Layer::schedule ? "schedule" : "memory";
    std::optional<Backend> b = find_backend(s.backend);
    if (!b) {
      std::vector<std::string> kb;
      for (Backend k : all_backends()) kb.push_back(backend_name(k));
      std::string near = closest_match(s.backend, kb);
      diags.error(p.source(), s.backend_loc, fmt::format("unknown backend `{}`", s.backend),
                  (near.empty() ? std::string() : fmt::format("did you mean `{}`? ", near)) + "backends: cpu, cuda, opencl");
      continue;
    }
    const Section*& slot = s.layer == Layer::schedule ? out[*b].schedule : out[*b].memory;
    if (slot) {
      diags.error(p.source(), s.loc, fmt::format("a second `{} {}` section", layer, s.backend),
                  fmt::format("merge its lines into the first `{} {}` section", layer, s.backend));
      continue;
    }
    slot = &s;
  }
  return out;
}

void check_sections(const Program& p, DiagnosticList& diags) {
  for (const auto& [backend, secs] : sections_by_backend(p, diags)) {
    lower::Graph g = lower::build_graph(p);
    apply_schedule(p, g, default_target(backend), secs.schedule, secs.memory, diags);
  }
}

}  // namespace ekb
