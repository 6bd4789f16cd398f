// The agent over tasks, with the store and the output directory (agent_run.h).
#include "agent/agent_run.h"
#include "util/text_hash.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "agent/store_step_log.h"
#include "eval/evaluator.h"
#include "eval/read_bandwidth_check.h"
#include "eval/task_versions.h"
#include "suite/task_hash.h"
#include "util/write_file.h"
#include "eval/run.h"

namespace ekb::agent {

namespace fs = std::filesystem;

const char* policy_name(Policy p) { return p == Policy::search ? "search" : "llm"; }

Policy parse_policy(const std::string& name) {
  if (name == "search") return Policy::search;
  if (name == "llm") return Policy::llm;
  throw std::runtime_error("unknown policy `" + name + "`: use search (the built-in search) or llm (a language model)");
}

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

namespace {

// The model's client for a run, budgeted from what the run has already spent (a resumed run).
struct LlmRun {
  llm::Budget budget;
  llm::ChatClient client;
  LlmRun(const LlmAgentSetup& s, const LlmSpend& spent)
      : budget(s.budget, llm::Usage{spent.prompt_tokens, spent.completion_tokens}, spent.requests, spent.cost),
        client(s.endpoint, s.prices, &budget) {
    if (s.configure_client) s.configure_client(client);
  }
};

}  // namespace

RunInfo run_agent(const std::vector<const Task*>& tasks, const DeviceProfile& profile, const AgentOptions& o, ResultsStore& store,
                  const nlohmann::json& key, const std::function<void(const TaskOutcome&)>& on_task,
                  const std::function<void(const std::string&, const Step&)>& on_step) {
  if (o.out_dir.empty()) throw std::runtime_error("the agent needs an output directory (--out DIR)");
  fs::create_directories(o.out_dir);
  nlohmann::json env;
  PeakRates peaks = prepare_device(store, profile, &env);
  // (The baseline, and the start of every search, is the default schedule for this machine and regime.)
  const DeviceProfile dev = with_parallel_cost(profile, peaks, o.timing);
  env["agent"] = {{"policy", policy_name(o.policy)}, {"budget", o.search.budget}, {"time_limit_s", o.search.time_limit_s}};
  if (o.policy == Policy::llm) {
    if (!o.llm || !o.llm->templates) throw std::logic_error("run_agent: the llm policy needs its setup");
    env["mode"] = code_mode_name(o.llm->mode);
    env["llm"] = {{"endpoint", o.llm->endpoint.describe()}, {"model", o.llm->endpoint.model},
                  {"prompt_version", o.llm->templates->version()}, {"temperature", o.llm->endpoint.temperature},
                  {"max_tokens", o.llm->endpoint.max_tokens},
                  {"budget", {{"requests", o.llm->budget.requests}, {"tokens", o.llm->budget.tokens}, {"cost", o.llm->budget.cost}}}};
  }
  record_timing(env, o.timing);
  RunInfo run = store.open_run(keyed_by_timing(key, o.timing).dump(), backend_name(dev.backend), dev.name, env);
  EvalOptions full = eval_options(dev, peaks, o.timing, &env), eo = search_eval_options(full);
  ReadBandwidthCheck reads(store, dev);  // (a best program that read faster than the stored rate: measured again, once)
  Target target = dev.target();
  std::unique_ptr<LlmRun> llm_run;
  if (o.policy == Policy::llm) llm_run = std::make_unique<LlmRun>(*o.llm, store.llm_spend(run.id));
  bool raw = o.policy == Policy::llm && o.llm->mode == CodeMode::raw;
  CodeLanguage lang = code_language(raw ? CodeMode::raw : CodeMode::ir, dev.backend);
  for (const Task* t : tasks) {
    TaskOutcome out;
    out.task = t->name;
    out.path = (fs::path(o.out_dir) / (t->name + "." + source_kind_name(lang.kind))).string();
    std::string hash = task_hash(*t->program);
    if (auto stale = drop_other_version(store, run.id, t->name, 0, hash))  // searched again from its start
      std::cerr << "ekb: " << remeasure_note("task " + t->name, *stale, hash) << "\n";
    if (store.has_attempt(run.id, t->name, 0)) {
      // Done in an earlier session: its best program is the accepted step with the highest speedup.
      for (const auto& a : store.attempts(run.id))
        if (a.task == t->name) out.best = a;
      auto steps = store.steps(run.id, t->name);
      out.steps = static_cast<int>(steps.size());
      if (!fs::exists(out.path))
        for (auto it = steps.rbegin(); it != steps.rend(); ++it)
          if ((it->accepted || it->step == 0) && !it->program.empty()) {  // (a free-form step without code has none)
            write_atomically(out.path, it->program);
            break;
          }
      out.stopped = "stored";
      if (on_task) on_task(out);
      continue;
    }
    out.best.task = t->name;
    out.best.sample = 0;
    out.best.candidate_path = out.path;
    out.best.suite_version = t->suite_version;
    out.best.task_hash = hash;
    std::optional<LlmTaskContext> c;
    std::optional<ModelTurns> turns;
    LlmLoopOptions lo{o.search.budget, o.search.time_limit_s, 2, o.search.confirm};
    if (llm_run) {
      c = LlmTaskContext{t, dev, Roofline{peaks.gflops, peaks.gbps}, stored_baseline(store, t->name, dev.name), o.llm->templates};
      turns.emplace(llm_run->client, store, run.id, t->name, o.llm->templates->version(), lang);
    }
    if (raw) {
      // The free-form loop: raw source, measured as a submission of the backend's raw kind.
      RawMeasure measure = [&](const std::string& source, bool full_timing) {
        Submission sub{t->name, out.path, lang.kind, 0, source, std::nullopt, ""};
        return evaluate_submission(*t, sub, dev, full_timing ? full : eo).eval;
      };
      RawLoopResult r = llm_raw_loop(*c, measure, *turns, store, run.id, lo, [&](const StepRecord& s) {
        if (on_step) {
          Step st{s.step, AgentLayer::schedule, s.action, AgentProgram{}, 0, s.eval, s.accepted};
          on_step(t->name, st);
        }
      });
      out.steps = r.steps;
      out.stopped = r.stopped;
      if (r.stopped == "token budget") {
        if (on_task) on_task(out);
        return *store.run(run.id);  // unfinished: a larger budget resumes it
      }
      if (!r.best_source.empty()) write_atomically(out.path, r.best_source);
      out.best.candidate_hash = text_hash_hex(r.best_source);
      out.best.eval = r.best_eval;
      reads.after(out.best.eval, full, &eo);
      store.add_attempt(run.id, out.best);
      if (on_task) on_task(out);
      continue;
    }
    HarnessMeasurer m(*t, dev, full, eo);
    StoreStepLog log(store, run.id, t->name, hash, dev.backend);
    AgentProgram start = default_program(*t->program, target);
    auto step_progress = [&](const Step& s) {
      if (on_step) on_step(t->name, s);
    };
    SearchResult r;
    if (o.policy == Policy::llm) {
      r = llm_layered_loop(*c, start, m, *turns, &log, lo, step_progress);
      if (r.stopped == "token budget") {
        out.steps = static_cast<int>(r.steps.size());
        out.stopped = r.stopped;
        if (on_task) on_task(out);
        return *store.run(run.id);  // unfinished: a larger budget resumes it
      }
    } else {
      r = search(start, target, m, o.search, &log, step_progress);
    }
    write_atomically(out.path, r.best.text());
    out.best.candidate_hash = r.best.hash_hex();
    out.best.eval = r.best_eval;
    reads.after(out.best.eval, full, &eo);
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
