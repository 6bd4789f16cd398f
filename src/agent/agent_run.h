// LEKA over a set of tasks, as `ekb agent` and the main job run it: for each task a search from its
// default schedule on the device profile's target, every measurement through the harness, every step
// stored in the results store as it is measured (a run killed at any moment resumes: the stored
// steps replay and the search goes on), the best program written as DIR/TASK.ekb — a submission
// directory that `ekb eval DIR` re-scores independently — and stored as the run's attempt.
#pragma once
#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

#include "agent/llm/chat_client.h"
#include "agent/llm_policy.h"
#include "agent/prompts/prompt_templates.h"
#include "agent/search.h"
#include "harness/device_profiles.h"
#include "harness/evaluate.h"
#include "harness/results_store.h"
#include "suite/suite.h"

namespace ekb::agent {

// Who proposes the revisions: the built-in search, or a language model (llm_policy.h).
enum class Policy { search, llm };
const char* policy_name(Policy p);    // "search", "llm"
Policy parse_policy(const std::string& name);  // throws naming the policies

// What the llm policy needs: the endpoint, its prices, the prompt templates, the run's budget of
// requests, tokens or cost, and what the model writes (ir: LEKA's layered loop; raw: the free-form loop).
struct LlmAgentSetup {
  llm::EndpointConfig endpoint;
  llm::PriceTable prices;
  const PromptTemplates* templates = nullptr;
  llm::Budget::Limits budget;
  CodeMode mode = CodeMode::ir;
  std::function<void(llm::ChatClient&)> configure_client;  // tests: the client's sleeper
};

struct AgentOptions {
  Policy policy = Policy::search;
  SearchOptions search;
  std::string out_dir;  // where the best programs go (created)
  Timing timing = Timing::cold;  // how the harness times every measurement (timing_regime.h)
  const LlmAgentSetup* llm = nullptr;  // Policy::llm: required
};

// The harness options of the search's own measurements: every check, and timing rounds until the
// speedup's interval is within +-5% or a short cap (the final scores come from `ekb eval`'s protocol).
EvalOptions search_eval_options(const EvalOptions& base);

// What one task's search left.
struct TaskOutcome {
  std::string task, path;
  AttemptRecord best;   // the best program's measurement (its outcome, speedup and interval)
  int steps = 0, illegal = 0, candidates = 0;
  std::string stopped;  // "budget", "time limit", "converged", "stored" (done in an earlier session), "token budget"
  // (llm: the model's budget refused a request; the run stops there, unfinished, and resumes from that step)
};

// Runs the agent on `tasks` under `key` (an unfinished run with the same key is resumed).
// `on_task` hears about each task when it ends; `on_step` about each step.
RunInfo run_agent(const std::vector<const Task*>& tasks, const DeviceProfile& dev, const AgentOptions& o, ResultsStore& store,
                  const nlohmann::json& key, const std::function<void(const TaskOutcome&)>& on_task = {},
                  const std::function<void(const std::string& task, const Step&)>& on_step = {});

}  // namespace ekb::agent
