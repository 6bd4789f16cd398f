// Report data (report.h).
#include "eval/report.h"

namespace ekb {

std::vector<SampleOutcome> outcomes_of(const std::vector<AttemptRecord>& attempts) {
  std::vector<SampleOutcome> out;
  for (const auto& a : attempts) out.push_back({a.task, a.eval.outcome, a.eval.speedup, a.eval.speedup_lo, a.eval.noisy});
  return out;
}

nlohmann::json attempt_json(const AttemptRecord& a) {
  const Evaluation& e = a.eval;
  nlohmann::json j = {{"task", a.task},
          {"sample", a.sample},
          {"candidate", a.candidate_path},
          {"suite_version", a.suite_version},
          {"task_hash", a.task_hash},
          {"build_hash", a.build_hash},
          {"status", outcome_name(e.outcome)},
          {"compiled", outcome_info(e.outcome).compiled},
          {"candidate_fault", outcome_info(e.outcome).candidate_fault},
          {"message", e.message},
          {"speedup", e.speedup},
          {"speedup_interval", {e.speedup_lo, e.speedup_hi}},
          {"noisy", e.noisy},
          {"candidate_ms", e.candidate.median},
          {"baseline_ms", e.baseline.median},
          {"outside_ms", {{"candidate", e.candidate_outside_ms}, {"baseline", e.baseline_outside_ms}}},
          {"floor_ms", e.floor_ms},
          {"rounds", e.candidate.ms.size()},
          {"compile_ms", e.compile_ms},
          {"compile_cached", e.compile_cached},
          {"memory_bytes", e.candidate_memory},
          {"peak_rss_bytes", e.candidate_peak_rss},
          {"notes", notes_json(e.notes)}};
  if (e.where.remote())
    j["board"] = {{"name", e.where.board}, {"arch", e.where.arch}, {"host", e.where.host}, {"worker_pid", e.where.worker_pid},
                  {"emulated", e.where.emulated}, {"sandboxed", e.where.sandboxed}, {"sandbox", e.where.sandbox}};
  return j;
}

nlohmann::json metrics_json(const Metrics& m) {
  return {{"tasks", m.tasks},
          {"samples", m.samples},
          {"compile_at_1", m.compile_at_k},
          {"correct_at_1", m.correct_at_k},
          {"fast", m.fast},
          {"fast_significant", m.fast_significant},
          {"geomean_speedup", m.geomean_speedup},
          {"noisy", m.noisy},
          {"failures", m.failures}};
}

Timing timing_of(const RunInfo& run) { return timing_of_environment(run.env); }

bool emulated_times(const RunInfo& run) { return run.env.is_object() && run.env.value("emulated", false); }

nlohmann::json report_json(const RunInfo& run, const std::vector<AttemptRecord>& attempts, const std::vector<std::string>& problems) {
  nlohmann::json j = metrics_json(compute_metrics(outcomes_of(attempts)));
  j["run"] = run.id;
  j["device"] = run.device;
  j["backend"] = run.backend;
  j["timing"] = timing_name(timing_of(run));
  j["problems"] = problems;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& a : attempts) list.push_back(attempt_json(a));
  j["attempts"] = list;
  j["environment"] = run.env;
  if (emulated_times(run)) {
    j["emulated"] = true;
    j["times_note"] = kEmulatedTimesNote;
  }
  return j;
}

}  // namespace ekb
