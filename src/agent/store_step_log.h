// The two things LEKA's loop needs from the outside world, as the real runs provide them: a
// Measurer that scores a program through the harness (an .ekb submission for the task, checked and
// timed against the baseline in sandboxed workers), and a StepLog that keeps every step in the
// results store as it is measured (so that a run killed at any moment replays and goes on).
// Both policies, the search and the language model, use them.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "agent/search.h"
#include "eval/evaluator.h"
#include "harness/device_profiles.h"
#include "harness/results_store.h"
#include "suite/suite.h"

namespace ekb::agent {

// Measurements through the harness: the program as an .ekb submission for the task.
class HarnessMeasurer final : public Measurer {
 public:
  // `full`: an attempt's timing; `search`: the search's shorter one (search_eval_options).
  HarnessMeasurer(const Task& t, const DeviceProfile& d, const EvalOptions& full, const EvalOptions& search)
      : task_(t), dev_(d), full_(full), search_(search) {}
  Evaluation measure(const AgentProgram& p, const MeasureAsk& ask) override {
    Submission s{task_.name, task_.name + ".ekb", SourceKind::ekb, 0, p.text()};
    EvalOptions o = ask.full ? full_ : search_;
    o.hopeless_below = ask.hopeless_below;
    return evaluate_submission(task_, s, dev_, o).eval;
  }

 private:
  const Task& task_;
  const DeviceProfile& dev_;
  EvalOptions full_, search_;
};

// The search's steps in the results store.
class StoreStepLog final : public StepLog {
 public:
  // `task_hash`: the task's version (suite/task_hash.h), stored with every step.
  StoreStepLog(ResultsStore& s, int64_t run, std::string task, std::string task_hash, Backend b)
      : store_(s), run_(run), task_(std::move(task)), task_hash_(std::move(task_hash)), backend_(b) {
    for (auto& r : store_.steps(run_, task_)) stored_.push_back(std::move(r));
  }
  std::optional<Step> stored(int index) override {
    if (index < 0 || index >= static_cast<int>(stored_.size()) || stored_[index].step != index) return std::nullopt;
    const StepRecord& r = stored_[index];
    Step s;
    s.index = r.step;
    s.action = r.action;
    s.layer = r.layer == "L0" ? AgentLayer::compute : r.layer == "L2" ? AgentLayer::memory : AgentLayer::schedule;
    s.program = split_program(r.program);
    s.predicted_ms = r.predicted_ms;
    s.eval = r.eval;
    s.accepted = r.accepted;
    return s;
  }
  void record(const Step& s) override {
    StepRecord r;
    r.task = task_;
    r.step = s.index;
    r.layer = layer_label(s.layer);
    r.action = s.action;
    r.program = s.program.text();
    r.program_hash = s.program.hash_hex();
    r.task_hash = task_hash_;
    r.predicted_ms = s.predicted_ms;
    r.accepted = s.accepted;
    r.eval = s.eval;
    store_.put_step(run_, r);
  }
  void forget_from(int index) override {
    store_.forget_steps(run_, task_, index);
    if (index < static_cast<int>(stored_.size())) stored_.resize(static_cast<size_t>(std::max(0, index)));
  }

 private:
  ResultsStore& store_;
  int64_t run_;
  std::string task_, task_hash_;
  Backend backend_;
  std::vector<StepRecord> stored_;

  // A stored program's text back into kernel and sections (the text is kernel, then sections).
  AgentProgram split_program(const std::string& text) const {
    size_t at = text.find("\nschedule ");
    size_t mem = text.find("\nmemory ");
    if (at == std::string::npos || (mem != std::string::npos && mem < at)) at = mem;
    if (at == std::string::npos) return program_from(text, "", backend_);
    // (text() puts an empty line between the kernel and the sections: `at` is its end.)
    return program_from(text.substr(0, at), text.substr(at + 1), backend_);
  }
};

}  // namespace ekb::agent
