// `ekb compare RUN...`: the same-budget comparison of direct generation, the free-form loop,
// LEKA-LLM and LEKA-search over the agent subset (agent/compare.h): a table, or JSON.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "agent/compare.h"
#include "cli/commands.h"

namespace ekb::cli {

void register_compare(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand("compare", "Compare runs side by side over one set of tasks (the agent subset by default): direct "
                                            "generation (`ekb generate`, scored by `ekb eval`), the free-form loop and LEKA with a "
                                            "language model or its search (`ekb agent`): Compile@1, Correct@1, Fast@1.0 strict and "
                                            "significant, geomean speedup, and the requests, tokens, cost and measurements spent.");
  struct Opts {
    std::vector<int64_t> runs;
    std::string db = default_db(), tasks, subset;
    bool json = false, all_tasks = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("RUN", o->runs, "the runs to compare (`ekb results` lists them)")->required();
  cmd->add_option("--db", o->db, "the results store (default: $EKB_DB, else ./ekb_results.db)")->option_text("FILE");
  cmd->add_option("--tasks", o->tasks, "only the tasks matching this glob")->option_text("GLOB");
  cmd->add_option("--subset", o->subset, "only the tasks of this subset (default: agent)")->option_text("NAME");
  cmd->add_flag("--all-tasks", o->all_tasks, "every task of each run, not only the subset's");
  cmd->add_flag("--json", o->json, "print a JSON array");
  cmd->callback([o, &g] {
    if (!std::filesystem::exists(o->db)) throw std::runtime_error(fmt::format("no results store at {}", o->db));
    std::set<std::string> tasks;
    if (!o->all_tasks) {
      Suite suite = g.load_suite();
      for (const Task* t : select_tasks(suite, o->tasks, o->subset)) tasks.insert(t->name);
    }
    ResultsStore store(o->db);
    std::vector<agent::ComparedRun> rows = agent::compare_runs(store, o->runs, tasks);
    if (o->json) {
      nlohmann::json j = nlohmann::json::array();
      for (const auto& r : rows) j.push_back(agent::compared_json(r));
      std::cout << j.dump(2) << "\n";
      return;
    }
    std::cout << fmt::format("{:>4}  {:<24} {:<14} {:>5} {:>7}  {:>9} {:>9} {:>8} {:>8} {:>8}  {:>8} {:>10} {:>9} {:>6}  {}\n", "run", "mode",
                             "model", "tasks", "samples", "Compile@1", "Correct@1", "Fast@1.0", "(signif)", "geomean", "requests",
                             "tokens", "cost", "meas.", "scored by");
    for (const auto& r : rows) {
      const Metrics& m = r.metrics;
      std::cout << fmt::format("{:>4}  {:<24} {:<14} {:>5} {:>7}  {:>8.1f}% {:>8.1f}% {:>7.1f}% {:>7.1f}% {:>7.3f}x  {:>8} {:>10} {:>8.4f}$ {:>6}  {}\n",
                               r.run, r.label, r.model.empty() ? "-" : r.model, r.tasks, r.samples, 100 * m.compile_at_k,
                               100 * m.correct_at_k, 100 * m.fast.at("1.0"), 100 * m.fast_significant.at("1.0"), m.geomean_speedup,
                               r.spend.requests, r.spend.prompt_tokens + r.spend.completion_tokens, r.spend.cost, r.measurements,
                               r.scored_by);
      if (r.unscored > 0)
        std::cout << fmt::format("      ({} samples of run {} have no matching attempt in {}: score them with `ekb eval`)\n", r.unscored,
                                 r.run, r.scored_by);
    }
    for (size_t i = 1; i < rows.size(); ++i)
      if (rows[i].task_names != rows[0].task_names) {
        std::cout << fmt::format("note: the runs do not cover the same tasks (run {}: {}, run {}: {}); each row is over its own\n",
                                 rows[0].run, rows[0].tasks, rows[i].run, rows[i].tasks);
        break;
      }
  });
}

}  // namespace ekb::cli
