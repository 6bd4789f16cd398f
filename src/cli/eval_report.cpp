// The eval/results report: per-attempt lines, then Compile@1, Correct@1, Fast@p, geomean, failures.
#include "cli/eval_report.h"

#include <fmt/format.h>

#include <iostream>

namespace ekb::cli {

std::vector<SampleOutcome> outcomes_of(const std::vector<AttemptRecord>& attempts) {
  std::vector<SampleOutcome> out;
  for (const auto& a : attempts) {
    SampleOutcome s;
    s.task = a.task;
    s.status = a.eval.status;
    s.compiled = a.eval.status != "compile" && a.eval.status != "mismatch";
    s.correct = a.eval.status == "ok";
    s.speedup = a.eval.speedup;
    out.push_back(s);
  }
  return out;
}

nlohmann::json report_json(const RunInfo& run, const std::vector<AttemptRecord>& attempts,
                           const std::vector<std::string>& problems) {
  Metrics m = compute_metrics(outcomes_of(attempts));
  nlohmann::json j;
  j["run"] = run.id;
  j["device"] = run.device;
  j["backend"] = run.backend;
  j["tasks"] = m.tasks;
  j["samples"] = m.samples;
  j["compile_at_1"] = m.compile_at_k;
  j["correct_at_1"] = m.correct_at_k;
  j["fast"] = m.fast;
  j["geomean_speedup"] = m.geomean_speedup;
  j["failures"] = m.failures;
  j["problems"] = problems;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& a : attempts)
    list.push_back({{"task", a.task},
                    {"sample", a.sample},
                    {"candidate", a.candidate_path},
                    {"status", a.eval.status},
                    {"message", a.eval.message},
                    {"speedup", a.eval.speedup},
                    {"candidate_ms", a.eval.candidate.median},
                    {"baseline_ms", a.eval.baseline.median},
                    {"compile_ms", a.eval.compile_ms},
                    {"memory_bytes", a.eval.candidate_memory},
                    {"peak_rss_bytes", a.eval.candidate_peak_rss}});
  j["attempts"] = list;
  j["environment"] = run.env;
  return j;
}

void print_report(const RunInfo& run, const std::vector<AttemptRecord>& attempts, const std::vector<std::string>& problems) {
  std::cout << fmt::format("run {}  backend {}  device {}  ({})\n", run.id, run.backend, run.device, run.created);
  std::cout << fmt::format("  {:<44} {:>6}  {:<15} {:>8}  {:>11}  {:>11}  {:>9}\n", "task", "sample", "status", "speedup",
                           "candidate", "baseline", "memory");
  for (const auto& a : attempts) {
    bool timed = a.eval.status == "ok";
    std::cout << fmt::format("  {:<44} {:>6}  {:<15} {:>8}  {:>11}  {:>11}  {:>9}\n", a.task, a.sample, a.eval.status,
                             timed ? fmt::format("{:.2f}x", a.eval.speedup) : "-",
                             timed ? fmt::format("{:.4f} ms", a.eval.candidate.median) : "-",
                             timed ? fmt::format("{:.4f} ms", a.eval.baseline.median) : "-",
                             timed || a.eval.candidate_memory ? fmt::format("{:.1f} MiB", a.eval.candidate_memory / 1048576.0) : "-");
    if (!timed && !a.eval.message.empty()) std::cout << "      " << a.eval.message.substr(0, 300) << "\n";
  }
  for (const auto& p : problems) std::cout << "  problem: " << p << "\n";
  Metrics m = compute_metrics(outcomes_of(attempts));
  std::cout << fmt::format("\n{} tasks, {} samples: Compile@1 {:.1f}%  Correct@1 {:.1f}%  geomean speedup {:.3f}x (correct samples)\n",
                           m.tasks, m.samples, 100 * m.compile_at_k, 100 * m.correct_at_k, m.geomean_speedup);
  std::cout << "Fast@p:";
  for (const auto& [key, v] : m.fast) std::cout << fmt::format("  {} {:.1f}%", key, 100 * v);
  std::cout << "\n";
  if (!m.failures.empty()) {
    std::cout << "failures:";
    for (const auto& [kind, n] : m.failures) std::cout << fmt::format("  {} {}", kind, n);
    std::cout << "\n";
  }
}

}  // namespace ekb::cli
