// Turning stored attempts into what `ekb eval` and `ekb results` print: a table per attempt and the
// metrics (harness/metrics.h), or one JSON object.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "harness/metrics.h"
#include "harness/results_store.h"

namespace ekb::cli {

std::vector<SampleOutcome> outcomes_of(const std::vector<AttemptRecord>& attempts);
nlohmann::json report_json(const RunInfo& run, const std::vector<AttemptRecord>& attempts,
                           const std::vector<std::string>& problems);
void print_report(const RunInfo& run, const std::vector<AttemptRecord>& attempts, const std::vector<std::string>& problems);

}  // namespace ekb::cli
