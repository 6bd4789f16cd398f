// rlimits plus the worker's seccomp filter (sandbox_policy.h: the table, loaded by libseccomp or
// by ekb's BPF compiler). Read-only opens fail with EACCES (a C library may probe a file and carry
// on; the reference cache must stay unreadable); every other system call outside the list, and any
// open for writing, traps into a handler that reports the call and exits.
#include "harness/sandbox.h"
#include "harness/sandbox_policy.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>

namespace ekb::worker {

namespace {

// Async-signal-safe: formats the number by hand, writes, exits. mmap and mremap are allowed up to the
// budget, so a trap on them is an allocation larger than the budget.
void on_sigsys(int, siginfo_t* info, void*) {
  int nr = info ? info->si_syscall : -1;
  if (nr == SYS_mmap || nr == SYS_mremap) {
    const char msg[] = "ekb-worker: one allocation larger than the whole memory budget\n";
    ssize_t ignored = ::write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(kOverBudgetExitStatus);
  }
  char buf[64] = "ekb-worker: denied system call #";
  size_t n = std::strlen(buf);
  char digits[16];
  int d = 0;
  unsigned v = nr < 0 ? 0u : static_cast<unsigned>(nr);
  do digits[d++] = static_cast<char>('0' + v % 10), v /= 10;
  while (v && d < 15);
  while (d > 0 && n < sizeof buf - 2) buf[n++] = digits[--d];
  buf[n++] = '\n';
  ssize_t ignored = ::write(2, buf, n);
  (void)ignored;
  _exit(kDeniedExitStatus);
}


}  // namespace

uint64_t current_address_space() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) * 1024;
  return 0;
}

namespace {

std::string set_rlimits(const SandboxLimits& limits, bool no_file_writes) {
  auto set = [](int what, rlim_t soft, rlim_t hard) {
    rlimit r{soft, hard};
    return setrlimit(what, &r) == 0;
  };
  if (!set(RLIMIT_CORE, 0, 0)) return "setrlimit(RLIMIT_CORE) failed";
  if (no_file_writes && !set(RLIMIT_FSIZE, 0, 0)) return "setrlimit(RLIMIT_FSIZE) failed";
  if (limits.address_space_bytes && !set(RLIMIT_AS, limits.address_space_bytes, limits.address_space_bytes))
    return "setrlimit(RLIMIT_AS) failed";
  if (limits.cpu_seconds > 0) {
    rlim_t s = static_cast<rlim_t>(std::ceil(limits.cpu_seconds));
    if (!set(RLIMIT_CPU, s, s + 1)) return "setrlimit(RLIMIT_CPU) failed";
  }
  return "";
}

std::string trap_sigsys() {
  struct sigaction sa{};
  sa.sa_sigaction = on_sigsys;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSYS, &sa, nullptr) != 0) return std::string("sigaction(SIGSYS): ") + std::strerror(errno);
  return "";
}

}  // namespace

std::string enter_gpu_sandbox(const SandboxLimits& limits) {
  if (std::string e = trap_sigsys(); !e.empty()) return e;
  if (std::string e = set_rlimits(limits, false); !e.empty()) return e;
  return load_policy(gpu_worker_policy(getpid()));
}

std::string enter_sandbox(const SandboxLimits& limits, int harness_socket) {
  if (std::string e = trap_sigsys(); !e.empty()) return e;
  if (std::string e = set_rlimits(limits, true); !e.empty()) return e;
  return load_policy(cpu_worker_policy(limits.max_mapping_bytes, harness_socket, getpid()));
}

}  // namespace ekb::worker
