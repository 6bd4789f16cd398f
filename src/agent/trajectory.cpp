// Trajectories (trajectory.h).
#include "agent/trajectory.h"

#include <fmt/format.h>

#include <map>

#include "agent/search.h"

namespace ekb::agent {

Trajectory trajectory_of(std::vector<StepRecord> steps) {
  Trajectory t;
  t.steps = std::move(steps);
  double prev = 0;
  std::map<std::string, std::pair<int, double>> layers;
  bool kept_by_confirmation = false;
  for (const auto& s : t.steps) kept_by_confirmation = kept_by_confirmation || (is_confirmation(s.action) && s.accepted);
  for (const auto& s : t.steps) {
    // The confirmations re-measure the best and the runner-up: their change is the measurement's, no
    // layer's gain; the one kept is on the path; when neither held, the path ends back at the start.
    bool confirmation = is_confirmation(s.action);
    auto& l = layers[s.step == 0 ? "start" : confirmation ? "confirm" : s.layer];
    ++l.first;
    if (l.second == 0) l.second = 1;
    if (confirmation && !s.accepted && !kept_by_confirmation && &s == &t.steps.back() && prev > 0) {
      const StepRecord& start = t.steps.front();
      t.path.push_back({&start, start.eval.speedup / prev});
      prev = start.eval.speedup;
      continue;
    }
    if (!s.accepted) continue;
    double gain = prev > 0 && s.eval.speedup > 0 ? s.eval.speedup / prev : s.eval.speedup;
    if (s.step != 0 && !confirmation) l.second *= gain;
    t.path.push_back({&s, gain});
    prev = s.eval.speedup;
  }
  for (const char* name : {"start", "L0", "L1", "L2"})
    if (layers.count(name)) t.by_layer.push_back({name, layers[name].first, layers[name].second});
  return t;
}

namespace {

// The layer column: "-" for the start and the confirmation (no layer's revision).
std::string layer_column(const StepRecord& s) { return s.step == 0 || is_confirmation(s.action) ? "-" : s.layer; }

std::string result(const Evaluation& e) {
  if (!e.correct()) return outcome_name(e.outcome);
  return fmt::format("{:.3f}x [{:.3f}, {:.3f}]{}{}", e.speedup, e.speedup_lo, e.speedup_hi, e.noisy ? " noisy" : "",
                     e.cut_short ? " cut short" : "");
}

}  // namespace

std::string trajectory_text(const Trajectory& t, bool programs) {
  std::string out = fmt::format("{} steps measured\n\n  {:>4}  {:<5} {:<56} {:>8}  {:>6}  {:<26} {}\n", t.steps.size(), "step",
                                "layer", "action", "pred ms", "took", "result (speedup, 95% interval)", "");
  for (const auto& s : t.steps) {
    out += fmt::format("  {:>4}  {:<5} {:<56} {:>8.4f}  {:>5.1f}s  {:<26} {}\n", s.step, layer_column(s), s.action.substr(0, 56),
                       s.predicted_ms, s.eval.seconds, result(s.eval), s.accepted ? "accepted" : "");
    if (!s.eval.correct() && !s.eval.message.empty()) out += "        " + s.eval.message.substr(0, 200) + "\n";
  }
  out += "\noptimization path (each accepted decision and what it gained over the program before it):\n";
  for (const auto& p : t.path) {
    out += fmt::format("  step {:>3}  {:<5} {:<56} {}  x{:.3f}\n", p.step->step, layer_column(*p.step),
                       p.step->action.substr(0, 56), result(p.step->eval), p.gain);
    if (programs) out += p.step->program + "\n";
  }
  out += "\nby layer:";
  for (const auto& [layer, n, gain] : t.by_layer) out += fmt::format("  {} {} steps x{:.3f}", layer, n, gain);
  out += "\n";
  return out;
}

nlohmann::json trajectory_json(const Trajectory& t) {
  nlohmann::json j;
  for (const auto& s : t.steps)
    j["steps"].push_back({{"step", s.step},
                          {"layer", s.layer},
                          {"action", s.action},
                          {"program", s.program},
                          {"program_hash", s.program_hash},
                          {"predicted_ms", s.predicted_ms},
                          {"status", outcome_name(s.eval.outcome)},
                          {"message", s.eval.message},
                          {"candidate_ms", s.eval.candidate.median},
                          {"baseline_ms", s.eval.baseline.median},
                          {"speedup", s.eval.speedup},
                          {"speedup_interval", {s.eval.speedup_lo, s.eval.speedup_hi}},
                          {"noisy", s.eval.noisy},
                          {"cut_short", s.eval.cut_short},
                          {"seconds", s.eval.seconds},
                          {"accepted", s.accepted}});
  for (const auto& p : t.path) j["path"].push_back({{"step", p.step->step}, {"layer", p.step->layer}, {"action", p.step->action}, {"gain", p.gain}});
  for (const auto& [layer, n, gain] : t.by_layer) j["by_layer"].push_back({{"layer", layer}, {"steps", n}, {"gain", gain}});
  return j;
}

}  // namespace ekb::agent
