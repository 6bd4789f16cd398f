// The OpenAI-compatible chat-completions client (src/agent/llm/) against ekb-scripted-llm, a server
// on 127.0.0.1 that replays canned replies: normal replies, 429 with Retry-After, 5xx, 4xx, truncated
// JSON, a hanging connection, an enormous reply, a refused connection; the budget, the concurrency
// limit, the key never printed; and the endpoint config and price table alone.
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include "scripted_server.h"
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "agent/llm/chat_client.h"

extern char** environ;

namespace ekb::llm {
namespace {

using test::ScriptedServer;
using test::TempDir;

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kKey = "sk-ekb-test-DO-NOT-PRINT-7f3a9c";

// A port on 127.0.0.1 that nothing listens on (bound, then released).
int unused_port() {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(s);
  return ntohs(a.sin_port);
}

PriceTable test_prices() {
  PriceTable t;
  t.models["scripted"] = {1.0, 2.0};
  return t;
}

std::vector<ChatMessage> prompt(const std::string& user = "Make this kernel faster.") {
  return {{"system", "You write ekb programs."}, {"user", user}};
}

class LlmClientTest : public ::testing::Test {
 protected:
  void SetUp() override { EKB_SKIP_WITHOUT_SCRIPTED_SERVER(); }
  // Starts a server with `script` and returns a config for it: short timeouts, the test key.
  EndpointConfig serve(const json& script) {
    server_ = std::make_unique<ScriptedServer>(dir_, script);
    EXPECT_TRUE(server_->ready()) << "ekb-scripted-llm did not start (" << EKB_SCRIPTED_LLM << ")";
    return config_for(server_->base_url());
  }
  static EndpointConfig config_for(const std::string& base_url) {
    EndpointConfig c;
    c.base_url = base_url;
    c.model = "scripted";
    c.api_key = kKey;
    c.connect_timeout_s = 1;
    c.request_timeout_s = 2;
    c.max_retries = 4;
    c.backoff_initial_s = 0.25;
    c.backoff_max_s = 100;
    c.max_tokens = 100;
    return c;
  }
  // A client whose backoff waits are recorded in waits_, not slept.
  std::unique_ptr<ChatClient> client(const EndpointConfig& c, Budget* budget = nullptr) {
    auto cl = std::make_unique<ChatClient>(c, test_prices(), budget);
    cl->set_sleeper([this](double s) {
      std::lock_guard lock(waits_mu_);
      waits_.push_back(s);
    });
    return cl;
  }
  void TearDown() override {
    if (server_) server_->stop();
  }

  TempDir dir_;
  std::unique_ptr<ScriptedServer> server_;
  std::mutex waits_mu_;  // calls from several threads may retry at once
  std::vector<double> waits_;
};

TEST_F(LlmClientTest, NormalReplyIsParsedPricedAndSentWithTheKey) {
  auto c = serve({{"replies",
                   {{{"content", "hello there"}, {"prompt_tokens", 1000}, {"completion_tokens", 500}, {"finish_reason", "length"}}}}});
  ChatReply r = client(c)->complete(prompt());
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.content, "hello there");
  EXPECT_EQ(r.finish_reason, "length");
  EXPECT_EQ(r.usage.prompt_tokens, 1000);
  EXPECT_EQ(r.usage.completion_tokens, 500);
  EXPECT_EQ(r.usage.total(), 1500);
  EXPECT_NEAR(r.cost, (1000 * 1.0 + 500 * 2.0) / 1e6, 1e-12);
  EXPECT_GT(r.latency_s, 0);
  EXPECT_EQ(r.attempts, 1);
  EXPECT_EQ(r.http_status, 200);
  EXPECT_EQ(r.response_id, "scripted-1");
  EXPECT_TRUE(waits_.empty());

  auto reqs = server_->requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0]["path"], "/v1/chat/completions");
  EXPECT_TRUE(reqs[0]["authorization_present"].get<bool>());
  EXPECT_EQ(reqs[0]["authorization"], std::string("Bearer ") + kKey);
  const json& body = reqs[0]["body"];
  EXPECT_EQ(body["model"], "scripted");
  EXPECT_EQ(body["max_tokens"], 100);
  EXPECT_NEAR(body["temperature"].get<double>(), 0.7, 1e-9);
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0], json({{"role", "system"}, {"content", "You write ekb programs."}}));
  EXPECT_EQ(body["messages"][1], json({{"role", "user"}, {"content", "Make this kernel faster."}}));
}

