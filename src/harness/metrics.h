// The numbers ekb reports, computed in one place (docs/metrics.md defines them): Compile@k and
// Correct@k (the unbiased pass@k estimator over n samples per task), Fast@p for each threshold p
// (the share of tasks whose samples are correct with speedup strictly above p; failures count 0),
// its significant variant (correct, and the speedup's 95% interval lies above p), the
// geometric-mean speedup over correct samples, the noisy attempts, and the failures by kind.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "harness/outcome.h"

namespace ekb {

struct SampleOutcome {
  std::string task;
  Outcome outcome = Outcome::ok;
  double speedup = 0;     // baseline time / candidate time, when correct
  double speedup_lo = 0;  // the lower bound of its 95% interval
  bool noisy = false;     // the interval stayed wider than asked
  bool compiled() const { return outcome_info(outcome).compiled; }
  bool correct() const { return outcome == Outcome::ok; }
};

struct Metrics {
  int tasks = 0, samples = 0;
  double compile_at_k = 0, correct_at_k = 0;  // for the k asked for
  std::map<std::string, double> fast;         // "0.0", "0.5", "0.8", "1.0", "1.5", "2.0" -> share of tasks (strict: speedup > p)
  std::map<std::string, double> fast_significant;  // the same thresholds: interval's lower bound > p
  double geomean_speedup = 0;                 // over correct samples (0 when none)
  int noisy = 0;                              // correct samples whose interval stayed wide
  std::map<std::string, int> failures;        // outcome name -> samples
};

// The thresholds of Fast@p, as printed keys ("1.0").
const std::vector<std::pair<std::string, double>>& fast_thresholds();

// pass@k = 1 - C(n - c, k) / C(n, k): the chance that at least one of k samples drawn without
// replacement from n, of which c pass, passes. k <= n.
double pass_at_k(int n, int c, int k);

Metrics compute_metrics(const std::vector<SampleOutcome>& samples, int k = 1);

// Fast@p and its significant variant at any thresholds `ps` (a curve over p), by the one definition
// Metrics::fast and Metrics::fast_significant have: compute_metrics fills those from it.
struct FastPoint {
  double p = 0, strict = 0, significant = 0;
};
std::vector<FastPoint> fast_curve(const std::vector<SampleOutcome>& samples, const std::vector<double>& ps);

}  // namespace ekb
