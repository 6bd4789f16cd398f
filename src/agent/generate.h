// Direct generation (`ekb generate`): one request per (task, sample), the code taken from the
// reply's fenced block and written as DIR/TASK.sN.EXT, a submission directory that `ekb eval DIR`
// scores. Every request is stored as it ends — prompt, reply, tokens, cost, latency — before its
// file is written, so a run killed at any moment resumes without asking anything twice (a request
// whose reply had not arrived is asked again: nothing of it was received). Samples that gave no code
// are listed in DIR/ekb_generation.json, so that `ekb eval DIR` counts them as failed attempts.
#pragma once
#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "agent/llm/chat_client.h"
#include "agent/prompts/task_prompt.h"
#include "harness/device_profiles.h"
#include "harness/results_store.h"
#include "suite/suite.h"

namespace ekb::agent {

struct GenerateOptions {
  CodeMode mode = CodeMode::ir;
  int samples = 1;
  std::string out_dir;
  bool retry_failed = false;  // ask again the samples whose request failed (no reply) in an earlier session
  llm::Budget::Limits budget;
};

// What became of one sample.
struct GeneratedSample {
  LlmRequestRecord request;
  bool stored = false;  // answered in an earlier session (not asked again)
};

struct GenerateSummary {
  RunInfo run;
  int asked = 0, stored = 0, with_code = 0;
  std::map<std::string, int> failures;  // outcome name ("no code", "wrong language", "no reply") -> samples
  LlmSpend spent;  // the whole run's, stored sessions included
  bool budget_stopped = false;  // the budget refused a request: the run is left unfinished, to resume
  std::string budget_reason;
};

// The file name of a sample's code: TASK.sN.EXT.
std::string sample_file_name(const std::string& task, int sample, SourceKind kind);

// Runs (or resumes: same key) a generation over `tasks` on `dev`. The endpoint, prices and templates
// come from the caller; the budget's spending starts from what the run has stored.
GenerateSummary run_generation(const std::vector<const Task*>& tasks, const DeviceProfile& dev, const GenerateOptions& o,
                               const PromptTemplates& templates, const llm::EndpointConfig& endpoint, const llm::PriceTable& prices,
                               ResultsStore& store, const nlohmann::json& key,
                               const std::function<void(const GeneratedSample&)>& on_sample = {},
                               const std::function<void(llm::ChatClient&)>& configure_client = {});

}  // namespace ekb::agent
