// Suite counts (suite_stats.h).
#include "suite/suite_stats.h"

#include <functional>
#include <set>

#include "ir/program.h"

namespace ekb {

namespace {

Counts count(const std::vector<const Task*>& tasks, const std::function<bool(const Task&)>& in_group) {
  Counts c;
  std::set<std::string> patterns;
  for (const Task* t : tasks)
    if (in_group(*t)) {
      ++c.workloads;
      patterns.insert(t->pattern);
    }
  c.patterns = static_cast<int>(patterns.size());
  return c;
}

std::vector<std::pair<std::string, Counts>> by(const std::vector<const Task*>& tasks, const std::vector<std::string>& names,
                                               std::string Task::*field) {
  std::vector<std::pair<std::string, Counts>> out;
  for (const auto& n : names) {
    Counts c = count(tasks, [&](const Task& t) { return t.*field == n; });
    if (c.workloads) out.push_back({n, c});
  }
  return out;
}

}  // namespace

SuiteStats suite_stats(const std::vector<const Task*>& tasks) {
  SuiteStats s;
  s.total = count(tasks, [](const Task&) { return true; });
  s.categories = by(tasks, known_categories(), &Task::category);
  s.domains = by(tasks, known_domains(), &Task::domain);
  s.graph = count(tasks, [](const Task& t) { return task_kind(t) == TaskKind::graph; });
  s.single = count(tasks, [](const Task& t) { return task_kind(t) == TaskKind::single; });
  return s;
}

}  // namespace ekb
