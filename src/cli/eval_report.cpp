// The eval/results table: per-attempt lines (a failure's message, and each note, under its row;
// a note's marker beside the status; on GPU profiles the launch floor), then Compile@1, Correct@1,
// Fast@p (strict and significant), geomean, noisy attempts, failures.
#include "cli/eval_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "eval/report.h"

namespace ekb::cli {

void print_report(const RunInfo& run, const std::vector<AttemptRecord>& attempts, const std::vector<std::string>& problems) {
  std::cout << fmt::format("run {}  backend {}  device {}  timed {}  ({})\n", run.id, run.backend, run.device,
                           timing_name(timing_of(run)), run.created);
  if (run.env.is_object() && run.env.contains("board") && run.env["board"].is_object()) {
    const auto& b = run.env["board"];
    std::cout << fmt::format("  on board {} ({} at {}; {}; sandbox: {})\n", b.value("name", ""), b.value("arch", ""), b.value("address", ""),
                             run.env.value("cpu", ""), b.value("sandbox", ""));
  }
  if (emulated_times(run)) std::cout << "  NOTE: " << kEmulatedTimesNote << "\n";
  // GPU runs: each attempt's launch floor (an empty kernel timed as a call is), which every time beside it includes.
  bool floors = std::any_of(attempts.begin(), attempts.end(), [](const AttemptRecord& a) { return a.eval.floor_ms > 0; });
  if (floors)
    std::cout << "  floor: an empty kernel's launch timed as each call is (docs/metrics.md \"GPU candidates\"); every time includes it\n";
  std::cout << fmt::format("  {:<44} {:>6}  {:<15} {:>8} {:>17}  {:>11}  {:>11}  {:>9}{}\n", "task", "sample", "status", "speedup",
                           "95% interval", "candidate", "baseline", "memory", floors ? fmt::format("  {:>11}", "floor") : "");
  for (const auto& a : attempts) {
    const Evaluation& e = a.eval;
    bool timed = e.correct();
    // (Notes are marked beside the status, each kind by its marker, and shown under the row.)
    std::string status = std::string(outcome_name(e.outcome)) + (timed && e.noisy ? " noisy" : "");
    for (const auto& n : e.notes) status += std::string(" +") + note_info(n.kind).marker;
    std::cout << fmt::format("  {:<44} {:>6}  {:<15} {:>8} {:>17}  {:>11}  {:>11}  {:>9}{}\n", a.task, a.sample, status,
                             timed ? fmt::format("{:.2f}x", e.speedup) : "-",
                             timed ? fmt::format("[{:.2f}, {:.2f}]", e.speedup_lo, e.speedup_hi) : "-",
                             timed ? fmt::format("{:.4f} ms", e.candidate.median) : "-",
                             timed ? fmt::format("{:.4f} ms", e.baseline.median) : "-",
                             timed || e.candidate_memory ? fmt::format("{:.1f} MiB", e.candidate_memory / 1048576.0) : "-",
                             !floors ? "" : e.floor_ms > 0 ? fmt::format("  {:>11}", fmt::format("{:.4f} ms", e.floor_ms)) : fmt::format("  {:>11}", "-"));
    if (!timed && !e.message.empty()) std::cout << "      " << e.message.substr(0, 300) << "\n";
    for (const auto& n : e.notes) std::cout << "      note (+" << note_info(n.kind).marker << "): " << n.text << "\n";
  }
  for (const auto& p : problems) std::cout << "  problem: " << p << "\n";
  size_t unsandboxed = 0;
  for (const auto& a : attempts) unsandboxed += a.eval.where.remote() && !a.eval.where.sandboxed;
  if (unsandboxed)
    std::cout << fmt::format("  {} attempt(s) ran WITHOUT the board's sandbox (an emulated board started with --unsandboxed-emulation)\n",
                             unsandboxed);
  print_metrics(attempts);
  if (emulated_times(run)) std::cout << "NOTE: " << kEmulatedTimesNote << "\n";
}

void print_metrics(const std::vector<AttemptRecord>& attempts) {
  Metrics m = compute_metrics(outcomes_of(attempts));
  std::cout << fmt::format("\n{} tasks, {} samples: Compile@1 {:.1f}%  Correct@1 {:.1f}%  geomean speedup {:.3f}x (correct samples)\n",
                           m.tasks, m.samples, 100 * m.compile_at_k, 100 * m.correct_at_k, m.geomean_speedup);
  std::cout << "Fast@p:";
  for (const auto& [key, v] : m.fast) std::cout << fmt::format("  {} {:.1f}%", key, 100 * v);
  std::cout << "\nFast@p, significant (interval above p):";
  for (const auto& [key, v] : m.fast_significant) std::cout << fmt::format("  {} {:.1f}%", key, 100 * v);
  std::cout << "\n";
  if (m.noisy) std::cout << fmt::format("noisy: {} correct sample(s) whose speedup interval stayed wider than +-5%\n", m.noisy);
  if (!m.failures.empty()) {
    std::cout << "failures:";
    for (const auto& [kind, n] : m.failures) std::cout << fmt::format("  {} {}", kind, n);
    std::cout << "\n";
  }
}

}  // namespace ekb::cli
