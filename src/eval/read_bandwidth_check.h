// Keeps a run's read bandwidth an upper bound. The proof that a time is impossible divides bytes by
// the stored read bandwidth (harness/time_verdict.h); a correct kernel that read its must-read bytes
// faster than that rate (its beyond_read_bandwidth note) shows the stored rate may be low. Then the
// rate is measured again with ekb's own kernels, once per run and only on a quiet machine
// (peak_rates.h's refresh_read_bandwidth), the larger of old and new is kept, later attempts of the
// run use it, and the note says what came of it. The kernel's own rate is never taken as the
// machine's: a clock cheat would raise the bound for itself.
#pragma once
#include <string>
#include <utility>

#include "harness/device_profiles.h"
#include "harness/evaluate.h"
#include "harness/peak_rates.h"
#include "harness/results_store.h"

namespace ekb {

class ReadBandwidthCheck {
 public:
  // `probe`: how the rate is measured (peak_rates.h; default: ekb's own kernels).
  ReadBandwidthCheck(ResultsStore& store, const DeviceProfile& dev, ReadProbe probe = {}) : store_(store), dev_(dev), probe_(std::move(probe)) {}
  // `e`, an attempt just made: when it is correct with a beyond_read_bandwidth note, measures the
  // rate again (the first time in the run), completes the note, and raises `o.read_gbps` (and the
  // others in `more`) to the stored rate.
  void after(Evaluation& e, EvalOptions& o, EvalOptions* more = nullptr);

 private:
  ResultsStore& store_;
  const DeviceProfile& dev_;
  ReadProbe probe_;
  bool measured_ = false;
  std::string outcome_;  // what the measurement of this run said
};

}  // namespace ekb
