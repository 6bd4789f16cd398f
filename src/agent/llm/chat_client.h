// An OpenAI-compatible chat-completions client: how the llm policy asks a language model for a
// program. HTTPS through libcurl; timeouts; retries with exponential backoff and jitter on 429, 5xx,
// connection errors and timeouts, honouring Retry-After; a concurrency limit; token and cost
// accounting; a hard budget. It never throws for anything the endpoint does, and the key appears in
// no message it makes.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "agent/llm/endpoint_config.h"
#include "agent/llm/llm_budget.h"
#include "agent/llm/prices.h"

namespace ekb::llm {

struct ChatMessage {
  std::string role;  // "system" | "user" | "assistant"
  std::string content;
};

enum class CallFailure {
  none,
  http_error,         // a 4xx other than 429: not retried
  retries_exhausted,  // 429/5xx kept failing
  timeout,            // the request took longer than request_timeout_s (every try)
  connection,         // no connection, or it broke
  bad_reply,          // not JSON, truncated, no choices/content
  too_large,          // the reply passed max_reply_bytes
  budget              // the budget refused the request: nothing was sent
};
// "none", "http error", "retries exhausted", "timeout", "connection", "bad reply", "too large", "budget"
const char* call_failure_name(CallFailure);

struct ChatReply {
  bool ok() const { return failure == CallFailure::none; }
  CallFailure failure = CallFailure::none;
  std::string error;          // for a person: what failed, with the HTTP status and a short excerpt of the body (<= 300 chars); never the key
  std::string content;        // choices[0].message.content
  std::string finish_reason;  // choices[0].finish_reason ("stop", "length", ...)
  Usage usage;                // from the replies' "usage" (0 when absent), summed over the tries that had one
  double cost = 0;            // from the price table (0 for a model not in it)
  double latency_s = 0;       // wall time of the whole call, retries and backoff waits included (not a wait for a concurrency slot)
  int attempts = 0;           // HTTP requests made (0 when the budget refused)
  int http_status = 0;        // the last one (0 when none came)
  std::string response_id;    // the reply's "id" if any
};

class ChatClient {
 public:
  ChatClient(EndpointConfig c, PriceTable prices, Budget* budget /*may be null: no limit*/);
  ChatClient(const ChatClient&) = delete;
  ChatClient& operator=(const ChatClient&) = delete;

  // One chat completion: reserves from the budget (refused: failure budget, nothing sent), POSTs
  // {"model","messages","max_tokens","temperature"} with "Authorization: Bearer KEY" when a key is
  // set, retries as configured, parses the reply, settles the budget. The reservation is the prompt's
  // bytes / 3 plus max_tokens tokens, at the model's price. Thread-safe; at most `concurrency`
  // requests in flight (a caller past that waits for a slot; a slot is held through backoff waits).
  ChatReply complete(const std::vector<ChatMessage>& messages);
  const EndpointConfig& config() const { return config_; }
  // For tests: the wait between retries goes through this (default: std::this_thread::sleep_for).
  // Set it before calls start.
  void set_sleeper(std::function<void(double seconds)> s);

 private:
  struct Attempt;
  void acquire_slot();
  void release_slot();
  Attempt post(void* curl_handle) const;
  // Judges one try into `r`: the wait before the next try, or a negative number when there is none
  // (done, or a failure that another try would not mend).
  double judge(const Attempt& a, int try_index, ChatReply& r) const;
  double backoff(int try_index, double retry_after) const;
  void run_tries(const std::string& body, ChatReply& r) const;
  std::string scrub(std::string text) const;  // the key, wherever a server echoed it, replaced

  EndpointConfig config_;
  PriceTable prices_;
  Budget* budget_;
  std::function<void(double)> sleeper_;
  std::mutex slots_mu_;
  std::condition_variable slots_cv_;
  int in_flight_ = 0;
};

}  // namespace ekb::llm
