// The same-budget comparison (`ekb compare RUN...`): direct generation, the free-form coding loop,
// LEKA with a language model and LEKA with its search, side by side over one set of tasks (the agent
// subset), each with Compile@1, Correct@1, Fast@1.0 strict and significant, the geomean speedup,
// and what it spent: requests, tokens, cost, measurements. A generation is scored by the newest
// `ekb eval` run over its directory (its samples matched by task, sample and the hash of their
// code); an agent run by such an eval run when there is one (an independent re-score), else by its
// own measurements. What is compared is said, never guessed: a generation not yet scored is an error
// naming the command that scores it.
#pragma once
#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

#include "harness/metrics.h"
#include "harness/results_store.h"

namespace ekb::agent {

struct ComparedRun {
  int64_t run = 0;
  std::string label;       // "direct generation (ir)", "free-form (raw)", "LEKA-LLM (ir)", "LEKA-search", "eval"
  std::string model;       // "" for the search
  std::string device, scored_by;  // scored_by: "eval run N" or "its own measurements"
  int tasks = 0, samples = 0, unscored = 0;
  Metrics metrics;
  LlmSpend spend;
  int measurements = 0;    // agent runs: steps measured
  std::set<std::string> task_names;
};

// What a run is, from its key: "direct generation (ir)", "free-form (raw)", "LEKA-LLM (ir)",
// "LEKA-search", "main job (LEKA-search)", "main job (re-score)", "eval", "eval (default schedules)".
std::string run_label(const nlohmann::json& key);

// `runs` of `store`, over the tasks in `tasks` (empty: every task of each run).
std::vector<ComparedRun> compare_runs(ResultsStore& store, const std::vector<int64_t>& runs, const std::set<std::string>& tasks);
nlohmann::json compared_json(const ComparedRun& c);

}  // namespace ekb::agent
