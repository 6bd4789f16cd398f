// One attempt, built and evaluated (evaluator.h).
#include "eval/evaluator.h"
#include "suite/task_hash.h"
#include "util/text_hash.h"

#include <fmt/format.h>

namespace ekb {

EvalOptions eval_options(const DeviceProfile& dev, const PeakRates& peaks, Timing timing, const nlohmann::json* environment) {
  EvalOptions eo;
  eo.timing = timing;
  eo.threads = dev.threads;
  eo.memory_budget = dev.memory_budget;
  eo.peak_gflops = peaks.gflops;
  eo.peak_gbps = peaks.gbps;
  eo.read_gbps = peaks.read_gbps;
  // (A board's profile gives a copy bandwidth only: it serves as the read bandwidth, and the proof says so.)
  if (eo.read_gbps <= 0 && dev.board && peaks.gbps > 0) {
    eo.read_gbps = peaks.gbps;
    eo.read_gbps_is_copy_bandwidth = true;
  }
  if (dev.is_gpu()) eo.gpu = dev.gpu;
  if (dev.board) eo.board = dev.board;
  if (eo.board && environment && environment->is_object() && environment->value("emulated", false)) eo.board->emulated = true;
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

namespace {

Evaluation evaluate_against(const Task& task, const CandidateSource& c, const std::string& baseline, const EvalOptions& o) {
  Evaluation e;
  try {
    e = evaluate(*task.program, c.source, c.cplusplus, baseline, o);
  } catch (const std::exception& ex) {
    e.outcome = Outcome::internal;
    e.message = ex.what();
  }
  return e;
}

}  // namespace

Evaluation evaluate_source(const Task& task, const CandidateSource& c, const DeviceProfile& dev, const EvalOptions& o) {
  std::string baseline;
  try {
    baseline = baseline_source(*task.program, dev.target());
  } catch (const std::exception& ex) {
    Evaluation e;
    e.outcome = Outcome::internal;
    e.message = ex.what();
    return e;
  }
  return evaluate_against(task, c, baseline, o);
}

BuiltSubmission build_submission(const Task& task, const Submission& s, const DeviceProfile& dev) {
  BuiltSubmission b;
  Target target = dev.target();
  if (s.failed) {  // a generated sample that gave no code: nothing to build
    b.rejected = *s.failed;
    b.message = s.failure_message;
  } else {
    try {
      b.candidate = build_candidate(task, s, target);
    } catch (const CandidateRejected& r) {
      b.rejected = r.outcome;
      b.message = r.what();
    } catch (const std::exception& ex) {
      b.rejected = Outcome::internal;
      b.message = ex.what();
    }
  }
  try {
    b.baseline = baseline_source(*task.program, target);
  } catch (const std::exception& ex) {
    b.candidate.reset();
    b.rejected = Outcome::internal;
    b.message = fmt::format("building the task's baseline: {}", ex.what());
  }
  std::string what = b.candidate ? (b.candidate->cplusplus ? "c++\n" : "source\n") + b.candidate->source
                                 : fmt::format("rejected\n{}\n{}", outcome_name(b.rejected), b.message);
  b.build_hash = text_hash_hex(what + "\n--- baseline ---\n" + b.baseline);
  return b;
}

AttemptRecord evaluate_built(const Task& task, const Submission& s, const BuiltSubmission& b, const EvalOptions& o) {
  AttemptRecord a;
  a.task = s.task;
  a.sample = s.sample;
  a.candidate_path = s.path;
  a.candidate_hash = text_hash_hex(s.text);
  a.suite_version = task.suite_version;
  a.task_hash = task_hash(*task.program);
  a.build_hash = b.build_hash;
  if (!b.candidate) {
    a.eval.outcome = b.rejected;
    a.eval.message = b.message;
    return a;
  }
  a.eval = evaluate_against(task, *b.candidate, b.baseline, o);
  return a;
}

AttemptRecord evaluate_submission(const Task& task, const Submission& s, const DeviceProfile& dev, const EvalOptions& o) {
  return evaluate_built(task, s, build_submission(task, s, dev), o);
}

}  // namespace ekb
