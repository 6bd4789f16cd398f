// ekb-scripted-llm (tests/tools) as a test starts it: a child process replaying a script of canned
// chat-completion replies on 127.0.0.1, with the log of every request it received. Shared by the
// client's tests and the end-to-end tests of the modes that ask a model.
#pragma once
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace ekb::test {

// Whether the scripted server was built (it is wherever cpp-httplib is; tests/CMakeLists.txt).
inline bool scripted_server_built() { return EKB_SCRIPTED_LLM[0] != '\0'; }
#define EKB_SKIP_WITHOUT_SCRIPTED_SERVER() \
  if (!::ekb::test::scripted_server_built()) GTEST_SKIP() << "ekb-scripted-llm was not built here (no cpp-httplib)"

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string t = (std::filesystem::temp_directory_path() / "ekb-llm-XXXXXX").string();
    path = ::mkdtemp(t.data());
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

// ekb-scripted-llm running as a child process with a script; stopped (SIGTERM) on destruction.
class ScriptedServer {
 public:
  ScriptedServer(const TempDir& dir, const nlohmann::json& script) : log_path_((dir.path / "requests.jsonl").string()) {
    std::string script_path = dir.write("script.json", script.dump());
    int out[2];
    if (::pipe(out) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    posix_spawn_file_actions_addclose(&actions, out[1]);
    std::vector<std::string> args = {EKB_SCRIPTED_LLM, "--script", script_path, "--log", log_path_};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (::posix_spawn(&pid_, EKB_SCRIPTED_LLM, &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    port_ = read_port(out[0]);
    ::close(out[0]);
  }
  ~ScriptedServer() { stop(); }

  bool ready() const { return pid_ > 0 && port_ > 0; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  // Every request the server received, in order.
  std::vector<nlohmann::json> requests() const {
    std::vector<nlohmann::json> r;
    std::ifstream in(log_path_);
    for (std::string line; std::getline(in, line);) r.push_back(nlohmann::json::parse(line));
    return r;
  }
  // Stops the server; false when it had already ended (crashed) before it was asked to.
  bool stop() {
    if (pid_ <= 0) return true;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      ADD_FAILURE() << "ekb-scripted-llm ended on its own: "
                    << (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                            : "exit " + std::to_string(WEXITSTATUS(status)));
      pid_ = -1;
      return false;
    }
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 500 && ::waitpid(pid_, &status, WNOHANG) == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (::waitpid(pid_, &status, WNOHANG) == 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
    pid_ = -1;
    return true;
  }

 private:
  // The port from the server's "listening on 127.0.0.1:PORT" line (waits up to 10 s).
  static int read_port(int fd) {
    std::string line;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (line.find('\n') == std::string::npos && std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      char buf[256];
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n <= 0) break;
      line.append(buf, n);
    }
    const std::string prefix = "listening on 127.0.0.1:";
    if (!line.starts_with(prefix)) return -1;
    return std::atoi(line.c_str() + prefix.size());
  }

  std::string log_path_;
  pid_t pid_ = -1;
  int port_ = -1;
};

}  // namespace ekb::test
