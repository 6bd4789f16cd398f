// A board for the remote-board tests: ekb's board build for another architecture run under
// qemu-user (aarch64, riscv64) in a network namespace of its own, reached over a veth pair (host
// 10.213.N.1, board 10.213.N.2); the board build for this machine's own architecture, a real board
// on 127.0.0.1 (its workers sandboxed); or this machine's own `ekb worker` on 127.0.0.1. Everything it starts is killed, and the namespace
// and its link removed, when it goes (also when a test fails); namespaces a killed test run left
// behind are removed when the next one starts.
#pragma once
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../unit/command_util.h"
#include "target/arch.h"

namespace ekb::test {

namespace fs = std::filesystem;

inline std::string read_text(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

inline bool on_path(const std::string& program) {
  return run_command("command -v " + program + " >/dev/null 2>&1").status == 0;
}

// The board build's programs for `arch` (build/board-ARCH), or "" for this machine's own ekb.
inline fs::path board_program(const std::string& arch) {
  return arch.empty() ? fs::path(EKB_BINARY) : fs::path(EKB_BUILD_DIR) / ("board-" + arch) / "ekb";
}

inline bool is_native(const std::string& arch) { return arch == arch_name(native_arch()); }

// Why a board of `arch` cannot run here ("" when it can).
inline std::string board_skip_reason(const std::string& arch) {
  if (arch.empty()) return "";
  if (is_native(arch))
    return fs::exists(board_program(arch)) ? "" : board_program(arch).string() + " is not built (cmake/boards.cmake)";
  if (geteuid() != 0) return "network namespaces need root";
  if (!on_path("ip")) return "no `ip` (Debian: iproute2)";
  if (!on_path("qemu-" + arch)) return "no qemu-" + arch + " (Debian: qemu-user)";
  if (!fs::exists("/usr/" + arch + "-linux-gnu/lib")) return "no /usr/" + arch + "-linux-gnu (Debian: g++-" + arch + "-linux-gnu)";
  if (!fs::exists(board_program(arch))) return board_program(arch).string() + " is not built (cmake/boards.cmake)";
  std::string probe = "ekb-probe-" + std::to_string(::getpid());
  CommandResult r = run_command("ip netns add " + probe + " 2>&1 && ip netns del " + probe + " 2>&1");
  if (r.status != 0) return "cannot make a network namespace here: " + r.out;
  return "";
}

class TestBoard {
 public:
  // `arch` "" : this machine's own `ekb worker` on 127.0.0.1 (no namespace, no emulator); this
  // machine's architecture: its board build, there too.
  explicit TestBoard(const std::string& arch) : arch_(arch), emulated_(!arch.empty() && !is_native(arch)) {
    static int counter = 0;
    int n = ++counter;
    std::string id = std::to_string(::getpid() % 100000) + "x" + std::to_string(n);
    dir_ = fs::temp_directory_path() / ("ekb-board-" + id);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    token_ = write("board.token", "qemu-board-token-" + id + "-0123456789abcdef\n");
    chmod(token_.c_str(), 0600);
    if (!emulated_) {
      address_ = "127.0.0.1";
      return;
    }
    remove_stale_namespaces();
    ns_ = "ekb-board-" + id;
    veth_ = "ekbh" + id;
    std::string subnet = "10.213." + std::to_string((::getpid() + n) % 250) + ".";
    address_ = subnet + "2";
    sh("ip netns add " + ns_);
    sh("ip link add " + veth_ + " type veth peer name " + veth_ + "b");
    sh("ip link set " + veth_ + "b netns " + ns_);
    sh("ip addr add " + subnet + "1/30 dev " + veth_);
    sh("ip link set " + veth_ + " up");
    sh("ip netns exec " + ns_ + " ip addr add " + subnet + "2/30 dev " + veth_ + "b");
    sh("ip netns exec " + ns_ + " ip link set " + veth_ + "b up");
    sh("ip netns exec " + ns_ + " ip link set lo up");
  }
  ~TestBoard() {
    kill_board();
    if (!ns_.empty()) {
      run_command("ip link del " + veth_ + " 2>/dev/null");
      run_command("ip netns del " + ns_ + " 2>/dev/null");
    }
    fs::remove_all(dir_);
  }
  TestBoard(const TestBoard&) = delete;
  TestBoard& operator=(const TestBoard&) = delete;

  // Starts `ekb worker` (logging to `log`), and waits until it listens; false (with its log) if not.
  bool start(const std::string& log = "board.log", const std::vector<std::string>& extra = {}) {
    log_ = dir_ / log;
    std::vector<std::string> argv;
    std::string port_file = (dir_ / "port").string();
    fs::remove(port_file);
    if (emulated_) {
      std::string sysroot = "/usr/" + arch_ + "-linux-gnu";
      argv = {"ip", "netns", "exec", ns_, "qemu-" + arch_, "-L", sysroot, board_program(arch_).string(), "worker",
              "--listen", address_ + ":7450", "--token-file", token_, "--unsandboxed-emulation",
              "--worker-launcher", "qemu-" + arch_ + " -L " + sysroot, "--port-file", port_file};
    } else {
      argv = {board_program(arch_).string(), "worker", "--listen", "127.0.0.1:0", "--token-file", token_, "--port-file", port_file};
    }
    argv.insert(argv.end(), extra.begin(), extra.end());
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0);
      unsetenv("EKB_WORKER");  // (the tests' own worker is this machine's: the board finds its own beside it)
      FILE* f = std::freopen(log_.c_str(), "w", stderr);
      (void)f;
      std::vector<char*> a;
      for (auto& s : argv) a.push_back(s.data());
      a.push_back(nullptr);
      execvp(a[0], a.data());
      _exit(127);
    }
    for (int i = 0; i < 600; ++i) {  // a minute at most (emulated start-up on a busy machine)
      if (fs::exists(port_file) && !read_text(port_file).empty()) {
        port_ = std::stoi(read_text(port_file));
        return true;
      }
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  // The board disappears: every process it started (in its namespace, or its process group) is killed.
  void kill_board() {
    if (!ns_.empty()) {
      std::string pids = run_command("ip netns pids " + ns_ + " 2>/dev/null").out;
      std::stringstream in(pids);
      for (int p; in >> p;) ::kill(p, SIGKILL);
    }
    if (pid_ > 0) {
      ::kill(-pid_, SIGKILL);
      ::kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }

  // A profile file for this board (`extra`: more JSON fields, each `"k": v`), with `token` as its token.
  std::string profile(const std::string& name, int threads, const std::string& extra = "", const std::string& token_file = "") const {
    std::string arch = arch_.empty() ? arch_name(native_arch()) : arch_;
    std::string text = "{\"name\": \"" + name + "\", \"address\": \"" + address_ + ":" + std::to_string(port_) + "\", \"token_file\": \"" +
                       (token_file.empty() ? token_ : token_file) + "\", \"arch\": \"" + arch + "\", \"threads\": " +
                       std::to_string(threads) + ", \"memory_budget_mib\": 256, \"reconnect_seconds\": 2" +
                       (emulated_ ? ", \"emulated\": true" : "") + (extra.empty() ? "" : ", " + extra) + "}\n";
    return write(name + ".json", text);
  }

  std::string write(const std::string& file, const std::string& text) const {
    std::ofstream(dir_ / file) << text;
    return (dir_ / file).string();
  }
  std::string log() const { return read_text(log_); }
  const fs::path& dir() const { return dir_; }

 private:
  static void sh(const std::string& cmd) {
    CommandResult r = run_command(cmd + " 2>&1");
    if (r.status != 0) throw std::runtime_error(cmd + ": " + r.out);
  }
  // Namespaces of test runs that were killed before they could clean up (their pid is gone).
  static void remove_stale_namespaces() {
    std::stringstream in(run_command("ip netns list 2>/dev/null").out);
    for (std::string line; std::getline(in, line);) {
      std::string name = line.substr(0, line.find(' '));
      if (name.rfind("ekb-board-", 0) != 0) continue;
      std::string id = name.substr(10);
      int pid = std::atoi(id.substr(0, id.find('x')).c_str());
      if (pid > 0 && ::kill(pid, 0) == 0) continue;  // (a pid modulo 100000: alive means perhaps another run's)
      run_command("ip link del ekbh" + id + " 2>/dev/null; ip netns del " + name + " 2>/dev/null");
    }
  }

  std::string arch_;
  bool emulated_;
  std::string ns_, veth_, address_, token_;
  fs::path dir_, log_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace ekb::test
