// The OpenAI-compatible chat-completions client (chat_client.h): one libcurl easy handle per call,
// tries judged one by one (done, retry after a wait, or fail), the budget reserved before and settled
// after.
#include "agent/llm/chat_client.h"

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <ctime>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

namespace ekb::llm {

const char* call_failure_name(CallFailure f) {
  switch (f) {
    case CallFailure::none: return "none";
    case CallFailure::http_error: return "http error";
    case CallFailure::retries_exhausted: return "retries exhausted";
    case CallFailure::timeout: return "timeout";
    case CallFailure::connection: return "connection";
    case CallFailure::bad_reply: return "bad reply";
    case CallFailure::too_large: return "too large";
    case CallFailure::budget: return "budget";
  }
  return "?";
}

namespace {

constexpr size_t kExcerptChars = 300;

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// What one HTTP request brought back.
struct Received {
  std::string body;
  std::string retry_after;  // the header's value, "" when absent
  uint64_t limit = 0;
  bool too_large = false;
};

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* r = static_cast<Received*>(user);
  size_t bytes = size * n;
  if (r->body.size() + bytes > r->limit) {
    r->too_large = true;
    return 0;  // libcurl aborts the transfer (CURLE_WRITE_ERROR)
  }
  r->body.append(data, bytes);
  return bytes;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* r = static_cast<Received*>(user);
  std::string_view line(data, size * n);
  constexpr std::string_view name = "retry-after:";
  if (line.size() > name.size() &&
      std::equal(name.begin(), name.end(), line.begin(), [](char a, char b) { return a == std::tolower(b); })) {
    std::string_view v = line.substr(name.size());
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
    r->retry_after = std::string(v);
  }
  if (line.starts_with("HTTP/")) r->retry_after.clear();  // a new response (after a 100 Continue) starts
  return size * n;
}

// Seconds a Retry-After value asks for (delta-seconds or an HTTP date); negative when unreadable.
double retry_after_seconds(const std::string& v) {
  if (v.empty()) return -1;
  char* end = nullptr;
  double s = std::strtod(v.c_str(), &end);
  if (end && *end == '\0' && std::isfinite(s)) return std::max(0.0, s);
  time_t when = curl_getdate(v.c_str(), nullptr);
  if (when == -1) return -1;
  return std::max(0.0, std::difftime(when, std::time(nullptr)));
}

double full_jitter(double bound) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return bound <= 0 ? 0 : std::uniform_real_distribution<double>(0, bound)(rng);
}

bool transient(CURLcode c) {
  switch (c) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

// At most kExcerptChars of a body, on one line, cut at a UTF-8 character boundary.
std::string excerpt(const std::string& body) {
  if (body.empty()) return "(empty body)";
  size_t n = std::min(body.size(), kExcerptChars);
  while (n < body.size() && n > 0 && (static_cast<unsigned char>(body[n]) & 0xC0) == 0x80) --n;
  std::string e = body.substr(0, n);
  for (char& ch : e)
    if (static_cast<unsigned char>(ch) < 0x20) ch = ' ';
  if (n < body.size()) e += fmt::format("... ({} bytes in all)", body.size());
  return e;
}

int64_t int_field(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<int64_t>() : 0;
}

// The text of a message's content: a string, or an array of parts with "text".
bool content_text(const nlohmann::json& c, std::string* out) {
  if (c.is_string()) {
    *out = c.get<std::string>();
    return true;
  }
  if (!c.is_array()) return false;
  out->clear();
  for (const auto& part : c)
    if (part.is_object() && part.contains("text") && part["text"].is_string()) *out += part["text"].get<std::string>();
  return true;
}

// Reads a 200 reply into `r` (usage added to r.usage when present); "" when it is a usable completion,
// else what is wrong with it.
std::string parse_completion(const std::string& body, ChatReply& r) {
  auto j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return "the reply is not JSON (truncated?)";
  if (!j.is_object()) return "the reply is not a JSON object";
  if (auto u = j.find("usage"); u != j.end() && u->is_object())
    r.usage += Usage{int_field(*u, "prompt_tokens"), int_field(*u, "completion_tokens")};
  if (auto id = j.find("id"); id != j.end() && id->is_string()) r.response_id = id->get<std::string>();
  if (auto e = j.find("error"); e != j.end() && !e->is_null()) return "the endpoint reported an error";
  auto choices = j.find("choices");
  if (choices == j.end() || !choices->is_array() || choices->empty()) return "the reply has no choices";
  const auto& choice = (*choices)[0];
  if (!choice.is_object()) return "the reply's first choice is not an object";
  if (auto f = choice.find("finish_reason"); f != choice.end() && f->is_string()) r.finish_reason = f->get<std::string>();
  auto msg = choice.find("message");
  if (msg == choice.end() || !msg->is_object() || !msg->contains("content") ||
      !content_text((*msg)["content"], &r.content))
    return fmt::format("the reply's first choice has no message content (finish_reason \"{}\")", r.finish_reason);
  return "";
}

using EasyHandle = std::unique_ptr<CURL, decltype(&curl_easy_cleanup)>;
using HeaderList = std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)>;

}  // namespace

