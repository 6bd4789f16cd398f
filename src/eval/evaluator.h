// Evaluation as a library: one call from (task, submission, device profile, options) to a typed
// attempt. The CLI's `ekb eval` and `ekb run`, the agent, and anything else that scores candidates
// go through here, so every candidate is built, checked and timed the same way.
#pragma once
#include <optional>
#include <string>

#include "eval/candidate.h"
#include "harness/device_profiles.h"
#include "harness/evaluate.h"
#include "harness/peak_rates.h"
#include "harness/results_store.h"

namespace ekb {

// The options a device profile implies: its threads, memory budget, GPU device, and the peak rates
// (none on GPU profiles): the read bandwidth that proves a time impossible (a board's copy bandwidth
// where it has none), and the others that notes compare times with (harness/time_verdict.h); calls
// timed in `timing` (timing_regime.h).
// `environment` (prepare_device's): a board it found emulated is treated as one (its times are not
// meaningful) also where its profile did not say so.
EvalOptions eval_options(const DeviceProfile& dev, const PeakRates& peaks, Timing timing = Timing::cold,
                         const nlohmann::json* environment = nullptr);
// Timing cut to a few calls per side (at least 5, at most 20, half a second), without the extra
// rounds a wide interval asks for: enough to see that a kernel runs and roughly how fast, not a
// measurement (`ekb eval --quick`, the suite's verification).
void quick_timing(EvalOptions& o);

// A submission built for a device profile's target: the translation units both sides will compile,
// or why the candidate cannot run, and their hash (AttemptRecord::build_hash).
struct BuiltSubmission {
  std::optional<CandidateSource> candidate;  // nullopt: rejected, or a generated sample without code
  Outcome rejected = Outcome::ok;            // then: why
  std::string message;
  std::string baseline;    // the baseline's source (the task's default schedule for the target)
  std::string build_hash;  // XXH3 of the candidate's source (or its rejection) and the baseline's
};
// Never throws for anything the candidate does; a failure of ekb itself is `internal`.
BuiltSubmission build_submission(const Task& task, const Submission& s, const DeviceProfile& dev);

// Evaluates a built submission against the task's baseline. Never throws for anything the candidate
// does: a rejected or failing candidate is an attempt with its outcome; `internal` when ekb itself failed.
AttemptRecord evaluate_built(const Task& task, const Submission& s, const BuiltSubmission& b, const EvalOptions& o);
// Both: builds `s` for the profile's target and evaluates it.
AttemptRecord evaluate_submission(const Task& task, const Submission& s, const DeviceProfile& dev, const EvalOptions& o);

// The same for a source already built (the agent builds its programs itself): `source` against the
// task's baseline for the profile's target.
Evaluation evaluate_source(const Task& task, const CandidateSource& source, const DeviceProfile& dev, const EvalOptions& o);

}  // namespace ekb
