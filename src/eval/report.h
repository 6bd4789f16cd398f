// A run's report as data: its attempts with their outcomes, times, speedups and intervals, the
// metrics (metrics.h) and the environment it ran in. `ekb eval --json`, `ekb results --json` and the
// main job print it; the text table is the CLI's (cli/eval_report.h).
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "harness/metrics.h"
#include "harness/results_store.h"

namespace ekb {

// How a run's calls were timed (stored with it; runs stored before regimes existed were cold).
Timing timing_of(const RunInfo& run);
std::vector<SampleOutcome> outcomes_of(const std::vector<AttemptRecord>& attempts);
nlohmann::json attempt_json(const AttemptRecord& a);
nlohmann::json metrics_json(const Metrics& m);
// Whether a run's times came from an emulated board (stored with the run): not meaningful.
bool emulated_times(const RunInfo& run);
// The sentence every output that shows such times carries.
inline constexpr const char* kEmulatedTimesNote =
    "times measured on an emulated board (qemu-user): not meaningful, and so neither are its speedups; only the outcomes count";
nlohmann::json report_json(const RunInfo& run, const std::vector<AttemptRecord>& attempts, const std::vector<std::string>& problems);

}  // namespace ekb
