// The agent over tasks, with the store and the output directory (agent_run.h).
#include "agent/agent_run.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "eval/evaluator.h"
#include "eval/run.h"

namespace ekb::agent {

namespace {

namespace fs = std::filesystem;

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
  StoreStepLog(ResultsStore& s, int64_t run, std::string task, Backend b) : store_(s), run_(run), task_(std::move(task)), backend_(b) {
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
  std::string task_;
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

void write_atomically(const fs::path& path, const std::string& text) {
  fs::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f) throw std::runtime_error("cannot write " + tmp.string());
  }
  fs::rename(tmp, path);
}

}  // namespace

const char* policy_name(Policy p) { return p == Policy::search ? "search" : "?"; }

EvalOptions search_eval_options(const EvalOptions& base) {
  EvalOptions o = base;
  o.min_seconds = 0.03;
  o.min_reps = 10;
  o.max_reps = 150;
  o.max_wall_seconds = 1.5;
  o.noisy_max_reps = 300;
  o.noisy_max_wall_seconds = 3;
  return o;
}

RunInfo run_agent(const std::vector<const Task*>& tasks, const DeviceProfile& dev, const AgentOptions& o, ResultsStore& store,
                  const nlohmann::json& key, const std::function<void(const TaskOutcome&)>& on_task,
                  const std::function<void(const std::string&, const Step&)>& on_step) {
  if (o.out_dir.empty()) throw std::runtime_error("the agent needs an output directory (--out DIR)");
  fs::create_directories(o.out_dir);
  nlohmann::json env;
  PeakRates peaks = prepare_device(store, dev, &env);
  env["agent"] = {{"policy", policy_name(o.policy)}, {"budget", o.search.budget}, {"time_limit_s", o.search.time_limit_s}};
  env["timing"] = timing_name(o.timing);
  RunInfo run = store.open_run(keyed_by_timing(key, o.timing).dump(), backend_name(dev.backend), dev.name, env);
  EvalOptions full = eval_options(dev, peaks, o.timing), eo = search_eval_options(full);
  Target target = dev.target();
  for (const Task* t : tasks) {
    TaskOutcome out;
    out.task = t->name;
    out.path = (fs::path(o.out_dir) / (t->name + ".ekb")).string();
    if (store.has_attempt(run.id, t->name, 0)) {
      // Done in an earlier session: its best program is the accepted step with the highest speedup.
      for (const auto& a : store.attempts(run.id))
        if (a.task == t->name) out.best = a;
      auto steps = store.steps(run.id, t->name);
      out.steps = static_cast<int>(steps.size());
      if (!fs::exists(out.path))
        for (auto it = steps.rbegin(); it != steps.rend(); ++it)
          if (it->accepted || it->step == 0) {
            write_atomically(out.path, it->program);
            break;
          }
      out.stopped = "stored";
      if (on_task) on_task(out);
      continue;
    }
    HarnessMeasurer m(*t, dev, full, eo);
    StoreStepLog log(store, run.id, t->name, dev.backend);
    AgentProgram start = default_program(*t->program, target);
    SearchResult r = search(start, target, m, o.search, &log, [&](const Step& s) {
      if (on_step) on_step(t->name, s);
    });
    write_atomically(out.path, r.best.text());
    out.best.task = t->name;
    out.best.sample = 0;
    out.best.candidate_path = out.path;
    out.best.candidate_hash = r.best.hash_hex();
    out.best.eval = r.best_eval;
    out.steps = static_cast<int>(r.steps.size());
    out.illegal = r.illegal;
    out.candidates = r.candidates;
    out.stopped = r.stopped;
    store.add_attempt(run.id, out.best);
    if (on_task) on_task(out);
  }
  store.finish_run(run.id);
  return *store.run(run.id);
}

}  // namespace ekb::agent
