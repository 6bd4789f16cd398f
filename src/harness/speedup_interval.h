// The confidence interval of a speedup measured over interleaved rounds: the baseline's and the
// candidate's time of round i were measured side by side, so rounds are resampled in pairs (a
// paired bootstrap keeps what the machine did to both in that moment). The speedup is the ratio of
// the medians; its interval the percentiles of that ratio over resamples. Rounds are resampled in
// blocks of consecutive rounds (sqrt(n) of n): a shared machine goes through spells — seconds
// that slow one side more than the other (a two-thread kernel more than a one-thread one, as when
// another tenant holds a core) — and rounds drawn one by one would take a spell's rounds for
// independent evidence (docs/metrics.md). Deterministic: the same times give the same interval.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ekb {

struct SpeedupInterval {
  double speedup = 0;     // median(baseline) / median(candidate)
  double lo = 0, hi = 0;  // the interval's bounds
  // Half the interval's width relative to the speedup (0.05: +-5%).
  double relative_half_width() const { return speedup > 0 ? (hi - lo) / (2 * speedup) : 0; }
};

// The rounds per resampled block for `rounds` rounds: round(sqrt(rounds)), at least 1.
size_t bootstrap_block_rounds(size_t rounds);

// `baseline_ms[i]` and `candidate_ms[i]` are round i's times (equal lengths, at least 2).
// `block_rounds` 0: bootstrap_block_rounds(n); 1: rounds drawn one by one.
SpeedupInterval bootstrap_speedup(const std::vector<double>& baseline_ms, const std::vector<double>& candidate_ms,
                                  double confidence = 0.95, int resamples = 2000, uint64_t seed = 0x5eed,
                                  size_t block_rounds = 0);

// The interval widened by what a pair of worker processes does to a time that its own rounds cannot
// show: where its buffers, stack and heap lie (cache sets, pages) is fixed for the pair's life, so
// identical programs timed in two workers differ by a few percent in a way every round repeats
// (the soundness run of commit d029880: of 32 identical programs, 13 "significantly" faster and 7
// slower by the rounds' interval alone; docs/metrics.md). `spread` is the standard deviation of the log speedup of identical
// programs between pairs of workers; it joins the rounds' half-widths on the log scale in
// quadrature, z = 1.96 for 95%. spread 0: the interval unchanged.
SpeedupInterval across_processes(const SpeedupInterval& rounds, double spread, double z = 1.96);

}  // namespace ekb
