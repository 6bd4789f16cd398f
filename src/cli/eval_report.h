// What `ekb eval`, `ekb results` and the main job print: a table per attempt (status, speedup with
// its interval, times, memory) and the metrics (harness/metrics.h). The JSON form is the library's
// (eval/report.h).
#pragma once
#include <string>
#include <vector>

#include "harness/results_store.h"

namespace ekb::cli {

void print_report(const RunInfo& run, const std::vector<AttemptRecord>& attempts, const std::vector<std::string>& problems);
// The metrics lines alone (Compile@1, Correct@1, geomean, Fast@p strict and significant, failures).
void print_metrics(const std::vector<AttemptRecord>& attempts);

}  // namespace ekb::cli
