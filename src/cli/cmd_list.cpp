// `ekb list`: the suite's workloads as a table or a JSON array, chosen by category, domain, pattern,
// model graph or single operator, and subset (every filter given must hold); `--stats` counts the
// chosen patterns and workloads per category, per domain, graph vs single, and in all.
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/task_json.h"
#include "suite/figures.h"
#include "suite/selection.h"
#include "suite/suite_stats.h"
#include "suite/suite_version.h"

namespace ekb::cli {

namespace {

struct ListOpts {
  std::string category, domain, pattern, subset;
  bool graph = false, single = false, stats = false, json = false;
};

TaskFilter filter_of(const ListOpts& o) {
  TaskFilter f;
  auto given = [](const std::string& s) { return s.empty() ? std::nullopt : std::optional<std::string>(s); };
  f.category = given(o.category);
  f.domain = given(o.domain);
  f.pattern = given(o.pattern);
  f.subset = given(o.subset);
  if (o.graph) f.kind = TaskKind::graph;
  if (o.single) f.kind = TaskKind::single;
  return f;
}

nlohmann::json counts_json(const Counts& c) { return {{"patterns", c.patterns}, {"workloads", c.workloads}}; }

nlohmann::json stats_json(const SuiteStats& st, const Suite& s) {
  nlohmann::json cats = nlohmann::json::object(), doms = nlohmann::json::object();
  for (const auto& [n, c] : st.categories) cats[n] = counts_json(c);
  for (const auto& [n, c] : st.domains) doms[n] = counts_json(c);
  return {{"suite_version", s.version()},
          {"total", counts_json(st.total)},
          {"categories", cats},
          {"domains", doms},
          {"graph", counts_json(st.graph)},
          {"single", counts_json(st.single)}};
}

void print_stats(const SuiteStats& st, const Suite& s) {
  std::cout << fmt::format("suite {} ({}): {} pattern(s), {} workload(s)\n", suite_version_label(s.version()), s.dir().string(),
                           st.total.patterns, st.total.workloads);
  auto row = [](const std::string& name, const Counts& c) {
    std::cout << fmt::format("  {:<22} {:>8} {:>9}\n", name, c.patterns, c.workloads);
  };
  std::cout << fmt::format("  {:<22} {:>8} {:>9}\n", "by category", "patterns", "workloads");
  for (const auto& [n, c] : st.categories) row(n, c);
  std::cout << "  by domain\n";
  for (const auto& [n, c] : st.domains) row(n, c);
  std::cout << "  by kind\n";
  row("graph (category model)", st.graph);
  row("single operator", st.single);
  row("total", st.total);
  std::cout << "(a pattern counts once in each domain its workloads are in)\n";
}

void print_table(const std::vector<const Task*>& tasks) {
  size_t w = 4;
  for (const Task* t : tasks) w = std::max(w, t->name.size());
  std::cout << fmt::format("{:<{}} {:<14} {:<9} {:>6} {:>10} {:>10}  {}\n", "TASK", w, "CATEGORY", "DOMAIN", "STAGES", "MFLOP",
                           "KB", "PATTERN");
  for (const Task* t : tasks) {
    Figures f = compute_figures(*t->program);
    std::cout << fmt::format("{:<{}} {:<14} {:<9} {:>6} {:>10.3f} {:>10.1f}  {}\n", t->name, w, t->category, t->domain, f.stages,
                             f.flops / 1e6, static_cast<double>(f.bytes) / 1024.0, t->pattern);
  }
  std::cout << fmt::format("{} workload(s)\n", tasks.size());
}

}  // namespace

void register_list(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand(
      "list", "List the suite's workloads (tasks) with their category, domain, stage count, flops and bytes moved as stated "
              "(computed from L0), or count them (--stats). Filters combine: a workload is listed when it passes every "
              "filter given.");
  auto o = std::make_shared<ListOpts>();
  cmd->add_option("--category", o->category, fmt::format("only this category ({})", fmt::join(known_categories(), ", ")))
      ->option_text("C");
  cmd->add_option("--domain", o->domain, fmt::format("only this domain ({})", fmt::join(known_domains(), ", ")))
      ->option_text("D");
  cmd->add_option("--pattern", o->pattern, "only the workloads of this pattern (the PATTERN column)")->option_text("P");
  auto* graph = cmd->add_flag("--graph", o->graph, "only model graphs (category model: several operators end to end)");
  cmd->add_flag("--single", o->single, "only single operators (every category but model)")->excludes(graph);
  cmd->add_option("--subset", o->subset, "only the tasks of this subset (suite/subsets/NAME.txt, e.g. agent), in its order")
      ->option_text("NAME");
  cmd->add_flag("--stats", o->stats,
                "instead of the workloads, the counts of patterns and workloads per category, per domain, graph vs single "
                "and in all (of the workloads the filters choose)");
  cmd->add_flag("--json", o->json, "print JSON: an array, one object per workload; with --stats, one object of counts");
  cmd->callback([o, &g] {
    Suite s = g.load_suite();
    std::vector<const Task*> tasks = filter_tasks(s, filter_of(*o));
    if (o->stats) {
      SuiteStats st = suite_stats(tasks);
      if (o->json) std::cout << stats_json(st, s).dump(2) << "\n";
      else print_stats(st, s);
      return;
    }
    if (o->json) {
      nlohmann::json a = nlohmann::json::array();
      for (const Task* t : tasks) a.push_back(task_json(*t));
      std::cout << a.dump(2) << "\n";
      return;
    }
    print_table(tasks);
  });
}

}  // namespace ekb::cli
