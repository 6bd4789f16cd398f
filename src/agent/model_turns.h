// One turn of a conversation with a model, as LEKA's LLM policies take it: the request sent through
// the client (budgeted), the reply stored in the results store as it comes (llm_requests, keyed by
// run, task and turn), and on a resumed run the stored reply replayed instead of asking again.
#pragma once
#include <mutex>
#include <string>
#include <vector>

#include "agent/llm/chat_client.h"
#include "agent/prompts/reply_code.h"
#include "harness/results_store.h"

namespace ekb::agent {

// The stored record of one request: what was sent, what came back (its tokens, cost, latency, or
// its failure) and what the reply's code was (`code`, when a reply came).
LlmRequestRecord request_record(const std::string& task, int sample, int turn, const std::string& prompt_version,
                                const llm::EndpointConfig& endpoint, const std::vector<llm::ChatMessage>& messages,
                                const llm::ChatReply& reply, const CodeLanguage& lang, ReplyCode* code);

class ModelTurns {
 public:
  ModelTurns(llm::ChatClient& client, ResultsStore& store, int64_t run, std::string task, std::string prompt_version, CodeLanguage lang)
      : client_(client), store_(store), run_(run), task_(std::move(task)), version_(std::move(prompt_version)), lang_(std::move(lang)) {}

  struct Turn {
    LlmRequestRecord record;  // what was sent and what came back (stored)
    ReplyCode code;           // the reply's code, when a reply came
    bool stored = false;      // replayed from an earlier session
    bool refused = false;     // the budget refused the request: nothing was sent or stored
    std::string refusal;
  };
  // Turn `turn` (the step it becomes): stored, or asked now and stored before it is returned.
  Turn ask(int turn, const std::vector<llm::ChatMessage>& messages);

 private:
  llm::ChatClient& client_;
  ResultsStore& store_;
  int64_t run_;
  std::string task_, version_;
  CodeLanguage lang_;
};

}  // namespace ekb::agent