// One try: libcurl's result, the HTTP status and what came back.
struct ChatClient::Attempt {
  CURLcode code = CURLE_OK;
  long status = 0;
  Received received;
  std::string curl_error;
};

ChatClient::ChatClient(EndpointConfig c, PriceTable prices, Budget* budget)
    : config_(std::move(c)), prices_(std::move(prices)), budget_(budget) {
  init_curl_once();
  config_.concurrency = std::max(1, config_.concurrency);
  config_.max_retries = std::max(0, config_.max_retries);
  sleeper_ = [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };
}

void ChatClient::set_sleeper(std::function<void(double seconds)> s) { sleeper_ = std::move(s); }

void ChatClient::acquire_slot() {
  std::unique_lock lock(slots_mu_);
  slots_cv_.wait(lock, [&] { return in_flight_ < config_.concurrency; });
  ++in_flight_;
}

void ChatClient::release_slot() {
  {
    std::lock_guard lock(slots_mu_);
    --in_flight_;
  }
  slots_cv_.notify_one();
}

std::string ChatClient::scrub(std::string text) const {
  const std::string& key = config_.api_key;
  if (key.empty()) return text;
  for (size_t at; (at = text.find(key)) != std::string::npos;) text.replace(at, key.size(), "[the API key]");
  return text;
}

namespace {

// The easy handle for one call, set up for POSTing `body` (which must outlive it) to `url`.
EasyHandle make_handle(const EndpointConfig& c, const std::string& url, const std::string& body, curl_slist* headers) {
  EasyHandle h(curl_easy_init(), &curl_easy_cleanup);
  if (!h) return h;
  CURL* e = h.get();
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_POST, 1L);
  curl_easy_setopt(e, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(e, CURLOPT_USERAGENT, "ekb");
  curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::max(1.0, c.connect_timeout_s * 1000)));
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(std::max(1.0, c.request_timeout_s * 1000)));
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
  return h;
}

}  // namespace

ChatClient::Attempt ChatClient::post(void* handle) const {
  Attempt a;
  a.received.limit = config_.max_reply_bytes;
  char errbuf[CURL_ERROR_SIZE] = {0};
  CURL* e = static_cast<CURL*>(handle);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &a.received);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, &a.received);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
  a.code = curl_easy_perform(e);
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &a.status);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, nullptr);
  a.curl_error = errbuf[0] ? errbuf : curl_easy_strerror(a.code);
  return a;
}

