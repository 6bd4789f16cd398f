// The deterministic split of work into shards (`--shard I/N` of `ekb eval`, `ekb agent` and `ekb
// generate`, and one array task each under `ekb slurm submit`): the task names in sorted order, the
// I-th of every N (interleaved, so that shards are balanced whatever the order of the selection), a
// task's samples always in the same shard as the task. One rule for every command.
#pragma once
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ekb {

struct Task;

struct Shard {
  int index = 1, count = 1;  // 1 <= index <= count
  std::string text() const;  // "I/N"
};

// Parses "I/N" (1 <= I <= N); throws std::invalid_argument saying what is wrong.
Shard parse_shard_text(const std::string& text);
// The same, as (I, N).
std::pair<int, int> parse_shard(const std::string& text);

// The names of `tasks` (duplicates counted once) that fall in `shard`.
std::set<std::string> shard_tasks(std::vector<std::string> tasks, const Shard& shard);

// Keeps the tasks of `shard` among `tasks`, in their order.
void keep_shard(std::vector<const Task*>& tasks, const Shard& shard);

}  // namespace ekb