TEST_F(LlmClientTest, NoKeyMeansNoAuthorizationHeader) {
  auto c = serve({{"replies", {{{"content", "ok"}}}}});
  c.api_key.clear();
  ASSERT_TRUE(client(c)->complete(prompt()).ok());
  auto reqs = server_->requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_FALSE(reqs[0]["authorization_present"].get<bool>());
}

TEST_F(LlmClientTest, RetryAfterIsHonoured) {
  auto c = serve({{"replies", {{{"status", 429}, {"headers", {{"Retry-After", "2"}}}}, {{"content", "ok"}}}}});
  ChatReply r = client(c)->complete(prompt());
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.content, "ok");
  EXPECT_EQ(r.attempts, 2);
  ASSERT_EQ(waits_.size(), 1u);
  EXPECT_DOUBLE_EQ(waits_[0], 2.0);
  EXPECT_EQ(server_->requests().size(), 2u);
}

TEST_F(LlmClientTest, RetryAfterAsDateAndCappedAtBackoffMax) {
  char date[64];
  std::time_t in_30s = std::time(nullptr) + 30;
  std::strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", std::gmtime(&in_30s));
  auto c = serve({{"replies",
                   {{{"status", 503}, {"headers", {{"Retry-After", date}}}},
                    {{"status", 429}, {"headers", {{"Retry-After", "120"}}}},
                    {{"content", "ok"}}}}});
  c.backoff_max_s = 45;
  ChatReply r = client(c)->complete(prompt());
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(waits_.size(), 2u);
  EXPECT_GE(waits_[0], 27);  // the date, 30 s from when the script was written
  EXPECT_LE(waits_[0], 30);
  EXPECT_DOUBLE_EQ(waits_[1], 45);  // 120 asked, capped
}

TEST_F(LlmClientTest, ServerErrorsBackOffExponentiallyWithJitter) {
  auto c = serve({{"replies", {{{"status", 500}}, {{"status", 502}}, {{"status", 503}}, {{"content", "finally"}}}}});
  c.backoff_initial_s = 0.25;
  c.backoff_max_s = 0.75;
  ChatReply r = client(c)->complete(prompt());
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.content, "finally");
  EXPECT_EQ(r.attempts, 4);
  ASSERT_EQ(waits_.size(), 3u);
  const double bounds[] = {0.25, 0.5, 0.75};  // initial * 2^k, capped at backoff_max_s
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_GE(waits_[k], 0) << "wait " << k;
    EXPECT_LE(waits_[k], bounds[k]) << "wait " << k;
  }
  // Full jitter draws each wait at random: three equal waits would mean no jitter.
  EXPECT_FALSE(waits_[0] == waits_[1] && waits_[1] == waits_[2]);
}

