// Spawning ekb-worker on a socketpair (its end as fd 3), stderr on a pipe, and classifying its end.
#include "harness/worker_client.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#if EKB_HAVE_LIBSECCOMP
#include <seccomp.h>
#endif
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <ctime>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "harness/sandbox.h"
#include "harness/worker_channel.h"

namespace ekb::worker {

std::vector<int> worker_cpus(int threads) {
  cpu_set_t mine;
  CPU_ZERO(&mine);
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE && static_cast<int>(out.size()) < threads; ++c)
    if (CPU_ISSET(c, &mine)) out.push_back(c);
  return out;
}

namespace {
// $ENV, else `name` beside the running program (or in ../src, where the tests run from build/tests).
std::string beside_program(const char* env_name, const std::string& name) {
  if (const char* env = std::getenv(env_name); env && *env) return env;
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return name;
  for (auto dir : {self.parent_path(), self.parent_path().parent_path() / "src"}) {
    auto p = dir / name;
    if (std::filesystem::exists(p)) return p.string();
  }
  return (self.parent_path() / name).string();
}
}  // namespace

std::string default_worker_path() { return beside_program("EKB_WORKER", "ekb-worker"); }
std::string default_gpu_worker_path() { return beside_program("EKB_GPU_WORKER", "ekb-gpu-worker"); }

WorkerProcess::WorkerProcess(const std::string& path_arg, const std::vector<int>& cpus, int idle_spin_us,
                             const std::vector<std::string>& launcher, const std::vector<std::string>& extra_args,
                             const std::vector<std::string>& extra_env) {
  std::string path = path_arg.empty() ? default_worker_path() : path_arg;
  if (access(path.c_str(), X_OK) != 0)
    throw std::runtime_error("cannot run the worker `" + path + "` (build target ekb-worker, or set EKB_WORKER)");
  // The worker's own directory (mode 0700): its TMPDIR and the only place its compile may write.
  // Made and removed here, so that it goes even when the worker is killed.
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/ekb-worker-XXXXXX";
  if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create " + pattern + ": " + std::strerror(errno));
  private_dir_ = pattern;
  auto failed = [&](const char* what) {
    std::error_code ec;
    std::filesystem::remove_all(private_dir_, ec);
    return std::runtime_error(what);
  };
  int sv[2], ep[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) throw failed("socketpair failed");
  if (pipe2(ep, O_CLOEXEC) != 0) {
    close(sv[0]);
    close(sv[1]);
    throw failed("pipe failed");
  }
  // (Made before fork: the child only sets them and execs.)
  const std::string blocktime = idle_spin_us > 0 ? std::to_string(idle_spin_us) + "us" : "0";
  std::vector<std::string> words = launcher;
  words.insert(words.end(), {path, "--socket", "3", "--private-dir", private_dir_});
  words.insert(words.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::vector<std::pair<std::string, std::string>> env;
  for (const std::string& e : extra_env)
    if (size_t eq = e.find('='); eq != std::string::npos) env.push_back({e.substr(0, eq), e.substr(eq + 1)});
  pid_t pid = fork();
  if (pid < 0) throw failed("fork failed");
  if (pid == 0) {
    // The child: its socket end as fd 3, stderr into the pipe, nothing else inherited.
    dup2(sv[1], 3);
    dup2(ep[1], 2);
    int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) dup2(devnull, 0), dup2(devnull, 1);
    for (int fd = 4; fd < 1024; ++fd) close(fd);
    // Idle OpenMP threads sleep at once: no CPU burnt between requests (LLVM's libomp; GCC's libgomp).
    // With `idle_spin_us`, libomp's spin that long first (`Nus`; an explicit KMP_BLOCKTIME overrides
    // the passive policy there). libgomp's threads still sleep at once: it counts its spins, and
    // their length is the CPU's (20,000 spun about 2.5 ms on the GPU machine's Xeon, 10,000 about
    // 0.1-0.3 ms on a Zen 5 VM), so no count bounds the time, and a spin past the harness's quiet
    // window after a turn would run into the other side's (evaluate.cpp).
    setenv("KMP_BLOCKTIME", blocktime.c_str(), 1);
    setenv("OMP_WAIT_POLICY", "passive", 1);
    setpgid(0, 0);
    if (!cpus.empty()) {
      // The same CPUs for every worker, one OpenMP thread per CPU in order: otherwise two workers
      // timed against each other sleep and wake on whichever CPU they last ran on, and on a machine
      // whose CPUs differ (a shared virtual CPU) identical code measured up to 1.6x apart.
      cpu_set_t set;
      CPU_ZERO(&set);
      std::string places;
      for (int c : cpus) {
        CPU_SET(c, &set);
        places += (places.empty() ? "{" : ",{") + std::to_string(c) + "}";
      }
      sched_setaffinity(0, sizeof set, &set);
      setenv("OMP_PLACES", places.c_str(), 1);
      setenv("OMP_PROC_BIND", "close", 1);
    }
    for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
    if (launcher.empty()) execv(path.c_str(), argv.data());
    else execvp(argv[0], argv.data());
    _exit(127);
  }
  close(sv[1]);
  close(ep[1]);
  pid_ = pid;
  sock_ = sv[0];
  err_ = ep[0];
  fcntl(err_, F_SETFL, O_NONBLOCK);
}

WorkerProcess::~WorkerProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (sock_ >= 0) close(sock_);
  if (err_ >= 0) close(err_);
  std::error_code ec;
  std::filesystem::remove_all(private_dir_, ec);
}

