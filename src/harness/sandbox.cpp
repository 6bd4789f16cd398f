// rlimits plus a libseccomp allow-list. Read-only opens fail with EACCES (a C library may probe a
// file and carry on; the reference cache must stay unreadable); every other system call outside the
// list, and any open for writing, traps into a handler that reports the call and exits.
#include "harness/sandbox.h"

#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
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

struct Filter {
  scmp_filter_ctx ctx;
  std::string error;
  explicit Filter(uint32_t def) : ctx(seccomp_init(def)) {}
  ~Filter() {
    if (ctx) seccomp_release(ctx);
  }
  void rule(uint32_t action, int nr, unsigned n = 0, const scmp_arg_cmp* args = nullptr) {
    if (nr < 0 || !error.empty()) return;  // a call this kernel/arch does not have
    int r = seccomp_rule_add_array(ctx, action, nr, n, args);
    if (r < 0) error = std::string("seccomp rule for #") + std::to_string(nr) + ": " + std::strerror(-r);
  }
  void allow(const char* name) { rule(SCMP_ACT_ALLOW, seccomp_syscall_resolve_name(name)); }
};

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
  Filter f(SCMP_ACT_ALLOW);
  if (!f.ctx) return "seccomp_init failed";
  if (seccomp_attr_set(f.ctx, SCMP_FLTATR_CTL_TSYNC, 1) != 0) return "seccomp: cannot synchronize threads";
  for (const char* name : {"execve", "execveat", "fork", "vfork", "socket", "socketpair", "connect", "bind", "listen", "accept",
                           "accept4", "ptrace", "kill", "tkill", "setrlimit", "setpriority", "process_vm_writev",
                           "process_vm_readv", "unshare", "setns", "mount", "chroot", "reboot", "init_module", "kexec_load"})
    f.rule(SCMP_ACT_TRAP, seccomp_syscall_resolve_name(name));
  // Threads only; signals only to itself; limits read, not set.
  scmp_arg_cmp process = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0);
  f.rule(SCMP_ACT_TRAP, seccomp_syscall_resolve_name("clone"), 1, &process);
  f.rule(SCMP_ACT_ERRNO(ENOSYS), seccomp_syscall_resolve_name("clone3"));
  scmp_arg_cmp other = SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(getpid()), 0);
  f.rule(SCMP_ACT_TRAP, seccomp_syscall_resolve_name("tgkill"), 1, &other);
  scmp_arg_cmp setting = SCMP_A2(SCMP_CMP_NE, 0, 0);
  f.rule(SCMP_ACT_TRAP, seccomp_syscall_resolve_name("prlimit64"), 1, &setting);
  if (!f.error.empty()) return f.error;
  int r = seccomp_load(f.ctx);
  if (r < 0) return std::string("seccomp_load: ") + std::strerror(-r);
  return "";
}

std::string enter_sandbox(const SandboxLimits& limits, int harness_socket) {
  if (std::string e = trap_sigsys(); !e.empty()) return e;
  if (std::string e = set_rlimits(limits, true); !e.empty()) return e;

  Filter f(SCMP_ACT_TRAP);
  if (!f.ctx) return "seccomp_init failed";
  if (seccomp_attr_set(f.ctx, SCMP_FLTATR_CTL_TSYNC, 1) != 0) return "seccomp: cannot synchronize threads";
  for (const char* name :
       {"read", "write", "readv", "writev", "close", "fstat", "newfstatat", "munmap", "mprotect", "madvise",
        "brk", "futex", "set_robust_list", "get_robust_list", "rseq", "sched_yield", "sched_getaffinity",
        "sched_setaffinity", "sched_getparam", "sched_getscheduler", "clock_gettime", "clock_getres", "gettimeofday",
        "time", "nanosleep", "clock_nanosleep", "getpid", "gettid", "rt_sigaction", "rt_sigprocmask", "rt_sigreturn",
        "sigaltstack", "exit", "exit_group", "getppid", "getuid", "geteuid", "getgid", "getegid", "getrandom", "membarrier", "poll", "ppoll", "getrusage", "restart_syscall"})
    f.allow(name);
  // Mappings up to the budget: one larger cannot fit it (on_sigsys reports it as over budget).
  if (limits.max_mapping_bytes) {
    scmp_arg_cmp len = SCMP_A1(SCMP_CMP_LE, static_cast<scmp_datum_t>(limits.max_mapping_bytes), 0);
    f.rule(SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1, &len);
    scmp_arg_cmp new_len = SCMP_A2(SCMP_CMP_LE, static_cast<scmp_datum_t>(limits.max_mapping_bytes), 0);
    f.rule(SCMP_ACT_ALLOW, SCMP_SYS(mremap), 1, &new_len);
  } else {
    f.allow("mmap");
    f.allow("mremap");
  }
  // Signals only to itself (abort()); messages only on the harness's socket.
  scmp_arg_cmp self = SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(getpid()), 0);
  f.rule(SCMP_ACT_ALLOW, seccomp_syscall_resolve_name("tgkill"), 1, &self);
  scmp_arg_cmp sock = SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(harness_socket), 0);
  for (const char* name : {"recvmsg", "sendmsg", "recvfrom", "sendto"}) f.rule(SCMP_ACT_ALLOW, seccomp_syscall_resolve_name(name), 1, &sock);
  // Threads, not processes; clone3 says "not supported" so that the C library falls back to clone.
  scmp_arg_cmp thread = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD);
  f.rule(SCMP_ACT_ALLOW, seccomp_syscall_resolve_name("clone"), 1, &thread);
  f.rule(SCMP_ACT_ERRNO(ENOSYS), seccomp_syscall_resolve_name("clone3"));
  // Read-only opens fail quietly; opens for writing trap (the default).
  scmp_arg_cmp ro_openat = SCMP_A2(SCMP_CMP_MASKED_EQ, O_WRONLY | O_RDWR | O_CREAT | O_TRUNC, 0);
  f.rule(SCMP_ACT_ERRNO(EACCES), seccomp_syscall_resolve_name("openat"), 1, &ro_openat);
  scmp_arg_cmp ro_open = SCMP_A1(SCMP_CMP_MASKED_EQ, O_WRONLY | O_RDWR | O_CREAT | O_TRUNC, 0);
  f.rule(SCMP_ACT_ERRNO(EACCES), seccomp_syscall_resolve_name("open"), 1, &ro_open);
  // Reading limits is harmless (thread creation does it); setting them is not allowed.
  scmp_arg_cmp read_only = SCMP_A2(SCMP_CMP_EQ, 0, 0);
  f.rule(SCMP_ACT_ALLOW, seccomp_syscall_resolve_name("prlimit64"), 1, &read_only);
  if (!f.error.empty()) return f.error;
  int r = seccomp_load(f.ctx);
  if (r < 0) return std::string("seccomp_load: ") + std::strerror(-r);
  return "";
}

}  // namespace ekb::worker
