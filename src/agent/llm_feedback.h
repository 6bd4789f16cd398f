// The harness's feedback on a measured candidate, as a model reads it: the outcome and its hint
// (the outcome table), compile errors with their fix-it lines, the first failing output's worst
// element and its error against the tolerance, the time against the baseline with the speedup's
// interval, the share of the rate the task's figures take at the peaks (a guide), the harness's
// notes (attempt_notes.h), and the memory against the budget.
#pragma once
#include <string>

#include "harness/device_profiles.h"
#include "harness/evaluate.h"
#include "ir/program.h"

namespace ekb::agent {

// The roofline bound the feedback sets times against (0 when the peaks are unknown, as on GPUs).
struct Roofline {
  double peak_gflops = 0, peak_gbps = 0;
};

// `e` for `task` on `dev`, a few lines of plain text.
std::string feedback_text(const Evaluation& e, const Program& task, const DeviceProfile& dev, const Roofline& roof);

// One line for the list of earlier attempts: the outcome, or the speedup with its interval.
std::string attempt_summary(const Evaluation& e);

}  // namespace ekb::agent