std::string WorkerProcess::drain_stderr() {
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = read(err_, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > (1u << 16)) break;
  }
  return out;
}

namespace {
uint64_t status_field(pid_t pid, const std::string& field) {  // "VmHWM:" -> bytes
  if (pid <= 0) return 0;
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(field, 0) == 0) return std::stoull(line.substr(field.size())) * 1024;
  return 0;
}
}  // namespace

uint64_t WorkerProcess::peak_rss() { return status_field(pid_, "VmHWM:"); }

uint64_t WorkerProcess::reset_peak_rss() {
  if (pid_ <= 0) return 0;
  // "5" resets the peak to the current resident set (Linux 4.0 on); where that fails, the mark is
  // the peak so far and only growth beyond it is seen.
  std::ofstream f("/proc/" + std::to_string(pid_) + "/clear_refs");
  if (f << "5" << std::flush) {
    f.close();
    return status_field(pid_, "VmRSS:");
  }
  return peak_rss();
}

double WorkerProcess::cpu_seconds() {
  clockid_t c;
  timespec ts{};
  if (pid_ <= 0 || clock_getcpuclockid(pid_, &c) != 0 || clock_gettime(c, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string syscall_name(int nr, const std::string& arch) {
#if EKB_HAVE_LIBSECCOMP
  uint32_t token = SCMP_ARCH_NATIVE;
  if (arch == "aarch64") token = SCMP_ARCH_AARCH64;
  else if (arch == "riscv64") token = SCMP_ARCH_RISCV64;
  else if (arch == "x86_64") token = SCMP_ARCH_X86_64;
  char* name = nr >= 0 ? seccomp_syscall_resolve_num_arch(token, nr) : nullptr;
  std::string out = name ? std::string(name) : "#" + std::to_string(nr);
  std::free(name);
  return out;
#else
  (void)arch;
  return "#" + std::to_string(nr);
#endif
}

Reply WorkerProcess::bury(Outcome default_kind, const std::string& why) {
  Reply r;
  r.outcome = default_kind;
  r.message = why;
  if (pid_ <= 0) return r;
  int status = 0;
  if (default_kind == Outcome::timeout) {
    kill(-pid_, SIGKILL);  // its process group: anything it started goes too
    kill(pid_, SIGKILL);
  } else {
    // It closed the socket: it is ending; give it a moment, then make sure.
    for (int i = 0; i < 200 && waitpid(pid_, &status, WNOHANG) == 0; ++i) usleep(5000);
    kill(pid_, SIGKILL);
  }
  waitpid(pid_, &status, 0);
  std::string err = drain_stderr();
  pid_ = -1;
  if (default_kind != Outcome::timeout) {
    if (WIFSIGNALED(status)) {
      int sig = WTERMSIG(status);
      r.outcome = sig == SIGXCPU ? Outcome::cpu_limit : sig == SIGSYS ? Outcome::denied : Outcome::crash;
      r.message = std::string("killed by signal ") + std::to_string(sig) + " (" + strsignal(sig) + ")";
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == kOverBudgetExitStatus) {
      r.outcome = Outcome::over_budget;
      r.message = "it asked for one allocation larger than its whole memory budget";
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == kDeniedExitStatus) {
      r.outcome = Outcome::denied;
      size_t at = err.find("denied system call #");
      int nr = at == std::string::npos ? -1 : std::atoi(err.c_str() + at + 20);
      r.denied_syscall = nr;
      r.message = "the sandbox denied the system call " + syscall_name(nr, "");
    } else if (WIFEXITED(status)) {
      r.outcome = Outcome::exited;
      r.message = "the worker exited with status " + std::to_string(WEXITSTATUS(status)) + " before answering";
    }
  }
  // What it last said (a GPU worker names the launch it is waiting for: the one that hangs).
  if (!err.empty() && r.outcome != Outcome::denied && r.outcome != Outcome::over_budget)
    r.message += "; stderr: " + (err.size() > 400 ? "..." + err.substr(err.size() - 400) : err);
  return r;
}

Reply WorkerProcess::request(const nlohmann::json& req, int timeout_ms, int fd) {
  if (pid_ <= 0) return Reply{Outcome::protocol, "the worker is not running", {}, 0};
  auto t0 = std::chrono::steady_clock::now();
  if (!send_message(sock_, req, fd)) return bury(Outcome::crash, "the worker is gone");
  Message m;
  RecvStatus s = recv_message(sock_, m, timeout_ms);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  Reply r;
  if (s == RecvStatus::timeout) r = bury(Outcome::timeout, "no answer within " + std::to_string(timeout_ms) + " ms");
  else if (s == RecvStatus::closed) r = bury(Outcome::crash, "the worker closed its socket");
  else if (s == RecvStatus::corrupt) r = bury(Outcome::protocol, "the worker sent a malformed message");
  else {
    if (m.fd >= 0) close(m.fd);
    r.body = std::move(m.body);
    if (!r.body.value("ok", false)) {
      // A refusal names its kind as the outcome table spells it; anything else is a protocol error.
      r.outcome = outcome_named(r.body.value("kind", ""), Outcome::protocol);
      if (r.outcome == Outcome::ok) r.outcome = Outcome::protocol;
      r.message = r.body.value("error", "the worker refused the request");
    }
  }
  r.wall_ms = ms;
  return r;
}

}  // namespace ekb::worker
