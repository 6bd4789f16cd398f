// The results store's requests to language models (results_store.h: LlmRequestRecord): prompts,
// replies, tokens, cost and latency per request, so that a generation or an LLM agent resumes
// without asking anything twice and its spending is counted from what is stored.
#include "harness/results_store.h"
#include "harness/sqlite_stmt.h"

namespace ekb {

namespace {

constexpr const char* kColumns =
    "task, sample, turn, prompt_version, model, endpoint, messages, reply, finish_reason, prompt_tokens, completion_tokens, cost, "
    "latency_s, http_attempts, http_status, failure, error, code_status, file, file_hash, created";

LlmRequestRecord read_request(const Stmt& s) {
  LlmRequestRecord r;
  r.task = s.text(0);
  r.sample = static_cast<int>(s.integer(1));
  r.turn = static_cast<int>(s.integer(2));
  r.prompt_version = s.text(3);
  r.model = s.text(4);
  r.endpoint = s.text(5);
  r.messages = nlohmann::json::parse(s.text(6), nullptr, false);
  if (r.messages.is_discarded()) r.messages = nlohmann::json::array();
  r.reply = s.text(7);
  r.finish_reason = s.text(8);
  r.prompt_tokens = s.integer(9);
  r.completion_tokens = s.integer(10);
  r.cost = s.real(11);
  r.latency_s = s.real(12);
  r.http_attempts = static_cast<int>(s.integer(13));
  r.http_status = static_cast<int>(s.integer(14));
  r.failure = s.text(15);
  r.error = s.text(16);
  r.code_status = s.text(17);
  r.file = s.text(18);
  r.file_hash = s.text(19);
  r.created = s.text(20);
  return r;
}

}  // namespace

void ResultsStore::create_llm_tables() {
  exec("CREATE TABLE IF NOT EXISTS llm_requests (run INTEGER NOT NULL REFERENCES runs(id), task TEXT NOT NULL, "
       "sample INTEGER NOT NULL, turn INTEGER NOT NULL, prompt_version TEXT NOT NULL, model TEXT NOT NULL, endpoint TEXT NOT NULL, "
       "messages TEXT NOT NULL, reply TEXT NOT NULL, finish_reason TEXT NOT NULL, prompt_tokens INTEGER NOT NULL, "
       "completion_tokens INTEGER NOT NULL, cost REAL NOT NULL, latency_s REAL NOT NULL, http_attempts INTEGER NOT NULL, "
       "http_status INTEGER NOT NULL, failure TEXT NOT NULL, error TEXT NOT NULL, code_status TEXT NOT NULL, file TEXT NOT NULL, "
       "file_hash TEXT NOT NULL, created TEXT NOT NULL, PRIMARY KEY (run, task, sample, turn))");
}

void ResultsStore::put_llm_request(int64_t run, const LlmRequestRecord& r) {
  Stmt s(db_, std::string("INSERT OR REPLACE INTO llm_requests (run, ") + kColumns +
                  ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, run).bind(2, r.task).bind(3, r.sample).bind(4, r.turn).bind(5, r.prompt_version).bind(6, r.model).bind(7, r.endpoint);
  s.bind(8, r.messages.dump()).bind(9, r.reply).bind(10, r.finish_reason).bind(11, r.prompt_tokens).bind(12, r.completion_tokens);
  s.bind(13, r.cost).bind(14, r.latency_s).bind(15, r.http_attempts).bind(16, r.http_status).bind(17, r.failure).bind(18, r.error);
  s.bind(19, r.code_status).bind(20, r.file).bind(21, r.file_hash).bind(22, r.created.empty() ? now_utc() : r.created);
  s.step();
}

std::vector<LlmRequestRecord> ResultsStore::llm_requests(int64_t run) {
  Stmt s(db_, std::string("SELECT ") + kColumns + " FROM llm_requests WHERE run = ? ORDER BY task, sample, turn");
  s.bind(1, run);
  std::vector<LlmRequestRecord> out;
  while (s.step()) out.push_back(read_request(s));
  return out;
}

std::optional<LlmRequestRecord> ResultsStore::llm_request(int64_t run, const std::string& task, int sample, int turn) {
  Stmt s(db_, std::string("SELECT ") + kColumns + " FROM llm_requests WHERE run = ? AND task = ? AND sample = ? AND turn = ?");
  s.bind(1, run).bind(2, task).bind(3, sample).bind(4, turn);
  if (!s.step()) return std::nullopt;
  return read_request(s);
}

LlmSpend ResultsStore::llm_spend(int64_t run) {
  Stmt s(db_, "SELECT count(*), coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0), coalesce(sum(cost), 0) "
              "FROM llm_requests WHERE run = ?");
  s.bind(1, run);
  LlmSpend sp;
  if (s.step()) {
    sp.requests = s.integer(0);
    sp.prompt_tokens = s.integer(1);
    sp.completion_tokens = s.integer(2);
    sp.cost = s.real(3);
  }
  return sp;
}

}  // namespace ekb
