// The HTML report's data, built from the results store and the suite: the runs (run_summary.h),
// what a reader follows from each attempt — the task's text, the candidate's code (found by the
// hash stored with the attempt: an agent's step, a model's reply, the suite's own text, or the file
// when it still holds that code; else why it is not shown) and the search that made it — and what
// the plots draw: Fast@p over p, the metrics pooled per backend and per device profile.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "agent/trajectory.h"
#include "report/run_summary.h"

namespace ekb::report {

struct TaskEntry {
  std::string name, category, domain;
  std::string text;          // the current suite's text ("" when the suite has no such task)
  std::string current_hash;  // its task hash (suite/task_hash.h)
};

// Where a candidate's code shown in the report comes from.
enum class ProgramSource { agent_step, model_reply, suite_task, file, missing };

struct CandidateProgram {
  ProgramSource source = ProgramSource::missing;
  std::string text;    // the code (for suite_task: the task's own text)
  std::string origin;  // where it was found, or (missing) why it is not shown
};

using RunTask = std::pair<int64_t, std::string>;
using TaskCode = std::pair<std::string, std::string>;  // (task, candidate hash)

struct ReportData {
  std::string store_path, generated;  // generated: UTC time
  std::string suite_dir, suite_version;
  bool suite_loaded = false;
  RunSelection selection;
  std::map<std::string, TaskEntry> tasks;               // every task of the selected runs' attempts
  std::map<TaskCode, CandidateProgram> programs;        // every attempt's candidate
  std::map<RunTask, agent::Trajectory> trajectories;    // searches of the selected agent runs and of the runs eval runs score
  std::map<int64_t, std::vector<FastPoint>> fast_curves;  // per run: Fast@p at every p where it changes
  std::vector<GroupMetrics> by_backend, by_device;      // metrics over the attempts of every selected run of a backend, a device profile
};

// The points where a run's Fast@p (strict or significant) changes: 0, each correct attempt's
// speedup and its interval's lower bound, and a last point past the largest.
std::vector<double> fast_curve_points(const std::vector<AttemptRecord>& attempts);

// The candidate's code for attempt `a`, from the steps and replies indexed in `found` ((task, hash)
// -> code), the current suite, or the file named with the attempt (when its text still has the
// attempt's hash).
CandidateProgram resolve_program(const AttemptRecord& a, const std::map<TaskCode, CandidateProgram>& found, const Suite* suite);

// The agent run whose search made the attempts of `run` at `task`: the run itself when it is an
// agent's, else the run it scores (an eval run over an agent's output); nothing when neither searched.
std::optional<int64_t> search_of(const ReportData& d, const RunSummary& run, const std::string& task);

ReportData build_report_data(ResultsStore& store, const std::string& store_path, const std::vector<int64_t>& ids,
                             const Suite* suite);

}  // namespace ekb::report
