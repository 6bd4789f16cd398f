// ekb-scripted-llm: an OpenAI-compatible chat-completions server that replays a script of canned
// replies, so that the language-model client (and the llm policy) can be tested with no network and
// no model: normal replies, errors with Retry-After, truncated JSON, hanging connections, enormous
// replies, and replies that echo back the program a request showed.
//
//   ekb-scripted-llm --script FILE [--port 0] [--log FILE]
//
// Binds 127.0.0.1 (port 0: any free port), prints "listening on 127.0.0.1:PORT" once it accepts
// connections, serves POST /v1/chat/completions (and /chat/completions), and exits on SIGTERM/SIGINT.
// The script: {"replies": [REPLY, ...], "default": REPLY}; replies are used one per request, in
// order; a reply with "match" (an ECMAScript regular expression) or "contains" (strings that must all
// occur) is used first, for a request whose last user message matches it. (libstdc++'s regex recurses
// once per character a `[\s\S]*` consumes: over a prompt of tens of kilobytes — a free-form turn
// showing a large program — that overflowed the stack and the server died; `contains` has no such
// limit.) A REPLY's fields:
//   content            a normal 200 completion with this content (finish_reason, prompt_tokens and
//                      completion_tokens override the defaults: "stop", body bytes / 4, content bytes / 4)
//   status, body, headers   any other status, a raw body and extra headers (e.g. {"Retry-After": "1"})
//   raw_body           sent as-is with status 200 (e.g. truncated JSON)
//   huge_bytes         a 200 completion whose content is that many 'x'
//   echo_fenced        "LANG": the content is the first ```LANG fenced block of the last user message
//   delay_ms, hang     wait before answering; never answer (until stopped, or 60 s)
//   repeat             the reply serves that many requests (default 1)
// --log FILE appends one JSON line per request: n, t_ms (since start), path, authorization_present,
// authorization (verbatim: the test checks the key was sent), body.
#include <httplib.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

using nlohmann::json;

namespace {

struct Scripted {
  json reply;
  int left;  // requests it still serves
};

struct State {
  std::mutex mu;
  std::vector<Scripted> replies;
  std::optional<json> fallback;  // "default"
  int requests = 0;
  std::ofstream log;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::condition_variable stopping_cv;
  bool stopping = false;
};

std::string last_user_message(const json& request) {
  std::string last;
  if (request.contains("messages") && request["messages"].is_array())
    for (const auto& m : request["messages"])
      if (m.is_object() && m.value("role", "") == "user" && m.contains("content") && m["content"].is_string())
        last = m["content"].get<std::string>();
  return last;
}

// The reply for a request (consumed): a matching "match" reply first, else the next in order, else
// the default; nullopt when the script is used up.
bool targeted(const json& reply) { return reply.contains("match") || reply.contains("contains"); }

bool matches(const json& reply, const std::string& user_message) {
  if (reply.contains("contains"))
    for (const auto& part : reply["contains"])
      if (user_message.find(part.get<std::string>()) == std::string::npos) return false;
  return !reply.contains("match") ||
         std::regex_search(user_message, std::regex(reply["match"].get<std::string>(), std::regex::ECMAScript));
}

std::optional<json> next_reply(State& s, const std::string& user_message) {
  for (auto& r : s.replies)
    if (r.left > 0 && targeted(r.reply) && matches(r.reply, user_message)) {
      --r.left;
      return r.reply;
    }
  for (auto& r : s.replies)
    if (r.left > 0 && !targeted(r.reply)) {
      --r.left;
      return r.reply;
    }
  return s.fallback;
}

// The first ```LANG fenced block of `text`, re-fenced; "no program found" when there is none.
std::string echo_fenced(const std::string& text, const std::string& lang) {
  std::string open = "```" + lang + "\n";
  size_t at = text.find(open);
  if (at == std::string::npos) return "no program found";
  size_t from = at + open.size();
  size_t end = text.find("```", from);
  std::string inner = text.substr(from, end == std::string::npos ? std::string::npos : end - from);
  if (!inner.empty() && inner.back() != '\n') inner += '\n';
  return open + inner + "```";
}

json completion(const json& reply, const json& request, size_t request_bytes, int n, const std::string& content) {
  int64_t prompt = reply.value("prompt_tokens", static_cast<int64_t>(request_bytes / 4));
  int64_t completion_tokens = reply.value("completion_tokens", static_cast<int64_t>(content.size() / 4));
  return {{"id", "scripted-" + std::to_string(n)},
          {"object", "chat.completion"},
          {"model", request.value("model", "")},
          {"choices", json::array({{{"index", 0},
                                    {"message", {{"role", "assistant"}, {"content", content}}},
                                    {"finish_reason", reply.value("finish_reason", "stop")}}})},
          {"usage", {{"prompt_tokens", prompt}, {"completion_tokens", completion_tokens}, {"total_tokens", prompt + completion_tokens}}}};
}

void log_request(State& s, int n, const httplib::Request& req, const json& body) {
  if (!s.log.is_open()) return;
  double t_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s.start).count();
  json line = {{"n", n}, {"t_ms", t_ms}, {"path", req.path}, {"authorization_present", req.has_header("Authorization")},
               {"authorization", req.get_header_value("Authorization")}, {"body", body}};
  s.log << line.dump() << '\n' << std::flush;
}

