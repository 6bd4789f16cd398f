// What a model is given for a task: the messages of a prompt, made from the templates (prompts/)
// and the task, the backend, the device profile's limits and budget, and the baseline's time when
// the results store has one. `ekb prompt` prints exactly these messages; `ekb generate` and the
// LLM policies send them.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "agent/llm/chat_client.h"
#include "agent/prompts/prompt_templates.h"
#include "harness/device_profiles.h"
#include "harness/results_store.h"
#include "harness/submissions.h"
#include "suite/suite.h"

namespace ekb::agent {

// What a model writes: a program in ekb's IR, or raw source for the backend (C, CUDA C, OpenCL C).
enum class CodeMode { ir, raw };
const char* code_mode_name(CodeMode m);  // "ir", "raw"
CodeMode parse_code_mode(const std::string& name);  // throws naming the modes

// The language a reply's code must be in for `mode` on `backend`: the fence tag asked for, the
// other tags taken as the same language, and the kind of submission file it becomes.
struct CodeLanguage {
  const char* name;                 // "the ekb IR", "C", "CUDA C", "OpenCL C"
  const char* fence;                // "ekb", "c", "cuda", "opencl"
  std::vector<std::string> aliases; // fence tags also taken ("C", "cu", "cl", ...)
  SourceKind kind;
};
CodeLanguage code_language(CodeMode mode, Backend backend);

// The baseline's time for a task on a device, from the newest run in the store that timed it.
struct StoredBaseline {
  double ms = 0;
  int64_t run = 0;
  std::string timing;  // "cold" or "warm"
};
std::optional<StoredBaseline> stored_baseline(ResultsStore& store, const std::string& task, const std::string& device);

struct PromptContext {
  const Task* task = nullptr;
  CodeMode mode = CodeMode::ir;
  DeviceProfile device;                  // its backend is the prompt's
  std::optional<StoredBaseline> baseline;
};

struct Prompt {
  std::vector<llm::ChatMessage> messages;  // system, then user
  std::string version;                     // the template set's (PromptTemplates::version)
  std::string template_name;               // the user message's template ("generate_ir", ...)
};

// The device's facts a model needs: its target (ISA and vector width, threads; a GPU's per-block
// limits) and the memory budget of the kernel's own allocations.
std::string device_facts(const DeviceProfile& d);

// The prompt of a direct generation (one request, one program).
Prompt generation_prompt(const PromptTemplates& t, const PromptContext& c);

// The text the vars `task_text`, `abi`, `device_facts`, `baseline` take (for templates of later turns).
std::string task_abi_text(const Task& task, Backend backend);
std::string baseline_text(const std::optional<StoredBaseline>& b);

}  // namespace ekb::agent
