// One attempt, built and evaluated (evaluator.h).
#include "eval/evaluator.h"
#include "suite/task_hash.h"
#include "util/text_hash.h"

#include <fmt/format.h>

namespace ekb {

EvalOptions eval_options(const DeviceProfile& dev, const PeakRates& peaks, Timing timing) {
  EvalOptions eo;
  eo.timing = timing;
  eo.threads = dev.threads;
  eo.memory_budget = dev.memory_budget;
  eo.peak_gflops = peaks.gflops;
  eo.peak_gbps = peaks.gbps;
  if (dev.is_gpu()) eo.gpu = dev.gpu;
  eo.backend = dev.backend;
  eo.profile = dev.name;
  return eo;
}

void quick_timing(EvalOptions& o) {
  o.min_seconds = 0.005;
  o.min_reps = 5;
  o.max_reps = 20;
  o.max_wall_seconds = 0.5;
  o.noisy_max_reps = o.max_reps;
  o.noisy_max_wall_seconds = o.max_wall_seconds;
}

nlohmann::json keyed_by_timing(nlohmann::json key, Timing timing) {
  if (timing != Timing::cold) key["timing"] = timing_name(timing);
  return key;
}

Evaluation evaluate_source(const Task& task, const CandidateSource& c, const DeviceProfile& dev, const EvalOptions& o) {
  Evaluation e;
  try {
    e = evaluate(*task.program, c.source, c.cplusplus, baseline_source(*task.program, dev.target()), o);
  } catch (const std::exception& ex) {
    e.outcome = Outcome::internal;
    e.message = ex.what();
  }
  return e;
}

AttemptRecord evaluate_submission(const Task& task, const Submission& s, const DeviceProfile& dev, const EvalOptions& o) {
  AttemptRecord a;
  a.task = s.task;
  a.sample = s.sample;
  a.candidate_path = s.path;
  a.candidate_hash = text_hash_hex(s.text);
  a.suite_version = task.suite_version;
  a.task_hash = task_hash(*task.program);
  if (s.failed) {  // a generated sample that gave no code: nothing to build
    a.eval.outcome = *s.failed;
    a.eval.message = s.failure_message;
    return a;
  }
  try {
    a.eval = evaluate_source(task, build_candidate(task, s, dev.target()), dev, o);
  } catch (const CandidateRejected& r) {
    a.eval.outcome = r.outcome;
    a.eval.message = r.what();
  } catch (const std::exception& ex) {
    a.eval.outcome = Outcome::internal;
    a.eval.message = ex.what();
  }
  return a;
}

}  // namespace ekb