TEST_F(LlmClientTest, PersistentServerErrorExhaustsRetries) {
  auto c = serve({{"replies", json::array()}, {"default", {{"status", 500}, {"body", R"({"error":{"message":"boom"}})"}}}});
  c.max_retries = 3;
  ChatReply r = client(c)->complete(prompt());
  EXPECT_EQ(r.failure, CallFailure::retries_exhausted);
  EXPECT_STREQ(call_failure_name(r.failure), "retries exhausted");
  EXPECT_EQ(r.attempts, 4);
  EXPECT_EQ(r.http_status, 500);
  EXPECT_NE(r.error.find("HTTP 500"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("boom"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("4 attempts"), std::string::npos) << r.error;
  EXPECT_EQ(waits_.size(), 3u);
  EXPECT_EQ(server_->requests().size(), 4u);
}

TEST_F(LlmClientTest, ClientErrorIsNotRetriedAndItsExcerptIsShort) {
  auto c = serve({{"replies",
                   {{{"status", 400}, {"body", R"({"error":{"message":"unknown model 'scripted'"}})"}},
                    {{"status", 422}, {"body", std::string(2000, 'q')}}}},
                  {"default", {{"content", "should not be reached"}}}});
  auto cl = client(c);
  ChatReply r = cl->complete(prompt());
  EXPECT_EQ(r.failure, CallFailure::http_error);
  EXPECT_EQ(r.attempts, 1);
  EXPECT_EQ(r.http_status, 400);
  EXPECT_NE(r.error.find("HTTP 400"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("unknown model 'scripted'"), std::string::npos) << r.error;
  EXPECT_TRUE(waits_.empty());

  ChatReply big = cl->complete(prompt());
  EXPECT_EQ(big.failure, CallFailure::http_error);
  EXPECT_EQ(big.http_status, 422);
  EXPECT_EQ(std::count(big.error.begin(), big.error.end(), 'q'), 300) << big.error;
  EXPECT_NE(big.error.find("2000 bytes"), std::string::npos) << big.error;
  EXPECT_EQ(server_->requests().size(), 2u);
}

TEST_F(LlmClientTest, TruncatedOrChoicelessJsonIsABadReply) {
  auto c = serve({{"replies",
                   {{{"raw_body", R"({"id":"t","choices":[{"message":{"content":"hel)"}},
                    {{"raw_body", R"({"id":"u","usage":{"prompt_tokens":7,"completion_tokens":3}})"}}}},
                  {"default", {{"content", "should not be reached"}}}});
  auto cl = client(c);
  ChatReply truncated = cl->complete(prompt());
  EXPECT_EQ(truncated.failure, CallFailure::bad_reply);
  EXPECT_EQ(truncated.attempts, 1);
  EXPECT_NE(truncated.error.find("not JSON"), std::string::npos) << truncated.error;

  ChatReply no_choices = cl->complete(prompt());
  EXPECT_EQ(no_choices.failure, CallFailure::bad_reply);
  EXPECT_NE(no_choices.error.find("no choices"), std::string::npos) << no_choices.error;
  EXPECT_EQ(no_choices.usage.total(), 10);  // what it reported is still counted
  EXPECT_NEAR(no_choices.cost, (7 * 1.0 + 3 * 2.0) / 1e6, 1e-12);
  EXPECT_EQ(server_->requests().size(), 2u);
}

TEST_F(LlmClientTest, HangingServerTimesOut) {
  auto c = serve({{"replies", {{{"hang", true}}}}});
  c.request_timeout_s = 1;
  c.max_retries = 0;
  ChatReply r = client(c)->complete(prompt());
  EXPECT_EQ(r.failure, CallFailure::timeout);
  EXPECT_EQ(r.attempts, 1);
  EXPECT_GE(r.latency_s, 0.9);
  EXPECT_LE(r.latency_s, 3.0);
  EXPECT_NE(r.error.find("request_timeout_s"), std::string::npos) << r.error;
}

TEST_F(LlmClientTest, EnormousReplyIsRefused) {
  auto c = serve({{"replies", {{{"huge_bytes", 5 << 20}}}}, {"default", {{"content", "should not be reached"}}}});
  c.max_reply_bytes = 1 << 20;
  ChatReply r = client(c)->complete(prompt());
  EXPECT_EQ(r.failure, CallFailure::too_large);
  EXPECT_EQ(r.attempts, 1);
  EXPECT_TRUE(r.content.empty());
  EXPECT_NE(r.error.find("max_reply_bytes"), std::string::npos) << r.error;
}

TEST_F(LlmClientTest, RefusedConnectionFailsAfterRetries) {
  auto c = config_for("http://127.0.0.1:" + std::to_string(unused_port()) + "/v1");
  c.max_retries = 2;
  ChatReply r = client(c)->complete(prompt());
  EXPECT_EQ(r.failure, CallFailure::connection);
  EXPECT_EQ(r.attempts, 3);
  EXPECT_EQ(r.http_status, 0);
  EXPECT_EQ(waits_.size(), 2u);
  EXPECT_NE(r.error.find("connection failed"), std::string::npos) << r.error;
}

TEST_F(LlmClientTest, RequestBudgetStopsTheThirdCall) {
  auto c = serve({{"replies", json::array()}, {"default", {{"content", "ok"}}}});
  Budget budget({.requests = 2});
  auto cl = client(c, &budget);
  EXPECT_TRUE(cl->complete(prompt()).ok());
  EXPECT_TRUE(cl->complete(prompt()).ok());
  ChatReply third = cl->complete(prompt());
  EXPECT_EQ(third.failure, CallFailure::budget);
  EXPECT_EQ(third.attempts, 0);
  EXPECT_NE(third.error.find("budget of 2 requests"), std::string::npos) << third.error;
  EXPECT_EQ(server_->requests().size(), 2u);
  EXPECT_EQ(budget.requests(), 2);
  EXPECT_TRUE(budget.exhausted());
  EXPECT_GT(budget.tokens().total(), 0);
  EXPECT_GT(budget.cost(), 0);
}

TEST_F(LlmClientTest, TokenBudgetRefusesAReservationThatWouldPassIt) {
  auto c = serve({{"replies", json::array()}, {"default", {{"content", "ok"}, {"prompt_tokens", 20}, {"completion_tokens", 30}}}});
  c.max_tokens = 1000;
  Budget budget({.tokens = 1500});
  auto cl = client(c, &budget);
  ChatReply first = cl->complete(prompt());  // reserves ~1000 + prompt/3, uses 50
  ASSERT_TRUE(first.ok()) << first.error;
  EXPECT_EQ(budget.tokens().total(), 50);
  ChatReply second = cl->complete(prompt());  // 50 used + ~1010 reserved: fits
  ASSERT_TRUE(second.ok()) << second.error;
  c.max_tokens = 1450;  // 100 used + 1450 + prompt/3 > 1500
  ChatReply third = client(c, &budget)->complete(prompt());
  EXPECT_EQ(third.failure, CallFailure::budget);
  EXPECT_NE(third.error.find("1500 tokens"), std::string::npos) << third.error;
  EXPECT_EQ(server_->requests().size(), 2u);
  EXPECT_FALSE(budget.exhausted());  // refused by the reservation, not by what is spent
}

TEST_F(LlmClientTest, ResumedBudgetRefusesAtOnce) {
  auto c = serve({{"replies", json::array()}, {"default", {{"content", "ok"}}}});
  Budget budget({.cost = 0.5}, Usage{100000, 200000}, 40, 0.5);  // a resumed run that spent it all
  EXPECT_TRUE(budget.exhausted());
  ChatReply r = client(c, &budget)->complete(prompt());
  EXPECT_EQ(r.failure, CallFailure::budget);
  EXPECT_EQ(r.attempts, 0);
  EXPECT_NE(r.error.find("is spent"), std::string::npos) << r.error;
  EXPECT_TRUE(server_->requests().empty());
  EXPECT_EQ(budget.requests(), 40);
}

TEST_F(LlmClientTest, ConcurrencyLimitHoldsRequestsInFlight) {
  auto c = serve({{"replies", json::array()}, {"default", {{"content", "ok"}, {"delay_ms", 300}}}});
  c.concurrency = 2;
  auto cl = client(c);
  std::vector<ChatReply> replies(6);
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int i = 0; i < 6; ++i) threads.emplace_back([&, i] { replies[i] = cl->complete(prompt()); });
  for (auto& t : threads) t.join();
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& r : replies) EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_GE(elapsed, 0.9);  // 6 calls, 2 at a time, 300 ms each
  auto reqs = server_->requests();
  ASSERT_EQ(reqs.size(), 6u);
  std::vector<double> arrived;
  for (const auto& q : reqs) arrived.push_back(q["t_ms"].get<double>());
  std::sort(arrived.begin(), arrived.end());
  // With at most 2 in flight, request i+2 arrives only after request i or i+1 was answered (300 ms).
  for (size_t i = 0; i + 2 < arrived.size(); ++i)
    EXPECT_GE(arrived[i + 2] - arrived[i], 295) << "requests " << i << " and " << i + 2;
}

TEST_F(LlmClientTest, TheKeyIsNeverPrinted) {
  std::string echoed = std::string(R"({"error":{"message":"Incorrect API key provided: )") + kKey + R"("}})";
  auto c = serve({{"replies",
                   {{{"content", "ok"}},
                    {{"status", 429}, {"headers", {{"Retry-After", "0"}}}, {"body", echoed}},
                    {{"status", 500}, {"body", echoed}},
                    {{"status", 401}, {"body", echoed}},
                    {{"raw_body", echoed.substr(0, echoed.size() - 5)}},
                    {{"raw_body", std::string(R"({"choices":[], "echo": ")") + kKey + "\"}"}},
                    {{"huge_bytes", 200000}},
                    {{"hang", true}}}}});
  c.max_retries = 1;
  c.request_timeout_s = 1;
  c.max_reply_bytes = 100000;
  std::vector<ChatReply> replies;
  testing::internal::CaptureStderr();
  {
    auto cl = client(c);
    for (int i = 0; i < 6; ++i) replies.push_back(cl->complete(prompt()));  // ok, 429+500, 401, truncated, no choices, huge
    c.max_retries = 0;
    replies.push_back(client(c)->complete(prompt()));  // hangs
    c.base_url = "http://user:" + std::string(kKey) + "@127.0.0.1:" + std::to_string(unused_port()) + "/v1";
    replies.push_back(client(c)->complete(prompt()));  // refused, with the key in the URL too
    Budget spent({.requests = 1}, {}, 1);
    replies.push_back(client(c, &spent)->complete(prompt()));
    EXPECT_EQ(client(c)->config().describe().find(kKey), std::string::npos);
  }
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.find(kKey), std::string::npos) << err;
  std::vector<CallFailure> expected = {CallFailure::none,      CallFailure::retries_exhausted, CallFailure::http_error,
                                       CallFailure::bad_reply, CallFailure::bad_reply,         CallFailure::too_large,
                                       CallFailure::timeout,   CallFailure::connection,        CallFailure::budget};
  ASSERT_EQ(replies.size(), expected.size());
  for (size_t i = 0; i < replies.size(); ++i) {
    EXPECT_EQ(replies[i].failure, expected[i]) << i << ": " << replies[i].error;
    EXPECT_EQ(replies[i].error.find(kKey), std::string::npos) << i << ": " << replies[i].error;
    EXPECT_EQ(replies[i].content.find(kKey), std::string::npos) << i;
  }
  EXPECT_NE(replies[2].error.find("Incorrect API key provided: [the API key]"), std::string::npos) << replies[2].error;
  // It was sent, though: the server saw it.
  auto reqs = server_->requests();
  ASSERT_FALSE(reqs.empty());
  EXPECT_EQ(reqs[0]["authorization"], std::string("Bearer ") + kKey);
}

TEST_F(LlmClientTest, ScriptedServerEchoesFencedProgramsAndMatches) {
  auto c = serve({{"replies",
                   {{{"match", "softmax"}, {"content", "the softmax reply"}},
                    {{"echo_fenced", "ekb"}}}},
                  {"default", {{"content", "default"}}}});
  auto cl = client(c);
  ChatReply echoed = cl->complete(prompt("Improve this:\n```ekb\nkernel k\n  out Y : f32[4]\n```\nThanks."));
  ASSERT_TRUE(echoed.ok()) << echoed.error;
  EXPECT_EQ(echoed.content, "```ekb\nkernel k\n  out Y : f32[4]\n```");
  ChatReply matched = cl->complete(prompt("the softmax task"));
  EXPECT_EQ(matched.content, "the softmax reply");
  EXPECT_EQ(cl->complete(prompt("the softmax task")).content, "default");  // consumed
}

TEST_F(LlmClientTest, ScriptedServerMatchesEveryStringOfContainsInALongPrompt) {
  // A free-form turn's prompt shows a whole generated program: hundreds of kilobytes. (The comparison
  // script's regular expression `NAME\n[\s\S]*## The ABI` over such a prompt overflowed the server's
  // stack; `contains` matches plain strings.)
  auto c = serve({{"replies", {{{"contains", {"## The task: sdpa\n", "## The ABI"}}, {"content", "the raw reply"}, {"repeat", 2}}}},
                  {"default", {{"content", "default"}}}});
  auto cl = client(c);
  std::string filler(400000, 'x');
  EXPECT_EQ(cl->complete(prompt("## The task: sdpa\n" + filler + "\n## The ABI\n")).content, "the raw reply");
  EXPECT_EQ(cl->complete(prompt("## The task: sdpa\n" + filler)).content, "default");  // one string missing
  EXPECT_EQ(cl->complete(prompt("## The task: sdpa_kwt\n## The ABI")).content, "default");
  EXPECT_EQ(cl->complete(prompt("## The ABI\n## The task: sdpa\n")).content, "the raw reply");
}

// Sets environment variables for one test and restores them after.
class EnvGuard {
 public:
  void set(const char* name, const char* value) {
    if (!saved_.count(name)) {
      const char* old = std::getenv(name);
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
    }
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~EnvGuard() {
    for (auto& [name, value] : saved_)
      if (value) ::setenv(name.c_str(), value->c_str(), 1);
      else ::unsetenv(name.c_str());
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

void clear_llm_env(EnvGuard& env) {
  for (const char* n : {"EKB_LLM_ENDPOINT", "OPENAI_BASE_URL", "EKB_LLM_MODEL", "EKB_LLM_API_KEY_FILE", "EKB_LLM_API_KEY",
                        "OPENAI_API_KEY", "EKB_LLM_PRICES"})
    env.set(n, nullptr);
}

TEST(LlmClientConfig, FlagsOverEnvironment) {
  EnvGuard env;
  clear_llm_env(env);
  env.set("EKB_LLM_ENDPOINT", "http://env.example/v1/");
  env.set("EKB_LLM_MODEL", "env-model");
  env.set("EKB_LLM_API_KEY", "env-key");
  env.set("OPENAI_API_KEY", "openai-key");
  EndpointConfig c = resolve_endpoint("", "", "");
  EXPECT_EQ(c.base_url, "http://env.example/v1");  // the trailing '/' stripped
  EXPECT_EQ(c.model, "env-model");
  EXPECT_EQ(c.api_key, "env-key");
  c = resolve_endpoint("https://flag.example/v1", "flag-model", "");
  EXPECT_EQ(c.base_url, "https://flag.example/v1");
  EXPECT_EQ(c.model, "flag-model");
  env.set("EKB_LLM_ENDPOINT", nullptr);
  env.set("OPENAI_BASE_URL", "http://openai.example/v1");
  env.set("EKB_LLM_API_KEY", nullptr);
  c = resolve_endpoint("", "", "");
  EXPECT_EQ(c.base_url, "http://openai.example/v1");
  EXPECT_EQ(c.api_key, "openai-key");
  env.set("OPENAI_API_KEY", nullptr);
  EXPECT_EQ(resolve_endpoint("", "", "").api_key, "");  // a local server needs none
}

TEST(LlmClientConfig, KeyFileIsStrippedAndComesFirst) {
  EnvGuard env;
  clear_llm_env(env);
  TempDir d;
  std::string flag_file = d.write("flag.key", "sk-from-flag-file\n");
  std::string env_file = d.write("env.key", "  sk-from-env-file \r\n\n");
  env.set("EKB_LLM_API_KEY", "sk-from-env");
  env.set("EKB_LLM_API_KEY_FILE", env_file.c_str());
  EXPECT_EQ(resolve_endpoint("http://h/v1", "m", "").api_key, "sk-from-env-file");
  EXPECT_EQ(resolve_endpoint("http://h/v1", "m", flag_file).api_key, "sk-from-flag-file");
}

TEST(LlmClientConfig, MissingSettingsSayHowToSetThem) {
  EnvGuard env;
  clear_llm_env(env);
  try {
    resolve_endpoint("", "m", "");
    FAIL() << "no endpoint accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("EKB_LLM_ENDPOINT"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--endpoint"), std::string::npos) << e.what();
  }
  try {
    resolve_endpoint("http://h/v1", "", "");
    FAIL() << "no model accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--model"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("EKB_LLM_MODEL"), std::string::npos) << e.what();
  }
}

TEST(LlmClientConfig, BadKeyFileNamesThePathNotTheContent) {
  EnvGuard env;
  clear_llm_env(env);
  TempDir d;
  std::string missing = (d.path / "no-such.key").string();
  try {
    resolve_endpoint("http://h/v1", "m", missing);
    FAIL() << "a missing key file accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  std::string two_lines = d.write("two.key", "sk-secret-part-one\nsk-secret-part-two\n");
  try {
    resolve_endpoint("http://h/v1", "m", two_lines);
    FAIL() << "a two-line key accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(two_lines), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("sk-secret"), std::string::npos) << e.what();
  }
  std::string empty = d.write("empty.key", "\n");
  EXPECT_THROW(resolve_endpoint("http://h/v1", "m", empty), std::runtime_error);
}

TEST(LlmClientConfig, DescribeOmitsTheKeyAndUrlCredentials) {
  EndpointConfig c;
  c.base_url = "https://user:hunter2@api.example.com/v1";
  c.model = "gpt-4o";
  c.api_key = kKey;
  std::string d = c.describe();
  EXPECT_NE(d.find("gpt-4o"), std::string::npos) << d;
  EXPECT_NE(d.find("https://api.example.com/v1"), std::string::npos) << d;
  EXPECT_EQ(d.find("hunter2"), std::string::npos) << d;
  EXPECT_EQ(d.find(kKey), std::string::npos) << d;
}

TEST(LlmClientPrices, DefaultTableMatchesByLongestPrefix) {
  EnvGuard env;
  clear_llm_env(env);
  PriceTable t = load_prices(default_prices_path(""));
  ASSERT_TRUE(t.find("gpt-4o").has_value());
  EXPECT_DOUBLE_EQ(t.find("gpt-4o-2024-08-06")->input_per_mtok, t.find("gpt-4o")->input_per_mtok);
  EXPECT_DOUBLE_EQ(t.find("gpt-4o-mini-2024-07-18")->input_per_mtok, t.models.at("gpt-4o-mini").input_per_mtok);
  EXPECT_NE(t.models.at("gpt-4o-mini").input_per_mtok, t.models.at("gpt-4o").input_per_mtok);
  EXPECT_NEAR(t.cost("scripted", Usage{1000000, 500000}), 1.0 + 1.0, 1e-12);
  EXPECT_FALSE(t.find("no-such-model").has_value());
  EXPECT_EQ(t.cost("no-such-model", Usage{1000, 1000}), 0);
}

TEST(LlmClientPrices, PathFromFlagThenEnvironment) {
  EnvGuard env;
  clear_llm_env(env);
  EXPECT_TRUE(default_prices_path("").ends_with("config/llm_prices.json"));
  env.set("EKB_LLM_PRICES", "/from/env.json");
  EXPECT_EQ(default_prices_path(""), "/from/env.json");
  EXPECT_EQ(default_prices_path("/from/flag.json"), "/from/flag.json");
}

TEST(LlmClientPrices, MalformedTableNamesTheFile) {
  TempDir d;
  for (const char* text : {R"({"models": {"m": {"input_per_mtok": "cheap"}}})", R"({"models": )", R"({"prices": {}})",
                           R"({"models": {"m": 3}})"}) {
    std::string path = d.write("prices.json", text);
    try {
      load_prices(path);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
  std::string ok = d.write("ok.json", R"({"note": "ignored", "models": {"m": {"input_per_mtok": 1, "output_per_mtok": 4}}})");
  EXPECT_DOUBLE_EQ(load_prices(ok).models.at("m").output_per_mtok, 4);
}

TEST(LlmClientBudget, ReservationsInFlightCount) {
  Budget b({.requests = 3, .tokens = 0, .cost = 1.0});
  std::string why;
  EXPECT_TRUE(b.try_reserve(100, 0.3, &why));
  EXPECT_TRUE(b.try_reserve(100, 0.3, &why));
  EXPECT_TRUE(b.try_reserve(100, 0.3, &why));
  EXPECT_FALSE(b.try_reserve(100, 0.01, &why));  // a 4th request in flight
  EXPECT_NE(why.find("3 requests"), std::string::npos) << why;
  b.settle(100, 0.3, Usage{10, 10}, 0.05);
  b.settle(100, 0.3, Usage{10, 10}, 0.05);
  EXPECT_EQ(b.requests(), 2);
  EXPECT_EQ(b.tokens().total(), 40);
  EXPECT_NEAR(b.cost(), 0.1, 1e-12);
  EXPECT_FALSE(b.exhausted());
  b.settle(100, 0.3, Usage{10, 10}, 0.05);
  EXPECT_TRUE(b.exhausted());
  EXPECT_FALSE(b.try_reserve(1, 0, &why));
  EXPECT_NE(why.find("is spent"), std::string::npos) << why;

  Budget dollars({.cost = 1.0});
  EXPECT_TRUE(dollars.try_reserve(0, 0.6, &why));
  EXPECT_FALSE(dollars.try_reserve(0, 0.6, &why));  // 0.6 in flight + 0.6 > 1.0
  EXPECT_NE(why.find("$1.0000"), std::string::npos) << why;
  dollars.settle(0, 0.6, {}, 0.1);
  EXPECT_TRUE(dollars.try_reserve(0, 0.6, &why));
}

}  // namespace
}  // namespace ekb::llm
