// Task selection (selection.h).
#include "suite/selection.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "util/strings.h"

namespace ekb {

TaskKind task_kind(const Task& t) { return t.category == "model" ? TaskKind::graph : TaskKind::single; }

const char* task_kind_name(TaskKind k) { return k == TaskKind::graph ? "graph" : "single"; }

namespace {

void require_known(const char* what, const std::string& name, const std::vector<std::string>& known) {
  if (std::find(known.begin(), known.end(), name) != known.end()) return;
  std::string near = closest_match(name, known);
  throw std::runtime_error(fmt::format("unknown {} `{}`{}; {}s: {}", what, name,
                                       near.empty() ? "" : fmt::format(" (did you mean `{}`?)", near), what,
                                       fmt::join(known, ", ")));
}

}  // namespace

std::vector<const Task*> filter_tasks(const Suite& s, const TaskFilter& f) {
  if (f.category) require_known("category", *f.category, known_categories());
  if (f.domain) require_known("domain", *f.domain, known_domains());
  if (f.pattern) {
    std::vector<std::string> patterns;
    for (const auto& t : s.tasks())
      if (std::find(patterns.begin(), patterns.end(), t.pattern) == patterns.end()) patterns.push_back(t.pattern);
    if (std::find(patterns.begin(), patterns.end(), *f.pattern) == patterns.end()) {
      std::string near = closest_match(*f.pattern, patterns);
      throw std::runtime_error(fmt::format("the suite has no pattern `{}`{}; `ekb list` shows each task's pattern", *f.pattern,
                                           near.empty() ? "" : fmt::format(" (did you mean `{}`?)", near)));
    }
  }
  std::vector<const Task*> from;
  if (f.subset) from = s.subset(*f.subset);
  else
    for (const auto& t : s.tasks()) from.push_back(&t);
  std::vector<const Task*> out;
  for (const Task* t : from) {
    if (f.category && t->category != *f.category) continue;
    if (f.domain && t->domain != *f.domain) continue;
    if (f.pattern && t->pattern != *f.pattern) continue;
    if (f.kind && task_kind(*t) != *f.kind) continue;
    out.push_back(t);
  }
  return out;
}

}  // namespace ekb
