// Where language-model requests go and how they behave (timeouts, retries, concurrency, limits),
// resolved from command-line flags over the environment. The key is read from the environment or a
// file, and is never printed, logged, stored or put in an error message: describe() omits it.
#pragma once
#include <cstdint>
#include <string>

namespace ekb::llm {

struct EndpointConfig {
  std::string base_url;  // e.g. "https://api.openai.com/v1" or "http://127.0.0.1:8000/v1"; POST {base_url}/chat/completions
  std::string model;
  std::string api_key;  // may be empty (a local server); NEVER printed, logged, stored or put in an exception message
  double connect_timeout_s = 10;
  double request_timeout_s = 300;  // the whole request: a hanging server ends as a timeout
  int max_retries = 4;             // retries after the first try, on 429, 5xx, connection errors and timeouts
  // The wait before retry k (k = 0, 1, ...) is drawn uniformly from [0, min(backoff_max_s,
  // backoff_initial_s * 2^k)] ("full jitter"). A 429 or 5xx reply's Retry-After (seconds, or an HTTP
  // date) replaces it, capped at backoff_max_s (a server asking for longer gets backoff_max_s, and the
  // retry may be refused again).
  double backoff_initial_s = 1, backoff_max_s = 60;
  int concurrency = 4;                   // requests in flight at once through one client
  int max_tokens = 4096;                 // sent as max_tokens
  double temperature = 0.7;
  uint64_t max_reply_bytes = 4u << 20;  // a larger reply body is refused (failure too_large); reading stops there

  // A short description for logs and stores: base URL (without any user:password@) and model, never the key.
  std::string describe() const;
};

// The base URL without a "user:password@" part (for messages: it may carry a credential).
std::string redacted_url(const std::string& url);

// Resolves the config: flag values (empty = unset) over the environment: EKB_LLM_ENDPOINT (else
// OPENAI_BASE_URL), EKB_LLM_MODEL; the key from the file named by `key_file_flag` or
// $EKB_LLM_API_KEY_FILE, else $EKB_LLM_API_KEY, else $OPENAI_API_KEY. A key file's surrounding
// whitespace (its trailing newline) is stripped, and a trailing '/' of the base URL. Errors
// (std::runtime_error) name what is missing and how to set it: no endpoint, no model, an unreadable
// or empty key file (its path, never its contents).
EndpointConfig resolve_endpoint(const std::string& endpoint_flag, const std::string& model_flag,
                                const std::string& key_file_flag);

}  // namespace ekb::llm