// Waits `ms` milliseconds, or less when the server stops; false when it stopped.
bool wait_ms(State& s, int64_t ms) {
  std::unique_lock lock(s.mu);
  return !s.stopping_cv.wait_for(lock, std::chrono::milliseconds(ms), [&] { return s.stopping; });
}

void answer(State& s, const httplib::Request& req, httplib::Response& res) {
  json request = json::parse(req.body, nullptr, false);
  std::optional<json> reply;
  int n;
  {
    std::lock_guard lock(s.mu);
    n = ++s.requests;
    log_request(s, n, req, request.is_discarded() ? json(req.body) : request);
    reply = next_reply(s, request.is_discarded() ? "" : last_user_message(request));
  }
  if (!reply) {
    res.status = 500;
    res.set_content(R"({"error":{"message":"the script is used up"}})", "application/json");
    return;
  }
  const json& r = *reply;
  if (r.value("hang", false) && !wait_ms(s, 60000)) return;
  if (r.contains("delay_ms") && !wait_ms(s, r["delay_ms"].get<int64_t>())) return;
  if (r.contains("headers"))
    for (const auto& [k, v] : r["headers"].items()) res.set_header(k.c_str(), v.get<std::string>().c_str());
  res.status = r.value("status", 200);
  if (r.contains("raw_body")) return res.set_content(r["raw_body"].get<std::string>(), "application/json");
  if (res.status != 200)
    return res.set_content(r.value("body", R"({"error":{"message":"scripted error"}})"), "application/json");
  std::string content = r.contains("huge_bytes")    ? std::string(r["huge_bytes"].get<size_t>(), 'x')
                        : r.contains("echo_fenced") ? echo_fenced(last_user_message(request), r["echo_fenced"].get<std::string>())
                                                    : r.value("content", "");
  json req_json = request.is_discarded() ? json::object() : request;
  res.set_content(completion(r, req_json, req.body.size(), n, content).dump(), "application/json");
}

json read_script(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the script " + path);
  json j = json::parse(in);
  if (!j.is_object() || !j.contains("replies") || !j["replies"].is_array())
    throw std::runtime_error(path + ": the script must be {\"replies\": [...], \"default\": {...}}");
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  std::string script_path, log_path;
  int port = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 < argc && a == "--script") script_path = argv[++i];
    else if (i + 1 < argc && a == "--log") log_path = argv[++i];
    else if (i + 1 < argc && a == "--port") port = std::stoi(argv[++i]);
    else {
      std::cerr << "usage: ekb-scripted-llm --script FILE [--port 0] [--log FILE]\n";
      return 2;
    }
  }
  if (script_path.empty()) {
    std::cerr << "usage: ekb-scripted-llm --script FILE [--port 0] [--log FILE]\n";
    return 2;
  }
  State state;
  try {
    json script = read_script(script_path);
    for (const auto& r : script["replies"]) state.replies.push_back({r, r.value("repeat", 1)});
    if (script.contains("default")) state.fallback = script["default"];
  } catch (const std::exception& e) {
    std::cerr << "ekb-scripted-llm: " << e.what() << "\n";
    return 2;
  }
  if (!log_path.empty()) state.log.open(log_path, std::ios::app);

  // SIGTERM and SIGINT are taken by one thread (blocked everywhere else), which stops the server.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a client that hangs up mid-reply (the enormous reply)

  httplib::Server server;
  server.new_task_queue = [] { return new httplib::ThreadPool(32); };
  auto handler = [&](const httplib::Request& req, httplib::Response& res) { answer(state, req, res); };
  server.Post("/v1/chat/completions", handler);
  server.Post("/chat/completions", handler);
  int bound = port == 0 ? server.bind_to_any_port("127.0.0.1") : (server.bind_to_port("127.0.0.1", port) ? port : -1);
  if (bound <= 0) {
    std::cerr << "ekb-scripted-llm: cannot bind 127.0.0.1:" << port << "\n";
    return 1;
  }
  std::atomic<bool> listening_ended{false};
  std::thread stopper([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    {
      std::lock_guard lock(state.mu);
      state.stopping = true;
    }
    state.stopping_cv.notify_all();
    // stop() does nothing until the server runs: a signal right after the "listening" line would be lost.
    while (!listening_ended) {
      server.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  std::printf("listening on 127.0.0.1:%d\n", bound);
  std::fflush(stdout);
  bool ok = server.listen_after_bind();
  listening_ended = true;
  bool stopped;
  {
    std::lock_guard lock(state.mu);
    stopped = state.stopping;
  }
  if (!stopped) kill(getpid(), SIGTERM);  // ended on its own: release the stopper
  stopper.join();
  return ok || stopped ? 0 : 1;
}
