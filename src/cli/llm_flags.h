// The flags every command that asks a language model shares (`ekb generate`, and the LLM policies of
// `ekb agent`): where the endpoint is, which model, the key's file, the prices, the prompts, the
// budget, and how requests behave. One definition, so that every mode is configured and budgeted
// the same way for the same-budget comparison.
#pragma once
#include <CLI/CLI.hpp>

#include <string>

#include "agent/llm/chat_client.h"

namespace ekb::cli {

struct LlmFlags {
  std::string endpoint, model, key_file, prices, prompts;
  int64_t budget_requests = 0, budget_tokens = 0;
  double budget_cost = 0;
  int concurrency = 4, max_tokens = 4096, retries = 4;
  double temperature = 0.7, timeout_s = 300;
};

void add_llm_flags(CLI::App* cmd, LlmFlags& f);
// The endpoint the flags and the environment name (llm::resolve_endpoint), with the flags' settings.
llm::EndpointConfig endpoint_from(const LlmFlags& f);
llm::Budget::Limits budget_from(const LlmFlags& f);
// The price table the flags name; a model it has no price for is said on stderr (its cost counts 0).
llm::PriceTable prices_for(const LlmFlags& f, const std::string& model);

}  // namespace ekb::cli