double ChatClient::judge(const Attempt& a, int try_index, ChatReply& r) const {
  const EndpointConfig& c = config_;
  r.http_status = static_cast<int>(a.status);
  if (a.received.too_large) {
    r.failure = CallFailure::too_large;
    r.error = fmt::format("the reply passed max_reply_bytes ({} bytes); reading stopped there", c.max_reply_bytes);
    return -1;
  }
  if (a.code != CURLE_OK) {
    bool timeout = a.code == CURLE_OPERATION_TIMEDOUT;
    r.failure = timeout ? CallFailure::timeout : CallFailure::connection;
    r.error = timeout ? fmt::format("no complete reply within request_timeout_s = {} s ({})", c.request_timeout_s, a.curl_error)
                      : fmt::format("connection failed: {}", a.curl_error);
    return transient(a.code) ? backoff(try_index, -1) : -1;
  }
  if (a.status >= 200 && a.status < 300) {
    std::string wrong = parse_completion(a.received.body, r);
    r.failure = wrong.empty() ? CallFailure::none : CallFailure::bad_reply;
    r.error = wrong.empty() ? "" : fmt::format("{} (HTTP {}): {}", wrong, a.status, excerpt(scrub(a.received.body)));
    return -1;
  }
  if (a.status == 429 || a.status >= 500) {
    r.failure = CallFailure::retries_exhausted;
    r.error = fmt::format("HTTP {}: {}", a.status, excerpt(scrub(a.received.body)));
    return backoff(try_index, retry_after_seconds(a.received.retry_after));
  }
  r.failure = CallFailure::http_error;
  r.error = fmt::format("HTTP {} (not retried): {}", a.status, excerpt(scrub(a.received.body)));
  return -1;
}

double ChatClient::backoff(int try_index, double retry_after) const {
  if (retry_after >= 0) return std::min(retry_after, config_.backoff_max_s);
  double bound = config_.backoff_initial_s * std::pow(2.0, std::min(try_index, 60));
  return full_jitter(std::min(bound, config_.backoff_max_s));
}

void ChatClient::run_tries(const std::string& body, ChatReply& r) const {
  HeaderList headers(nullptr, &curl_slist_free_all);
  auto add = [&](const std::string& h) { headers.reset(curl_slist_append(headers.release(), h.c_str())); };
  add("Content-Type: application/json");
  add("Accept: application/json");
  add("Expect:");  // no 100-continue round trip
  if (!config_.api_key.empty()) add("Authorization: Bearer " + config_.api_key);
  std::string url = config_.base_url + "/chat/completions";
  EasyHandle h = make_handle(config_, url, body, headers.get());
  if (!h || !headers) {
    r.failure = CallFailure::connection;
    r.error = "libcurl could not set up a request";
    return;
  }
  for (int i = 0;; ++i) {
    Attempt a = post(h.get());
    ++r.attempts;
    double wait = judge(a, i, r);
    if (wait < 0 || i >= config_.max_retries) break;
    sleeper_(wait);
  }
  if (!r.ok() && r.attempts > 1) r.error += fmt::format(" (the last of {} attempts)", r.attempts);
}

ChatReply ChatClient::complete(const std::vector<ChatMessage>& messages) {
  ChatReply r;
  acquire_slot();
  struct Release {
    ChatClient* c;
    ~Release() { c->release_slot(); }
  } release{this};
  auto start = std::chrono::steady_clock::now();

  nlohmann::json msgs = nlohmann::json::array();
  int64_t prompt_bytes = 0;
  for (const auto& m : messages) {
    msgs.push_back({{"role", m.role}, {"content", m.content}});
    prompt_bytes += static_cast<int64_t>(m.content.size());
  }
  nlohmann::json request = {{"model", config_.model}, {"messages", std::move(msgs)},
                            {"max_tokens", config_.max_tokens}, {"temperature", config_.temperature}};
  std::string body = request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);

  Usage estimate{prompt_bytes / 3, config_.max_tokens};
  int64_t reserve_tokens = estimate.total();
  double reserve_cost = prices_.cost(config_.model, estimate);
  std::string why;
  if (budget_ && !budget_->try_reserve(reserve_tokens, reserve_cost, &why)) {
    r.failure = CallFailure::budget;
    r.error = fmt::format("chat completion ({}): not sent: {}", config_.describe(), why);
  } else {
    run_tries(body, r);
    r.cost = prices_.cost(config_.model, r.usage);
    if (budget_) budget_->settle(reserve_tokens, reserve_cost, r.usage, r.cost);
    if (!r.ok()) r.error = scrub(fmt::format("chat completion ({}): {}", config_.describe(), r.error));
  }
  r.latency_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace ekb::llm
