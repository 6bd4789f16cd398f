// Model turns, asked or replayed (model_turns.h).
#include "agent/model_turns.h"

namespace ekb::agent {

LlmRequestRecord request_record(const std::string& task, int sample, int turn, const std::string& prompt_version,
                                const llm::EndpointConfig& endpoint, const std::vector<llm::ChatMessage>& messages,
                                const llm::ChatReply& reply, const CodeLanguage& lang, ReplyCode* code) {
  LlmRequestRecord r;
  r.task = task;
  r.sample = sample;
  r.turn = turn;
  r.prompt_version = prompt_version;
  r.model = endpoint.model;
  r.endpoint = endpoint.describe();
  for (const auto& m : messages) r.messages.push_back({{"role", m.role}, {"content", m.content}});
  r.reply = reply.content;
  r.finish_reason = reply.finish_reason;
  r.prompt_tokens = reply.usage.prompt_tokens;
  r.completion_tokens = reply.usage.completion_tokens;
  r.cost = reply.cost;
  r.latency_s = reply.latency_s;
  r.http_attempts = reply.attempts;
  r.http_status = reply.http_status;
  if (!reply.ok()) {
    r.failure = llm::call_failure_name(reply.failure);
    r.error = reply.error;
    return r;
  }
  ReplyCode c = extract_code(reply.content, lang);
  r.code_status = reply_code_status_name(c.status);
  r.error = c.message;
  if (code) *code = std::move(c);
  return r;
}

ModelTurns::Turn ModelTurns::ask(int turn, const std::vector<llm::ChatMessage>& messages) {
  Turn t;
  if (auto r = store_.llm_request(run_, task_, 0, turn)) {
    t.record = *r;
    t.stored = true;
    if (r->failure.empty()) t.code = extract_code(r->reply, lang_);
    return t;
  }
  llm::ChatReply reply = client_.complete(messages);
  if (reply.failure == llm::CallFailure::budget) {
    t.refused = true;
    t.refusal = reply.error;
    return t;
  }
  t.record = request_record(task_, 0, turn, version_, client_.config(), messages, reply, lang_, &t.code);
  const LlmRequestRecord& r = t.record;
  store_.put_llm_request(run_, r);
  return t;
}

}  // namespace ekb::agent
