// The timing regimes (timing_regime.h).
#include "harness/timing_regime.h"

#include <stdexcept>

namespace ekb {

namespace {

// Idle OpenMP threads of a regime with awake threads spin this long, then sleep: long enough for a
// kernel's serial code between two parallel regions, short enough that a side's threads are asleep
// before the other side's timed call (evaluate.cpp waits that long and a little more between turns).
constexpr int kIdleSpinUs = 1000;

}  // namespace

const std::vector<TimingInfo>& timing_table() {
  static const std::vector<TimingInfo> t = {
      {Timing::cold, "cold",
       "each call after a cache flush, the kernel's threads awake (as a runtime keeps its pool between layers)", true,
       IdleThreads::awake},
      {Timing::cold_asleep, "cold-asleep",
       "each call after a cache flush, the kernel's idle threads asleep since its last call (a kernel run once per frame)", true,
       IdleThreads::asleep},
      {Timing::warm, "warm", "calls back to back, caches warm, idle threads spinning: the kernel as a model runs its layers", false,
       IdleThreads::awake},
  };
  return t;
}

const TimingInfo& timing_info(Timing t) {
  for (const auto& i : timing_table())
    if (i.timing == t) return i;
  throw std::logic_error("timing regime without a row in timing_table()");
}

const char* timing_name(Timing t) { return timing_info(t).name; }

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

int idle_spin_us(Timing t) { return timing_info(t).threads == IdleThreads::awake ? kIdleSpinUs : 0; }

nlohmann::json keyed_by_timing(nlohmann::json key, Timing t) {
  if (t != Timing::cold_asleep) key["timing"] = timing_name(t);
  return key;
}

void record_timing(nlohmann::json& env, Timing t) {
  env["timing"] = timing_name(t);
  env["idle_threads"] = timing_info(t).threads == IdleThreads::awake ? "awake" : "asleep";
}

Timing timing_of_environment(const nlohmann::json& env) {
  if (!env.is_object() || !env.contains("timing") || !env["timing"].is_string()) return Timing::cold_asleep;
  std::string name = env["timing"].get<std::string>();
  if (name == "cold" && !env.contains("idle_threads")) return Timing::cold_asleep;
  return find_timing(name).value_or(Timing::cold_asleep);
}

}  // namespace ekb
