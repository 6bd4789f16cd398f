// The results store: one SQLite file (WAL), holding runs (with the arguments that define them and a
// snapshot of the environment) and one row per attempt (task, sample) with its outcome and every
// timed call. An attempt is written in its own transaction when it ends, so a run killed at any
// moment loses at most the attempt in flight; started again with the same arguments it continues the
// same run, skipping what is stored, and nothing is counted twice (the key is (run, task, sample)).
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <tuple>
#include <string>
#include <vector>

#include "harness/evaluate.h"

struct sqlite3;

namespace ekb {

struct AttemptRecord {
  std::string task;
  int sample = 0;
  std::string candidate_path, candidate_hash;
  Evaluation eval;
};

// One step of an agent's search (agent/search.h), as stored: the program it measured and how.
struct StepRecord {
  std::string task;
  int step = 0;
  std::string layer, action, program, program_hash;
  double predicted_ms = 0;
  bool accepted = false;
  Evaluation eval;
};

struct RunInfo {
  int64_t id = 0;
  std::string created, key, backend, device;
  nlohmann::json env;
  bool finished = false;
};

class ResultsStore {
 public:
  // Opens (creating) the file; a file that is not an ekb results store is an error naming it, and is
  // left as it is.
  explicit ResultsStore(const std::string& path);
  ~ResultsStore();
  ResultsStore(const ResultsStore&) = delete;
  ResultsStore& operator=(const ResultsStore&) = delete;

  // The unfinished run with this key (the canonical arguments), or a new one.
  RunInfo open_run(const std::string& key, const std::string& backend, const std::string& device, const nlohmann::json& env);
  void finish_run(int64_t run);
  bool has_attempt(int64_t run, const std::string& task, int sample);
  void add_attempt(int64_t run, const AttemptRecord& a);  // one transaction

  // Peak rates measured on `machine` for a device profile (peak_rates.h): GFLOP/s, GB/s, when.
  std::optional<std::tuple<double, double, std::string>> peaks(const std::string& machine, const std::string& device);
  void set_peaks(const std::string& machine, const std::string& device, double gflops, double gbps);

  std::vector<RunInfo> runs();
  std::optional<RunInfo> run(int64_t id);
  std::vector<AttemptRecord> attempts(int64_t run);

  // An agent's trajectory: each step in its own transaction (a step of the same index replaces the
  // one before), read back in order.
  void put_step(int64_t run, const StepRecord& s);
  std::vector<StepRecord> steps(int64_t run, const std::string& task);
  void forget_steps(int64_t run, const std::string& task, int from);
  std::vector<std::string> step_tasks(int64_t run);

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  void exec(const std::string& sql);
};

}  // namespace ekb
