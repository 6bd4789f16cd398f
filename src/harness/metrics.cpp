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

std::vector<FastPoint> fast_curve(const std::vector<SampleOutcome>& samples, const std::vector<double>& ps) {
  // Per task (in name order), per threshold: its samples faster than p, and significantly faster.
  std::map<std::string, std::vector<const SampleOutcome*>> per_task;
  for (const auto& s : samples) per_task[s.task].push_back(&s);
  std::vector<FastPoint> out;
  for (double p : ps) {
    FastPoint f{p, 0, 0};
    for (const auto& [task, ss] : per_task) {
      int fast = 0, significant = 0;
      for (const SampleOutcome* s : ss) {
        fast += s->correct() && s->speedup > p;
        significant += s->correct() && s->speedup_lo > p;
      }
      f.strict += static_cast<double>(fast) / ss.size();
      f.significant += static_cast<double>(significant) / ss.size();
    }
    if (!per_task.empty()) {
      f.strict /= per_task.size();
      f.significant /= per_task.size();
    }
    out.push_back(f);
  }
  return out;
}

Metrics compute_metrics(const std::vector<SampleOutcome>& samples, int k) {
  Metrics m;
  struct Counts {
    int n = 0, compiled = 0, correct = 0;
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
    if (!s.correct()) ++m.failures[outcome_name(s.outcome)];
  }
  m.tasks = static_cast<int>(per_task.size());
  m.samples = static_cast<int>(samples.size());
  std::vector<double> ps;
  for (const auto& [key, p] : fast_thresholds()) ps.push_back(p);
  std::vector<FastPoint> curve = fast_curve(samples, ps);
  for (size_t i = 0; i < ps.size(); ++i) {
    const std::string& key = fast_thresholds()[i].first;
    m.fast[key] = curve[i].strict;
    m.fast_significant[key] = curve[i].significant;
  }
  if (m.tasks == 0) return m;
  for (const auto& [task, c] : per_task) {
    m.compile_at_k += pass_at_k(c.n, c.compiled, k);
    m.correct_at_k += pass_at_k(c.n, c.correct, k);
  }
  m.compile_at_k /= m.tasks;
  m.correct_at_k /= m.tasks;
  m.geomean_speedup = n_correct ? std::exp(log_sum / n_correct) : 0;
  return m;
}

}  // namespace ekb
