// LEKA's cost model: a predicted time for a lowered program, so that the search measures the most
// promising candidates first (measurements are the budget). Analytic terms read off the loop IR and
// the target — arithmetic (per vector lane, with the ISA's width and the latency of a loop-carried
// accumulation), memory (the bytes the stages must move at the machine's bandwidth, and a penalty
// per cache line for strided access), parallel regions (fork and join per entry) and loop overhead —
// weighted and summed. The weights start from analytic defaults and are refit per task from the
// search's own measurements (ridge regression toward the defaults), so the ranking learns what this
// machine rewards.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "lower/lower.h"
#include "target/target.h"

namespace ekb::agent {

// The terms, in ns at the default weights.
struct CostTerms {
  double compute = 0;   // arithmetic and loads/stores issued, per thread
  double latency = 0;   // loop-carried accumulation chains beyond the arithmetic's throughput
  double memory = 0;    // compulsory traffic at the bandwidth, plus strided cache lines
  double parallel = 0;  // entering parallel regions (fork/join)
  double loops = 0;     // loop iterations (branches, induction variables)
  static constexpr size_t kCount = 5;
  std::array<double, kCount> as_array() const { return {compute, latency, memory, parallel, loops}; }
};

CostTerms cost_terms(const lower::LoweredKernel& k, const Target& t);
// Bytes every program for these parameters must move at least once (inputs read, outputs written).
double compulsory_bytes(const lower::LoweredKernel& k);

class CostModel {
 public:
  explicit CostModel(const Target& t) : target_(t) {}
  // The predicted time (ns) of a lowered program.
  double predict(const lower::LoweredKernel& k) const { return combine(cost_terms(k, target_)); }
  double combine(const CostTerms& c) const;
  // One measured program: its terms and its measured time (ms, or any unit used consistently).
  void observe(const CostTerms& c, double measured);
  // Refits the weights from the observations (ridge toward the analytic weights); a no-op with
  // fewer than 3 observations.
  void refit();
  const std::array<double, CostTerms::kCount>& weights() const { return w_; }

 private:
  Target target_;
  std::array<double, CostTerms::kCount> w_{1, 1, 1, 1, 1};
  std::vector<std::pair<CostTerms, double>> seen_;
};

}  // namespace ekb::agent
