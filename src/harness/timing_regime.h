// How the harness times a call, as one table: the regime an attempt was timed in is part of its
// result (a speedup measured cold and one measured warm answer different questions), so runs store
// it, their keys include it, and reports name it. Two things make a regime: whether the caches are
// flushed before each call, and what the kernel's idle OpenMP threads do between its calls.
//
// cold (the default): each call after a cache flush (the worker's own threads read the flush
//   buffer, so each core's private caches are flushed too and the team is awake when the timed call
//   starts), idle threads spinning briefly between parallel regions: a kernel as an inference
//   runtime runs a layer, its thread pool kept between layers, its data in memory.
// cold-asleep: each call after a cache flush, the kernel's idle threads asleep since its last call:
//   every parallel region pays the wake-up (0.1-0.3 ms on a 2-core VM). The once-per-frame question
//   of a kernel called on its own. (Stored runs from before regimes had threads named are this one.)
// warm: calls back to back, as a model runs its layers: no flush, the inputs just written (as the
//   previous layer would have left them), and the kernel's OpenMP threads spinning between its calls
//   instead of sleeping, so that a parallel kernel does not pay for waking them each time. What
//   microbenchmarks of kernel libraries measure (bench/'s peers are timed this way).
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ekb {

enum class Timing { cold, warm, cold_asleep };

// What the kernel's idle threads do between its calls.
enum class IdleThreads { awake, asleep };

struct TimingInfo {
  Timing timing;
  const char* name;         // as given to --timing and stored with a run
  const char* description;  // one line, for --help and reports
  bool flush;               // the caches are flushed before each call
  IdleThreads threads;      // the kernel's idle threads between calls and regions
};

const std::vector<TimingInfo>& timing_table();
const TimingInfo& timing_info(Timing t);
const char* timing_name(Timing t);
std::optional<Timing> find_timing(const std::string& name);
// The regime spelled `name`; throws naming the known ones.
Timing parse_timing(const std::string& name);
// How long (microseconds) a regime's idle OpenMP threads spin before they sleep: 0 for asleep.
int idle_spin_us(Timing t);
// The run key of a run timed in `t` (the key of a cold-asleep run is what it was before regimes
// existed, so that such stored runs resume as what they are; every other regime is named in it).
nlohmann::json keyed_by_timing(nlohmann::json key, Timing t);
// A run's environment records its regime (`timing`, and `idle_threads`); the regime of a stored
// run's environment: `cold` stored without `idle_threads` is from before threads were named
// (threads asleep: cold-asleep); no `timing` at all is cold-asleep too.
void record_timing(nlohmann::json& env, Timing t);
Timing timing_of_environment(const nlohmann::json& env);

}  // namespace ekb
