// The confidence interval of a speedup measured over interleaved rounds: the baseline's and the
// candidate's time of round i were measured side by side, so rounds are resampled in pairs (a
// paired bootstrap keeps what the machine did to both in that moment). The speedup is the ratio of
// the medians; its interval the percentiles of that ratio over resamples. Deterministic: the same
// times give the same interval.
#pragma once
#include <cstdint>
#include <vector>

namespace ekb {

struct SpeedupInterval {
  double speedup = 0;     // median(baseline) / median(candidate)
  double lo = 0, hi = 0;  // the interval's bounds
  // Half the interval's width relative to the speedup (0.05: +-5%).
  double relative_half_width() const { return speedup > 0 ? (hi - lo) / (2 * speedup) : 0; }
};

// `baseline_ms[i]` and `candidate_ms[i]` are round i's times (equal lengths, at least 2).
SpeedupInterval bootstrap_speedup(const std::vector<double>& baseline_ms, const std::vector<double>& candidate_ms,
                                  double confidence = 0.95, int resamples = 2000, uint64_t seed = 0x5eed);

}  // namespace ekb
