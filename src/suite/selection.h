// Choosing tasks of the suite by what they are: category, domain, pattern, model graph or single
// operator, and named subset (what `ekb list` filters by). Every filter given must hold (AND); a
// name that matches nothing the suite knows is an error naming the known ones, never an empty list.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "suite/suite.h"

namespace ekb {

// A model graph (category `model`: several operators of a network end to end) or a single operator
// (every other category).
enum class TaskKind { graph, single };
TaskKind task_kind(const Task& t);
const char* task_kind_name(TaskKind k);  // "graph", "single"

struct TaskFilter {
  std::optional<std::string> category, domain, pattern, subset;
  std::optional<TaskKind> kind;
};

// The tasks passing every filter: in the subset's order with --subset, else the suite's. Throws for
// an unknown category, domain, pattern or subset.
std::vector<const Task*> filter_tasks(const Suite& s, const TaskFilter& f);

}  // namespace ekb
