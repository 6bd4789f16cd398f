// LEKA's LLM policy and the free-form mode beside it. The layered loop (IR): from the task's
// default program, turn by turn a model sees the best program so far, the one layer it may revise
// (L0 compute, then L1 schedule, then L2 memory; back to L1 and L2 while turns remain), its earlier
// attempts at that layer and the harness's feedback on the last program measured, and returns a
// revised program; only what the layer may change is taken from it, the harness checks and times it,
// and it becomes the best only when correct and faster beyond the timing's noise. The free-form
// loop (raw): a model writes raw source (C, CUDA C, OpenCL C) from the task alone, then revises it
// with the same feedback and budget — the "general coding agent" of the same-budget comparison.
// Every turn's request and reply is stored (ModelTurns) and every step (StepLog), so a killed run
// replays what was stored without asking or measuring it again.
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "agent/llm_feedback.h"
#include "agent/model_turns.h"
#include "agent/prompts/task_prompt.h"
#include "agent/search.h"

namespace ekb::agent {

struct LlmLoopOptions {
  int budget = 8;            // measurements per task: the start (IR), each turn's program, and the confirmation
  double time_limit_s = 0;   // wall time per task (0: none), checked between turns
  int stall = 2;             // a layer hands over after this many turns without a gain
  bool confirm = true;       // the best measured once more with full timing, as the search does
};

struct LlmTaskContext {
  const Task* task = nullptr;
  DeviceProfile dev;
  Roofline roof;
  std::optional<StoredBaseline> baseline;
  const PromptTemplates* templates = nullptr;
};

// The program a reply revising `layer` of `current` stands for: from the reply only what the layer
// may change (L0: the kernel, with the reply's sections or none; L1: the schedule; L2: the memory
// section and the schedule of the stages memory directives create); the rest is `current`'s. `note`
// says what of the reply was left out. A reply that does not parse is returned as written (the
// harness then reports its errors).
AgentProgram merge_revision(const AgentProgram& current, const std::string& code, AgentLayer layer, std::string* note);

// The layered loop for one task from `start`. Returns the best program and why it stopped ("budget",
// "time limit", "converged", "token budget": the model's budget refused a request).
SearchResult llm_layered_loop(const LlmTaskContext& c, const AgentProgram& start, Measurer& m, ModelTurns& turns, StepLog* log,
                              const LlmLoopOptions& o, const std::function<void(const Step&)>& progress = {});

// What the free-form loop leaves: the best correct source (else the last one measured), its
// measurement, the steps taken.
struct RawLoopResult {
  std::string best_source;
  Evaluation best_eval;
  int steps = 0;
  std::string stopped;
};
// Measures raw source for the task (a Submission of the backend's raw kind, through the harness).
using RawMeasure = std::function<Evaluation(const std::string& source, bool full)>;
RawLoopResult llm_raw_loop(const LlmTaskContext& c, const RawMeasure& measure, ModelTurns& turns, ResultsStore& store, int64_t run,
                           const LlmLoopOptions& o, const std::function<void(const StepRecord&)>& progress = {});

}  // namespace ekb::agent
