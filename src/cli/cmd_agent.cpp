// `ekb agent`: LEKA on a set of tasks (the agent subset by default), writing the best program per task
// into a submission directory; `ekb trajectory RUN TASK`: the optimization path a run stored.
#include <fmt/format.h>
#include <fnmatch.h>

#include <filesystem>
#include <iostream>

#include "agent/agent_run.h"
#include "agent/trajectory.h"
#include "cli/commands.h"
#include "cli/llm_flags.h"
#include "harness/results_store.h"

namespace ekb::cli {

std::vector<const Task*> select_tasks(const Suite& suite, const std::string& glob, const std::string& subset) {
  std::vector<const Task*> out;
  if (!glob.empty() && !subset.empty()) throw std::runtime_error("give --tasks or --subset, not both");
  if (glob.empty()) return suite.subset(subset.empty() ? "agent" : subset);
  for (const auto& t : suite.tasks())
    if (fnmatch(glob.c_str(), t.name.c_str(), 0) == 0) out.push_back(&t);
  if (out.empty()) throw std::runtime_error(fmt::format("no suite task matches `{}` (`ekb list` shows them)", glob));
  return out;
}

void add_shard_option(CLI::App* cmd, std::string& shard) {
  cmd->add_option("--shard", shard,
                  "only the I-th of N interleaved parts of the selected tasks (1-based, in sorted order), e.g. 2/4; the run's "
                  "key is the whole selection's with the shard added (`ekb merge` joins the shards' stores)")
      ->option_text("I/N");
}

void apply_shard(const std::string& text, std::vector<const Task*>& tasks, nlohmann::json& key) {
  if (text.empty()) return;
  Shard shard = parse_shard_text(text);
  keep_shard(tasks, shard);
  key["shard"] = shard.text();
}

namespace {

std::string speedup_text(const Evaluation& e) {
  if (!e.correct()) return outcome_name(e.outcome);
  return fmt::format("{:.2f}x [{:.2f}, {:.2f}]{}", e.speedup, e.speedup_lo, e.speedup_hi, e.noisy ? " noisy" : "");
}

}  // namespace

void register_agent(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand("agent", "LEKA, the layered agent: improve each task's kernel by revising compute (L0), then "
                                          "schedule (L1), then memory (L2) decisions, every candidate checked and timed by "
                                          "the harness, under a budget of measurements; writes the best program per task to "
                                          "--out as a submission directory (`ekb eval DIR` re-scores it). Resumable.");
  struct Opts {
    std::string policy = "search", mode = "ir", tasks, subset, device, out, db = default_db(), timing = "cold", shard;
    int budget = 24, beam = 3, per_round = 4;
    double time_limit = 0;
    bool json = false, no_compute = false, no_confirm = false;
    LlmFlags llm;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--policy", o->policy, "search (the built-in search; default) or llm (a language model at an OpenAI-compatible "
                                         "endpoint: --model, --endpoint and the budget flags below)")
      ->option_text("P");
  cmd->add_option("--mode", o->mode, "with --policy llm: ir (LEKA's layered loop over ekb programs; default) or raw (the free-form "
                                     "loop over C, CUDA C or OpenCL C source)")
      ->option_text("ir|raw");
  cmd->add_option("--tasks", o->tasks, "the tasks matching this glob (default: the agent subset)")->option_text("GLOB");
  cmd->add_option("--subset", o->subset, "a subset declared in the suite (suite/subsets/NAME.txt; default: agent)")
      ->option_text("NAME");
  add_shard_option(cmd, o->shard);
  cmd->add_option("--device", o->device, "the device profile to tune for (`ekb devices`; default: host)")->option_text("PROFILE");
  cmd->add_option("--budget", o->budget, "measurements per task, the starting program's included (default 24); with --policy llm "
                                         "each turn of the model is one")
      ->option_text("N")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--time-limit", o->time_limit, "wall seconds per task (default: none)")->option_text("S")->check(CLI::NonNegativeNumber);
  cmd->add_option("--beam", o->beam, "programs expanded per round (default 3)")->option_text("K")->check(CLI::PositiveNumber);
  cmd->add_option("--per-round", o->per_round, "candidates measured per round (default 4)")->option_text("M")->check(CLI::PositiveNumber);
  cmd->add_flag("--no-compute-layer", o->no_compute, "skip the L0 rewrites");
  cmd->add_flag("--no-confirm", o->no_confirm,
                "keep the best program as measured during the search, without measuring it once more at the end (docs/agent.md)");
  cmd->add_option("--out", o->out, "the directory the best programs go to (TASK.ekb; TASK.c, .cu or .cl with --mode raw)")->option_text("DIR")->required();
  cmd->add_option("--db", o->db, "the results store (default: $EKB_DB, else ./ekb_results.db)")->option_text("FILE");
  cmd->add_flag("--json", o->json, "print one JSON object instead of the table");
  add_timing_option(cmd, o->timing);
  add_llm_flags(cmd, o->llm);
  cmd->callback([o, &g] {
    agent::Policy policy = agent::parse_policy(o->policy);
    agent::CodeMode mode = agent::parse_code_mode(o->mode);
    if (policy == agent::Policy::search && mode == agent::CodeMode::raw)
      throw std::runtime_error("--mode raw is the free-form loop of a language model: give --policy llm");
    DeviceProfile dev = device_for(o->device, "");
    Suite suite = g.load_suite();
    std::vector<const Task*> tasks = select_tasks(suite, o->tasks, o->subset);
    agent::AgentOptions ao;
    ao.search.budget = o->budget;
    ao.search.time_limit_s = o->time_limit;
    ao.search.beam = o->beam;
    ao.search.per_round = o->per_round;
    ao.search.compute_layer = !o->no_compute;
    ao.search.confirm = !o->no_confirm;
    ao.out_dir = o->out;
    ao.timing = parse_timing(o->timing);
    ao.policy = policy;
    agent::LlmAgentSetup setup;
    std::unique_ptr<agent::PromptTemplates> templates;
    if (policy == agent::Policy::llm) {
      setup.endpoint = endpoint_from(o->llm);
      setup.prices = prices_for(o->llm, setup.endpoint.model);
      templates = std::make_unique<agent::PromptTemplates>(agent::PromptTemplates::load(agent::PromptTemplates::default_dir(o->llm.prompts)));
      setup.templates = templates.get();
      setup.budget = budget_from(o->llm);
      setup.mode = mode;
      ao.llm = &setup;
    }
    nlohmann::json key = {{"command", "agent"},       {"policy", o->policy},   {"device", dev.name},
                          {"budget", o->budget},      {"time_limit", o->time_limit}, {"beam", o->beam},
                          {"per_round", o->per_round}, {"compute_layer", !o->no_compute}, {"confirm", !o->no_confirm},
                          {"out", std::filesystem::absolute(o->out).lexically_normal().string()}};
    if (policy == agent::Policy::llm) {  // what defines the experiment; not the budget of tokens, so that a larger one resumes it
      key["mode"] = agent::code_mode_name(mode);
      key["model"] = setup.endpoint.model;
      key["endpoint"] = setup.endpoint.describe();
      key["prompt_version"] = templates->version();
      key["temperature"] = setup.endpoint.temperature;
      key["max_tokens"] = setup.endpoint.max_tokens;
    }
    for (const Task* t : tasks) key["tasks"].push_back(t->name);
    apply_shard(o->shard, tasks, key);
    ResultsStore store(o->db);
    size_t done = 0;
    std::ostream& log = o->json ? std::cerr : std::cout;
    log << fmt::format("ekb agent: policy {}{}, {} tasks on device `{}` ({}), budget {} measurements per task{}, timed {}, into {}\n",
                       o->policy,
                       policy == agent::Policy::llm ? fmt::format(" (mode {}, {}, prompts {})", o->mode, setup.endpoint.describe(), templates->version())
                                                    : "",
                       tasks.size(), dev.name, dev.target().describe(), o->budget,
                       o->time_limit > 0 ? fmt::format(" or {:.0f} s", o->time_limit) : "", o->timing, o->out);
    std::vector<agent::TaskOutcome> outcomes;
    RunInfo run = agent::run_agent(
        tasks, dev, ao, store, key,
        [&](const agent::TaskOutcome& t) {
          ++done;
          outcomes.push_back(t);
          log << fmt::format("[{}/{}] {:<44} {:>4} steps  best {}  ({})\n", done, tasks.size(), t.task, t.steps,
                             speedup_text(t.best.eval), t.stopped);
        },
        [&](const std::string& task, const agent::Step& s) {
          if (!o->json && std::getenv("EKB_AGENT_VERBOSE"))
            std::cerr << fmt::format("  {} step {:>3} {} {:<50} {}\n", task, s.index, agent::layer_label(s.layer), s.action,
                                     speedup_text(s.eval));
        });
    if (o->json) {
      nlohmann::json j = {{"run", run.id}, {"device", dev.name}, {"timing", o->timing}, {"out", o->out}};
      for (const auto& t : outcomes)
        j["tasks"].push_back({{"task", t.task},
                              {"program", t.path},
                              {"status", outcome_name(t.best.eval.outcome)},
                              {"speedup", t.best.eval.speedup},
                              {"speedup_interval", {t.best.eval.speedup_lo, t.best.eval.speedup_hi}},
                              {"steps", t.steps},
                              {"illegal", t.illegal},
                              {"stopped", t.stopped}});
      std::cout << j.dump(2) << "\n";
    } else {
      if (policy == agent::Policy::llm) {
        LlmSpend sp = store.llm_spend(run.id);
        std::cout << fmt::format("model: {} requests, {} + {} tokens, ${:.4f}\n", sp.requests, sp.prompt_tokens, sp.completion_tokens, sp.cost);
      }
      std::cout << fmt::format("run {}: `ekb trajectory {} TASK` shows a task's optimization path; `ekb eval {}` re-scores the "
                               "programs\n",
                               run.id, run.id, o->out);
    }
    if (!run.finished)
      throw std::runtime_error(fmt::format("the model's budget was spent before every task was done (run {} is resumable: run the same "
                                           "command with a larger budget)",
                                           run.id));
  });
}

void register_trajectory(CLI::App& app, Globals&) {
  auto* cmd = app.add_subcommand("trajectory", "The optimization path an agent run stored for a task: every step (layer, "
                                               "action, result, speedup with its interval, accepted or not) and which "
                                               "decision at which layer gave how much.");
  struct Opts {
    int64_t run = 0;
    std::string task, db = default_db();
    bool json = false, programs = false, replies = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("RUN", o->run, "the agent run (`ekb results` lists the runs)")->required();
  cmd->add_flag("--replies", o->replies, "with an llm policy's run: print the model's reply at each step, and its tokens and cost");
  cmd->add_option("TASK", o->task, "the task (default: list the run's tasks)");
  cmd->add_option("--db", o->db, "the results store (default: $EKB_DB, else ./ekb_results.db)")->option_text("FILE");
  cmd->add_flag("--json", o->json, "print JSON (with every step's program)");
  cmd->add_flag("--programs", o->programs, "print each accepted step's program");
  cmd->callback([o] {
    if (!std::filesystem::exists(o->db)) throw std::runtime_error(fmt::format("no results store at {}", o->db));
    ResultsStore store(o->db);
    if (!store.run(o->run)) throw std::runtime_error(fmt::format("no run {} in {}", o->run, o->db));
    if (o->task.empty()) {
      auto tasks = store.step_tasks(o->run);
      if (tasks.empty()) throw std::runtime_error(fmt::format("run {} has no agent steps (is it an agent run?)", o->run));
      if (o->json) std::cout << nlohmann::json(tasks).dump(2) << "\n";
      else
        for (const auto& t : tasks) std::cout << t << "\n";
      return;
    }
    auto steps = store.steps(o->run, o->task);
    if (steps.empty()) throw std::runtime_error(fmt::format("run {} has no steps for task `{}`", o->run, o->task));
    agent::Trajectory t = agent::trajectory_of(steps);
    std::vector<LlmRequestRecord> turns;
    for (auto& r : store.llm_requests(o->run))
      if (r.task == o->task) turns.push_back(std::move(r));
    if (o->json) {
      nlohmann::json j = agent::trajectory_json(t);
      for (const auto& r : turns)
        j["model_turns"].push_back({{"turn", r.turn}, {"reply", r.reply}, {"finish_reason", r.finish_reason}, {"code", r.code_status},
                                    {"failure", r.failure}, {"error", r.error}, {"prompt_tokens", r.prompt_tokens},
                                    {"completion_tokens", r.completion_tokens}, {"cost", r.cost}, {"latency_s", r.latency_s},
                                    {"prompt_version", r.prompt_version}, {"model", r.model}});
      std::cout << j.dump(2) << "\n";
      return;
    }
    std::cout << agent::trajectory_text(t, o->programs);
    if (!turns.empty()) {
      int64_t pt = 0, ct = 0;
      double cost = 0;
      for (const auto& r : turns) pt += r.prompt_tokens, ct += r.completion_tokens, cost += r.cost;
      std::cout << fmt::format("model turns: {} ({}), {} + {} tokens, ${:.4f}{}\n", turns.size(), turns.front().model, pt, ct, cost,
                               o->replies ? "" : "; --replies prints each reply");
      if (o->replies)
        for (const auto& r : turns)
          std::cout << fmt::format("\n--- turn {}: {}, {} + {} tokens, {:.1f} s ---\n{}\n", r.turn,
                                   r.failure.empty() ? r.code_status : "no reply: " + r.failure + ": " + r.error, r.prompt_tokens,
                                   r.completion_tokens, r.latency_s, r.reply);
    }
  });
}

}  // namespace ekb::cli
