// Dispatch of the action tables by layer and backend, deduplication, and the factor sets (actions.h).
#include "agent/actions.h"

#include <algorithm>
#include <set>

#include "agent/cpu_actions.h"

namespace ekb::agent {

const char* layer_label(AgentLayer l) {
  switch (l) {
    case AgentLayer::compute: return "L0";
    case AgentLayer::schedule: return "L1";
    case AgentLayer::memory: return "L2";
  }
  return "?";
}

const char* layer_name(AgentLayer l) {
  switch (l) {
    case AgentLayer::compute: return "compute";
    case AgentLayer::schedule: return "schedule";
    case AgentLayer::memory: return "memory";
  }
  return "?";
}

std::vector<int64_t> tile_factors(int64_t extent, int64_t lo, int64_t hi, size_t count) {
  std::set<int64_t> all;
  for (int64_t f = 2; f <= hi && f < extent; ++f)
    if (f >= lo && (extent % f == 0 || (f & (f - 1)) == 0)) all.insert(f);
  std::vector<int64_t> v(all.begin(), all.end());
  if (v.size() <= count) return v;
  // Spread over the range (log scale): always the smallest and the largest.
  std::vector<int64_t> out;
  for (size_t i = 0; i < count; ++i) {
    int64_t f = v[i * (v.size() - 1) / (count - 1)];
    if (out.empty() || out.back() != f) out.push_back(f);
  }
  return out;
}

std::vector<Action> enumerate_actions(const AgentProgram& p, const Analysis& a, AgentLayer layer, const Target& t) {
  std::vector<Action> all;
  switch (layer) {
    case AgentLayer::compute: detail::compute_actions(p, a, t, all); break;
    case AgentLayer::schedule:
      if (t.gpu()) detail::gpu_schedule_actions(p, a, t, all);
      else detail::cpu_schedule_actions(p, a, t, all);
      break;
    case AgentLayer::memory:
      if (t.gpu()) detail::gpu_memory_actions(p, a, t, all);
      else detail::cpu_memory_actions(p, a, t, all);
      break;
  }
  // The same program reached two ways is one candidate; the program itself is not one.
  std::set<uint64_t> seen = {p.hash()};
  std::vector<Action> out;
  for (auto& x : all)
    if (seen.insert(x.program.hash()).second) out.push_back(std::move(x));
  return out;
}

}  // namespace ekb::agent
