// The GPU action tables (actions.h): threads per block and elements per thread for each kernel's
// loop nest (L1); shared-memory and register tiles for reductions (L2).
#include <fmt/format.h>

#include "agent/action_util.h"
#include "agent/cpu_actions.h"

namespace ekb::agent::detail {

void gpu_schedule_actions(const AgentProgram& p, const Analysis& a, const Target& t, std::vector<Action>& out) {
  (void)p, (void)a, (void)t, (void)out;
}

void gpu_memory_actions(const AgentProgram& p, const Analysis& a, const Target& t, std::vector<Action>& out) {
  (void)p, (void)a, (void)t, (void)out;
}

}  // namespace ekb::agent::detail
