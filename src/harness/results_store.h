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

// The version of the store's schema this ekb writes (PRAGMA user_version; results_store.cpp lists
// what each version added). Opening an older store upgrades it in place; a newer one is refused.
inline constexpr int kResultsStoreSchema = 12;

struct AttemptRecord {
  std::string task;
  int sample = 0;
  std::string candidate_path, candidate_hash;
  // The version of the task it was made on: the suite's VERSION and the task's hash (suite/task_hash.h);
  // both "" for an attempt stored before ekb recorded them (schema 7 and older).
  std::string suite_version, task_hash;
  // What both sides ran: XXH3 of the candidate's translation unit (or why it could not be built) and
  // the baseline's, as ekb built them for the device (eval/evaluator.h); "" when stored before schema 9.
  // A resumed run makes again an attempt whose code ekb would now build differently.
  std::string build_hash;
  Evaluation eval;
};

// One step of an agent's search (agent/search.h), as stored: the program it measured and how.
struct StepRecord {
  std::string task;
  int step = 0;
  std::string layer, action, program, program_hash;
  std::string task_hash;  // the task it searched (suite/task_hash.h); "" when stored before schema 8
  double predicted_ms = 0;
  bool accepted = false;
  Evaluation eval;
};

// One request to a language model (direct generation, or a turn of an LLM agent), as stored: what
// was sent, what came back, what it cost, and what became of its code. Never the endpoint's key.
struct LlmRequestRecord {
  std::string task;
  int sample = 0, turn = 0;  // generation: the sample, turn 0; an agent: sample 0, its turns in order
  std::string prompt_version, model, endpoint;
  nlohmann::json messages = nlohmann::json::array();  // [{"role", "content"}] as sent
  std::string reply, finish_reason;
  int64_t prompt_tokens = 0, completion_tokens = 0;
  double cost = 0, latency_s = 0;
  int http_attempts = 0, http_status = 0;
  std::string failure, error;  // the call's failure ("" when a reply came), and its message
  std::string code_status;     // what the reply's code was: "ok", "no code", "wrong language" ("" without a reply)
  std::string file, file_hash; // the submission file its code became, and the hash of its text
  std::string created;
};

// What a run's requests have spent so far (a resumed run's budget starts from it).
struct LlmSpend {
  int64_t requests = 0, prompt_tokens = 0, completion_tokens = 0;
  double cost = 0;
};

// A machine's measured rates for a device profile as stored: GFLOP/s, GB/s, when (UTC text; empty
// when setting: now), and the other figures as a JSON object (peak_rates.h reads them).
struct StoredPeaks {
  double gflops = 0, gbps = 0;
  std::string measured, figures = "{}";
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
  // The task hash a stored attempt was made on: nullopt when there is none, "" when it was stored
  // before task hashes were recorded.
  std::optional<std::string> attempt_task_hash(int64_t run, const std::string& task, int sample);
  // The build hash of a stored attempt (AttemptRecord::build_hash): nullopt when there is none, ""
  // when it was stored before build hashes were recorded.
  std::optional<std::string> attempt_build_hash(int64_t run, const std::string& task, int sample);
  // Removes a stored attempt (one made on another version of its task, to be made again).
  void forget_attempt(int64_t run, const std::string& task, int sample);
  // How the stored attempt ended, if there is one.
  std::optional<Outcome> attempt_outcome(int64_t run, const std::string& task, int sample);
  void add_attempt(int64_t run, const AttemptRecord& a);  // one transaction

  // Peak rates measured on `machine` for a device profile (peak_rates.h).
  std::optional<StoredPeaks> peaks(const std::string& machine, const std::string& device);
  void set_peaks(const std::string& machine, const std::string& device, const StoredPeaks& p);

  std::vector<RunInfo> runs();
  std::optional<RunInfo> run(int64_t id);
  std::vector<AttemptRecord> attempts(int64_t run);
  // The newest attempt at `task` on `device` that timed the baseline: its run and the baseline's times.
  std::optional<std::pair<int64_t, TimingStats>> newest_baseline(const std::string& task, const std::string& device);

  // An agent's trajectory: each step in its own transaction (a step of the same index replaces the
  // one before), read back in order.
  void put_step(int64_t run, const StepRecord& s);
  std::vector<StepRecord> steps(int64_t run, const std::string& task);
  void forget_steps(int64_t run, const std::string& task, int from);
  std::vector<std::string> step_tasks(int64_t run);

  // Requests to language models (results_store_llm.cpp): each in its own transaction as it ends (a
  // request of the same run, task, sample and turn replaces the one before), read back in order.
  void put_llm_request(int64_t run, const LlmRequestRecord& r);
  std::vector<LlmRequestRecord> llm_requests(int64_t run);
  std::optional<LlmRequestRecord> llm_request(int64_t run, const std::string& task, int sample, int turn);
  LlmSpend llm_spend(int64_t run);

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  void exec(const std::string& sql);
  void create_llm_tables();
};

}  // namespace ekb
