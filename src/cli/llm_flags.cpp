// The language-model flags (llm_flags.h).
#include "cli/llm_flags.h"

#include <fmt/format.h>

#include <iostream>

namespace ekb::cli {

void add_llm_flags(CLI::App* cmd, LlmFlags& f) {
  cmd->add_option("--model", f.model, "the model's name at the endpoint (default: $EKB_LLM_MODEL)")->option_text("M");
  cmd->add_option("--endpoint", f.endpoint,
                  "an OpenAI-compatible API's base URL, e.g. https://api.openai.com/v1 or http://127.0.0.1:8000/v1 for a local "
                  "vLLM or llama.cpp server (default: $EKB_LLM_ENDPOINT, else $OPENAI_BASE_URL)")
      ->option_text("URL");
  cmd->add_option("--key-file", f.key_file,
                  "a file holding the API key (default: $EKB_LLM_API_KEY_FILE, else the key in $EKB_LLM_API_KEY or $OPENAI_API_KEY; "
                  "none for a local server). The key is never stored, logged or printed")
      ->option_text("FILE");
  cmd->add_option("--prices", f.prices, "the price table, dollars per million tokens by model (default: $EKB_LLM_PRICES, else "
                                        "config/llm_prices.json)")
      ->option_text("FILE");
  cmd->add_option("--prompts", f.prompts, "the prompt templates (default: $EKB_PROMPTS, else prompts/)")->option_text("DIR");
  cmd->add_option("--budget-requests", f.budget_requests, "stop before more requests than this, for the whole run (0: no limit)")
      ->option_text("N")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--budget-tokens", f.budget_tokens,
                  "stop before a request that could take the run past this many tokens, prompt and reply (0: no limit)")
      ->option_text("N")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--budget-cost", f.budget_cost, "stop before a request that could take the run past this many dollars (0: no limit)")
      ->option_text("USD")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--concurrency", f.concurrency, "requests in flight at once (default 4)")->option_text("N")->check(CLI::PositiveNumber);
  cmd->add_option("--max-tokens", f.max_tokens, "the reply's token limit sent with each request (default 4096)")
      ->option_text("N")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--temperature", f.temperature, "sampling temperature (default 0.7)")->option_text("T")->check(CLI::NonNegativeNumber);
  cmd->add_option("--timeout", f.timeout_s, "seconds one request may take (default 300)")->option_text("S")->check(CLI::PositiveNumber);
  cmd->add_option("--retries", f.retries, "retries of a request on 429, 5xx, timeouts and connection errors, with exponential "
                                          "backoff and jitter, honouring Retry-After (default 4)")
      ->option_text("N")
      ->check(CLI::NonNegativeNumber);
}

llm::EndpointConfig endpoint_from(const LlmFlags& f) {
  llm::EndpointConfig c = llm::resolve_endpoint(f.endpoint, f.model, f.key_file);
  c.concurrency = f.concurrency;
  c.max_tokens = f.max_tokens;
  c.temperature = f.temperature;
  c.request_timeout_s = f.timeout_s;
  c.max_retries = f.retries;
  return c;
}

llm::Budget::Limits budget_from(const LlmFlags& f) { return {f.budget_requests, f.budget_tokens, f.budget_cost}; }

}  // namespace ekb::cli

namespace ekb::cli {

llm::PriceTable prices_for(const LlmFlags& f, const std::string& model) {
  std::string path = llm::default_prices_path(f.prices);
  llm::PriceTable t = llm::load_prices(path);
  if (!t.find(model))
    std::cerr << fmt::format("ekb: warning: {} has no price for model `{}`: its cost counts as 0 (add it to the table)\n", path, model);
  return t;
}

}  // namespace ekb::cli
