// A stored run as the report and the leaderboard show it: what it is (its mode, model, backend,
// device, hardware, timing, read from the run's key and environment), its attempts, its metrics
// (harness/metrics.h, computed by compute_metrics as everywhere else), the same metrics per task
// category and domain, the kernels' memory against the device's budget, and the notes that keep it
// honest (quick timing, an unfinished run, noisy intervals, attempts on other task versions).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "eval/task_versions.h"
#include "harness/metrics.h"
#include "harness/results_store.h"
#include "suite/suite.h"

namespace ekb::report {

// The command that made a run (its key's "command").
enum class RunCommand { eval, agent, generate, main_job, other };
RunCommand run_command(const nlohmann::json& key);

struct RunDescription {
  RunCommand command = RunCommand::other;
  std::string label;  // agent::run_label: "LEKA-search", "LEKA-LLM (ir)", "eval", ...
  std::string model;  // the language model ("" for none)
  std::string mode;   // "ir" or "raw" for language-model runs, else ""
  // An eval run over the directory another run wrote (an agent's, a generation's, the main job's
  // search): that run, which this one scores independently.
  std::optional<int64_t> scores_run;
  std::string scores_label;         // that run's label
  std::string hardware;             // the CPU's model (and cores), or the GPU's name
  std::string target, compiler, commit;
  int threads = 0;
  uint64_t memory_budget = 0;       // the kernel's own memory allowed by the device profile (0: unknown)
  bool quick = false;               // `ekb eval --quick`: times from a few calls, a verification
  std::string timing;               // "cold" or "warm"
  std::string board;                // a board's run: the board ("NAME (ARCH)"), else ""
  bool emulated = false;            // on an emulated board: its times are not meaningful (eval/report.h)
};

struct GroupMetrics {
  std::string name;
  Metrics metrics;
};

// The kernels' own memory (AttemptRecord::eval.candidate_memory) against the profile's budget.
struct MemoryUse {
  uint64_t budget = 0, max_bytes = 0, median_bytes = 0;  // over the attempts that measured it
  int measured = 0, over_budget = 0;
};

struct RunSummary {
  RunInfo run;
  RunDescription what;
  std::vector<AttemptRecord> attempts;
  Metrics metrics;
  std::vector<GroupMetrics> by_category, by_domain;  // in name order; "(not in the suite)" for unknown tasks
  MemoryUse memory;
  TaskVersions versions;
  std::vector<std::string> notes;
};

// The category and domain of a task in the current suite ("(not in the suite)" without one).
struct TaskPlace {
  std::string category, domain;
};
TaskPlace task_place(const Suite* suite, const std::string& task);

// Metrics over the attempts grouped by a key of their task (compute_metrics per group).
std::vector<GroupMetrics> metrics_by(const std::vector<AttemptRecord>& attempts,
                                     const std::function<std::string(const std::string& task)>& group_of);

RunDescription describe_run(const RunInfo& run, const std::vector<RunInfo>& all_runs);
RunSummary summarize_run(const RunInfo& run, std::vector<AttemptRecord> attempts, const std::vector<RunInfo>& all_runs,
                         const Suite* suite);

struct RunSelection {
  std::vector<RunSummary> runs;      // in the order asked for (every run: by id)
  std::vector<std::string> skipped;  // runs with no attempts, each with why (a generation is scored by an eval run)
};
// The runs `ids` of `store`, or with none every run that holds attempts. Throws for an id the store
// does not have, and for a store with no runs (each message naming the store at `store_path`).
RunSelection select_runs(ResultsStore& store, const std::string& store_path, const std::vector<int64_t>& ids, const Suite* suite);

}  // namespace ekb::report
