// The check of clock_check.h.
#include "harness/clock_check.h"

#include <fmt/format.h>

#include <algorithm>

#include "runtime/cpu_runner.h"

namespace ekb {

OutsideTimes outside_medians(const std::vector<double>& candidate, const std::vector<double>& baseline) {
  auto med = [](const std::vector<double>& v) { return v.empty() ? 0.0 : summarize_times(v).median; };
  return {med(candidate), med(baseline)};
}

namespace {
// The test both checks make; `where` says what the time is ("around each call by the harness's clock").
std::optional<std::string> disagreement(const OutsideTimes& t, double candidate_median_ms, const char* where, const char* baseline) {
  double allowed = t.baseline_ms + std::max(0.02, 0.1 * candidate_median_ms);
  if (t.candidate_ms <= allowed) return std::nullopt;
  return fmt::format("the kernel's worker reported {:.4f} ms per call (median), but {:.4f} ms more passed {} ({}: {:.4f} ms; "
                     "allowed {:.4f} ms): its clock was moved",
                     candidate_median_ms, t.candidate_ms, where, baseline, t.baseline_ms, allowed);
}
}  // namespace

std::optional<std::string> between_calls_disagreement(const OutsideTimes& t, double candidate_median_ms) {
  return disagreement(t, candidate_median_ms, "between its calls back to back (per call)",
                      "the baseline's worker, the same work between calls");
}

std::optional<std::string> clock_disagreement(const OutsideTimes& t, double candidate_median_ms) {
  return disagreement(t, candidate_median_ms, "around each call by the harness's clock", "the baseline's worker");
}

}  // namespace ekb
