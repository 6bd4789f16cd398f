// A run: every submission of a set evaluated on one device profile and stored as it ends, so that a
// run killed at any moment continues where it stopped when started again with the same key (nothing
// measured twice, nothing lost). What `ekb eval DIR` and the main job's re-scoring do.
#pragma once
#include <nlohmann/json.hpp>

#include <string>

#include "harness/device_profiles.h"
#include "harness/peak_rates.h"
#include "harness/results_store.h"
#include "harness/submissions.h"
#include "suite/suite.h"

namespace ekb {

// What a run on `dev` needs first: a GPU profile's device must be here (asked of a GPU worker;
// throws naming why not); a CPU profile's peak rates (measured once per machine and stored).
// `environment` receives the snapshot stored with the run (CPU model, compiler, device, commit).
PeakRates prepare_device(ResultsStore& store, const DeviceProfile& dev, nlohmann::json* environment);

// `dev` with the cost of a parallel region in `timing` and one thread's rates from `peaks` (CPU; a
// GPU profile as it is): what the baseline's default schedule is built for in a run.
DeviceProfile with_parallel_cost(DeviceProfile dev, const PeakRates& peaks, Timing timing);

// Evaluates every submission not yet stored under `key` in `store`, in order, with progress on
// stderr, timed in `timing` (stored with the run, and part of its key); returns the run (finished).
// `quick`: a verification (the suite's default schedules on a device): every check as always, the
// timing cut to a few calls per side (quick_timing); the run's key and environment say so.
RunInfo evaluate_run(const Suite& suite, const SubmissionSet& subs, const nlohmann::json& key, const DeviceProfile& dev,
                     ResultsStore& store, Timing timing = Timing::cold, bool quick = false);

// The commit ekb was built from ("unknown" outside a git checkout).
const char* ekb_commit();

}  // namespace ekb
