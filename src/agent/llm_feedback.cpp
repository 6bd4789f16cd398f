// Feedback for a model (llm_feedback.h).
#include "agent/llm_feedback.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "suite/figures.h"

namespace ekb::agent {

namespace {

constexpr size_t kMaxMessage = 3000;  // a compile error's diagnostics, cut beyond this (the first errors are the useful ones)

std::string clipped(const std::string& s) {
  if (s.size() <= kMaxMessage) return s;
  return s.substr(0, kMaxMessage) + fmt::format("\n[... {} more characters]", s.size() - kMaxMessage);
}

}  // namespace

std::string attempt_summary(const Evaluation& e) {
  if (!e.correct()) return outcome_name(e.outcome);
  return fmt::format("correct, {:.3f}x the baseline [{:.3f}, {:.3f}]{}", e.speedup, e.speedup_lo, e.speedup_hi, e.noisy ? " (noisy)" : "");
}

std::string feedback_text(const Evaluation& e, const Program& task, const DeviceProfile& dev, const Roofline& roof) {
  const OutcomeInfo& info = outcome_info(e.outcome);
  std::string s = fmt::format("Outcome: {}. {}.\n", info.name, info.hint);
  if (!e.message.empty()) s += "Details:\n" + clipped(e.message) + "\n";
  for (const auto& c : e.comparisons) {
    if (c.pass) continue;
    s += fmt::format("Output `{}` is wrong: its largest normalised error is {:.3g} against a tolerance of {:.3g}", c.name,
                     c.max_rel_error, c.tolerance);
    if (c.worst_index >= 0) s += fmt::format(" (element {} in row-major order: got {:.6g}, want {:.6g})", c.worst_index, c.worst_got, c.worst_want);
    if (c.nonfinite) s += "; it holds NaN or infinity where the reference is finite";
    s += ".\n";
    break;  // the first failing output is enough to act on
  }
  if (e.candidate.median > 0 && e.baseline.median > 0) {
    s += fmt::format("Time: {:.4f} ms per call against the baseline's {:.4f} ms: speedup {:.3f}x, 95% interval [{:.3f}, {:.3f}]{}.\n",
                     e.candidate.median, e.baseline.median, e.speedup, e.speedup_lo, e.speedup_hi, e.noisy ? " (noisy)" : "");
    if (roof.peak_gflops > 0 && roof.peak_gbps > 0) {
      Figures f = compute_figures(task);
      double bound_ms = std::max(f.flops / (roof.peak_gflops * 1e6), static_cast<double>(f.bytes) / (roof.peak_gbps * 1e6));
      s += fmt::format("Roofline: the task's stated {:.3g} flops and {} bytes take {:.4f} ms at this device's measured peaks ({:.1f} "
                       "GFLOP/s, {:.1f} GB/s); this kernel runs at {:.1f}% of that rate (a guide, not a limit: fewer flops or bytes than "
                       "stated are allowed).\n",
                       f.flops, f.bytes, bound_ms, roof.peak_gflops, roof.peak_gbps, 100.0 * bound_ms / e.candidate.median);
    }
  }
  for (const auto& n : e.notes) s += fmt::format("Note ({}): {}.\n", note_info(n.kind).name, n.text);
  if (e.correct() || e.candidate_memory > 0)
    s += fmt::format("Memory: the kernel's own allocations peaked at {:.2f} MiB of the {} MiB budget.\n",
                     static_cast<double>(e.candidate_memory) / (1 << 20), dev.memory_budget >> 20);
  return s;
}

}  // namespace ekb::agent
