// The timing regimes (timing_regime.h).
#include "harness/timing_regime.h"

#include <stdexcept>

namespace ekb {

const std::vector<TimingInfo>& timing_table() {
  static const std::vector<TimingInfo> t = {
      {Timing::cold, "cold", "each call after a cache flush, idle threads asleep: the kernel run once, on its own"},
      {Timing::warm, "warm", "calls back to back, caches warm, idle threads spinning: the kernel as a model runs its layers"},
  };
  return t;
}

const char* timing_name(Timing t) { return timing_table()[static_cast<size_t>(t)].name; }

std::optional<Timing> find_timing(const std::string& name) {
  for (const auto& i : timing_table())
    if (name == i.name) return i.timing;
  return std::nullopt;
}

Timing parse_timing(const std::string& name) {
  if (auto t = find_timing(name)) return *t;
  std::string known;
  for (const auto& i : timing_table()) known += std::string(known.empty() ? "" : ", ") + i.name;
  throw std::runtime_error("unknown timing regime `" + name + "`; regimes: " + known);
}

}  // namespace ekb
