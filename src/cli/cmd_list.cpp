// `ekb list`: the suite's workloads as a table or a JSON array.
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/task_json.h"
#include "suite/figures.h"
#include "util/strings.h"

namespace ekb::cli {

void register_list(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand("list", "List the suite's workloads (tasks) with their category, domain, stage count, "
                                         "flops and minimum bytes moved.");
  auto json = std::make_shared<bool>(false);
  auto category = std::make_shared<std::string>();
  auto subset = std::make_shared<std::string>();
  cmd->add_flag("--json", *json, "print a JSON array, one object per workload");
  cmd->add_option("--subset", *subset, "only the tasks of this subset (suite/subsets/NAME.txt, e.g. agent)")->option_text("NAME");
  cmd->add_option("--category", *category, "only this category (" + fmt::format("{}", fmt::join(known_categories(), ", ")) + ")")
      ->option_text("C");
  cmd->callback([json, category, subset, &g] {
    if (!category->empty() && std::find(known_categories().begin(), known_categories().end(), *category) == known_categories().end())
      throw std::runtime_error(fmt::format("unknown category `{}`; categories: {}", *category, fmt::join(known_categories(), ", ")));
    Suite s = g.load_suite();
    std::vector<const Task*> tasks;
    if (!subset->empty()) {
      for (const Task* t : s.subset(*subset))
        if (category->empty() || t->category == *category) tasks.push_back(t);
    } else {
      for (const auto& t : s.tasks())
        if (category->empty() || t.category == *category) tasks.push_back(&t);
    }
    if (*json) {
      nlohmann::json a = nlohmann::json::array();
      for (const Task* t : tasks) a.push_back(task_json(*t));
      std::cout << a.dump(2) << "\n";
      return;
    }
    size_t w = 4;
    for (const Task* t : tasks) w = std::max(w, t->name.size());
    std::cout << fmt::format("{:<{}} {:<14} {:<9} {:>6} {:>10} {:>10}  {}\n", "TASK", w, "CATEGORY", "DOMAIN", "STAGES",
                             "MFLOP", "KB", "PATTERN");
    for (const Task* t : tasks) {
      Figures f = compute_figures(*t->program);
      std::cout << fmt::format("{:<{}} {:<14} {:<9} {:>6} {:>10.3f} {:>10.1f}  {}\n", t->name, w, t->category, t->domain,
                               f.stages, f.flops / 1e6, static_cast<double>(f.bytes) / 1024.0, t->pattern);
    }
    std::cout << fmt::format("{} workload(s)\n", tasks.size());
  });
}

}  // namespace ekb::cli
