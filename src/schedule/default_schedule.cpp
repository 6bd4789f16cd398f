// Default schedule generation (rules in default_schedule.h): each backend's rules in a file of its
// own (default_cpu.cpp, default_gpu.cpp), what they share in default_common.h.
#include "schedule/default_schedule.h"

#include "loops/graph.h"

namespace ekb {

std::string default_schedule_text(const Program& p, const Target& target) {
  lower::Graph g = lower::build_graph(p);
  return target.gpu() ? default_schedule::gpu_default_schedule(g, target) : default_schedule::cpu_default_schedule(g, target);
}

}  // namespace ekb
