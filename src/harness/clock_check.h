// The worker's clock against the harness's. A CPU worker times its kernel by its own clock, so that
// the message's way there and back (tens of microseconds) is not counted; but the kernel runs in that
// process and could move the clock's start. The harness's clock around each request bounds it: the
// time outside the kernel is the same program's in both workers, so the candidate's may not exceed
// the baseline's by more than noise.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace ekb {

struct OutsideTimes {
  double candidate_ms = 0, baseline_ms = 0;  // medians per timed call
};

// The medians of both workers' time outside the kernel per call (ms; each the harness's time of the
// request minus the worker's of the kernel), and a message when the candidate's exceeds the
// baseline's by more than 20 us or a tenth of the candidate's median call time, whichever is more.
OutsideTimes outside_medians(const std::vector<double>& candidate, const std::vector<double>& baseline);
std::optional<std::string> clock_disagreement(const OutsideTimes& t, double candidate_median_ms);
// The same test for calls timed back to back in one request (the warm regime): `t` then holds the
// medians of the worker's own time between its calls (the renewals of the inputs), per call.
std::optional<std::string> between_calls_disagreement(const OutsideTimes& t, double candidate_median_ms);

}  // namespace ekb
