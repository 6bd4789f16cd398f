// The leaderboard: stored runs ranked by one stated rule (kRankingRule), with what tells them apart
// (mode, model, backend, device, hardware, timing) and their metrics. `ekb leaderboard` prints it,
// `--json` for machines, and the HTML report shows the same ranking.
#pragma once
#include <nlohmann/json.hpp>

#include <vector>

#include "report/run_summary.h"

namespace ekb::report {

// The rule, as --help, the docs and the report state it.
extern const char* const kRankingRule;

struct RankedRun {
  int rank = 0;  // 1-based; runs equal on every key share a rank
  const RunSummary* run = nullptr;
};

// `runs` ranked: full-timing runs before quick ones (--quick times are a verification, not a
// measurement), then Fast@1.0 significant, then the geomean speedup, then Correct@1 (all higher
// first), then the older run first.
std::vector<RankedRun> rank_runs(const std::vector<RunSummary>& runs);

nlohmann::json ranked_json(const RankedRun& r);
nlohmann::json leaderboard_json(const std::vector<RankedRun>& ranked);

// A line when the ranked runs do not cover the same tasks (their metrics are then over different
// tasks), or "".
std::string coverage_note(const std::vector<RankedRun>& ranked);

}  // namespace ekb::report
