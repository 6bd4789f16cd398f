// The main job, what `ekb run` does on its defaults: LEKA's search on one task of every category with
// a small budget, then the programs it found re-scored independently through `ekb eval`'s protocol
// (a fresh run over the submission directory it wrote, full timing, intervals), so the speedups
// reported are not the search's own, optimistic, measurements.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "agent/agent_run.h"
#include "harness/results_store.h"
#include "suite/suite.h"

namespace ekb::agent {

struct MainJobOptions {
  AgentOptions agent;  // out_dir: where the programs go; timing: of the search and the re-scoring
};

struct MainJobResult {
  RunInfo agent_run, eval_run;
  std::vector<TaskOutcome> searched;   // per task, in order
  std::vector<AttemptRecord> rescored; // the eval run's attempts
};

// Tasks: the first of every category, in suite order.
std::vector<const Task*> one_task_per_category(const Suite& suite);

MainJobResult run_main_job(const Suite& suite, const std::vector<const Task*>& tasks, const DeviceProfile& dev,
                           const MainJobOptions& o, ResultsStore& store, const nlohmann::json& key,
                           const std::function<void(const TaskOutcome&)>& on_task = {});

}  // namespace ekb::agent
