// The per-backend action tables behind enumerate_actions (internal to src/agent).
#pragma once
#include <vector>

#include "agent/actions.h"

namespace ekb::agent::detail {

void cpu_schedule_actions(const AgentProgram& p, const Analysis& a, const Target& t, std::vector<Action>& out);
void cpu_memory_actions(const AgentProgram& p, const Analysis& a, const Target& t, std::vector<Action>& out);
void gpu_schedule_actions(const AgentProgram& p, const Analysis& a, const Target& t, std::vector<Action>& out);
void gpu_memory_actions(const AgentProgram& p, const Analysis& a, const Target& t, std::vector<Action>& out);
void compute_actions(const AgentProgram& p, const Analysis& a, const Target& t, std::vector<Action>& out);

}  // namespace ekb::agent::detail
