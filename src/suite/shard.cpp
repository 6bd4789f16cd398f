// The split of tasks into shards (shard.h).
#include "suite/shard.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "suite/suite.h"

namespace ekb {

std::string Shard::text() const { return std::to_string(index) + "/" + std::to_string(count); }

Shard parse_shard_text(const std::string& text) {
  int i = 0, n = 0;
  char slash = 0, extra = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%c", &i, &slash, &n, &extra) != 3 || slash != '/' || n < 1 || i < 1 || i > n)
    throw std::invalid_argument("--shard `" + text + "`: write I/N with 1 <= I <= N, e.g. 2/4 for the second of four parts");
  return {i, n};
}

std::pair<int, int> parse_shard(const std::string& text) {
  Shard s = parse_shard_text(text);
  return {s.index, s.count};
}

std::set<std::string> shard_tasks(std::vector<std::string> tasks, const Shard& shard) {
  std::sort(tasks.begin(), tasks.end());
  tasks.erase(std::unique(tasks.begin(), tasks.end()), tasks.end());
  std::set<std::string> keep;
  for (size_t k = 0; k < tasks.size(); ++k)
    if (static_cast<int>(k % static_cast<size_t>(shard.count)) == shard.index - 1) keep.insert(tasks[k]);
  return keep;
}

void keep_shard(std::vector<const Task*>& tasks, const Shard& shard) {
  std::vector<std::string> names;
  for (const Task* t : tasks) names.push_back(t->name);
  std::set<std::string> keep = shard_tasks(std::move(names), shard);
  std::erase_if(tasks, [&](const Task* t) { return !keep.count(t->name); });
}

}  // namespace ekb
