// Metrics over sample outcomes; see metrics.h and docs/metrics.md.
#include "harness/metrics.h"

#include <cmath>

namespace ekb {

const std::vector<std::pair<std::string, double>>& fast_thresholds() {
  static const std::vector<std::pair<std::string, double>> v = {{"0.0", 0.0}, {"0.5", 0.5}, {"0.8", 0.8},
                                                                {"1.0", 1.0}, {"1.5", 1.5}, {"2.0", 2.0}};
  return v;
}

double pass_at_k(int n, int c, int k) {
  if (n <= 0 || k <= 0) return 0;
  if (k > n) k = n;
  if (n - c < k) return 1.0;
  // 1 - prod_{i = n-c+1}^{n} (1 - k / i), the numerically stable form.
  double fail = 1.0;
  for (int i = n - c + 1; i <= n; ++i) fail *= 1.0 - static_cast<double>(k) / i;
  return 1.0 - fail;
}

Metrics compute_metrics(const std::vector<SampleOutcome>& samples, int k) {
  Metrics m;
  struct Counts {
    int n = 0, compiled = 0, correct = 0;
    std::map<std::string, int> fast, significant;
  };
  std::map<std::string, Counts> per_task;
  double log_sum = 0;
  int n_correct = 0;
  for (const auto& s : samples) {
    Counts& c = per_task[s.task];
    ++c.n;
    c.compiled += s.compiled();
    c.correct += s.correct();
    if (s.correct() && s.speedup > 0) {
      log_sum += std::log(s.speedup);
      ++n_correct;
    }
    m.noisy += s.correct() && s.noisy;
    for (const auto& [key, p] : fast_thresholds()) {
      c.fast[key] += s.correct() && s.speedup > p;
      c.significant[key] += s.correct() && s.speedup_lo > p;
    }
    if (!s.correct()) ++m.failures[outcome_name(s.outcome)];
  }
  m.tasks = static_cast<int>(per_task.size());
  m.samples = static_cast<int>(samples.size());
  for (const auto& [key, p] : fast_thresholds()) m.fast[key] = m.fast_significant[key] = 0;
  if (m.tasks == 0) return m;
  for (const auto& [task, c] : per_task) {
    m.compile_at_k += pass_at_k(c.n, c.compiled, k);
    m.correct_at_k += pass_at_k(c.n, c.correct, k);
    for (const auto& [key, p] : fast_thresholds()) {
      m.fast[key] += static_cast<double>(c.fast.at(key)) / c.n;
      m.fast_significant[key] += static_cast<double>(c.significant.at(key)) / c.n;
    }
  }
  m.compile_at_k /= m.tasks;
  m.correct_at_k /= m.tasks;
  for (auto& [key, v] : m.fast) v /= m.tasks;
  for (auto& [key, v] : m.fast_significant) v /= m.tasks;
  m.geomean_speedup = n_correct ? std::exp(log_sum / n_correct) : 0;
  return m;
}

}  // namespace ekb
