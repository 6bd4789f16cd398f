// Whether a correct attempt's time is impossible, and what else it suggests. A verdict that scores
// a kernel zero must be a proof: `invalid` only when the time is below half of what reading the
// bytes every correct kernel must read (suite/must_read.h) takes at the fastest rate this machine
// reads memory (peak_rates.h's read_gbps, an upper bound kept as the best of every measurement).
// Bytes count only where they must come from memory: all of them in the cold regimes (the inputs
// are flushed from every cache before each call), what exceeds the caches when timed warm.
// Everything else that looks too fast is a note (attempt_notes.h), never a failure: faster than the
// task's flop count at the arithmetic peak (a better algorithm, skipped zeros, narrower arithmetic),
// faster than its stated bytes at the copy bandwidth, or faster than the read bandwidth but within
// the margin. GPU profiles and emulated boards: no verdict and no notes (no peaks measured there).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "harness/attempt_notes.h"
#include "harness/evaluate.h"
#include "ir/program.h"

namespace ekb {

// `invalid` only below this fraction of the must-read bytes' time at the read bandwidth: room for a
// kernel that reads faster than ekb's own measuring kernel (up to twice), and for the read bandwidth
// of a board, which is its copy bandwidth.
inline constexpr double kProofMargin = 0.5;

struct TimeVerdict {
  std::optional<std::string> impossible;  // the proof, when the time is impossible (the attempt is `invalid`)
  std::vector<AttemptNote> notes;
  double must_read_gbps = 0;  // the rate its must-read bytes came from memory at (0: none counted)
};

// The verdict on a correct attempt of `p` timed at `median_ms` per call under `o`.
TimeVerdict judge_time(const Program& p, double median_ms, const EvalOptions& o);

}  // namespace ekb
