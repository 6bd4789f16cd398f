// The workers' seccomp filters as ekb's own BPF compiles them (harness/seccomp_bpf.h: what boards
// load) behave as libseccomp's (what the host loads) on the same table (harness/sandbox_policy.h):
// each probe runs in a fresh child that loads one of the two and makes one system call.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <functional>
#include <set>

#include "harness/sandbox_policy.h"
#include "harness/seccomp_bpf.h"

namespace {

using namespace ekb::worker;

enum class Result { allowed, failed_eacces, failed_enosys, trapped, other };

const char* result_name(Result r) {
  switch (r) {
    case Result::allowed: return "allowed";
    case Result::failed_eacces: return "EACCES";
    case Result::failed_enosys: return "ENOSYS";
    case Result::trapped: return "trapped (SIGSYS)";
    case Result::other: return "other";
  }
  return "?";
}

// Loads `policy` (made in the child, for its own pid and socket) with `bpf` or libseccomp, then runs
// `probe`, which returns 0 for success or an errno.
Result run_probe(bool bpf, const std::function<FilterPolicy(int sock)>& policy, const std::function<int(int sock)>& probe) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return Result::other;
  pid_t pid = fork();
  if (pid == 0) {
    close(sv[0]);
    signal(SIGSYS, SIG_DFL);
    FilterPolicy p = policy(sv[1]);
    std::string e = bpf ? load_policy_with_bpf(p) : load_policy_with_libseccomp(p);
    if (!e.empty()) _exit(99);
    int r = probe(sv[1]);
    _exit(r == 0 ? 0 : r == EACCES ? 13 : r == ENOSYS ? 38 : 98);
  }
  close(sv[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  close(sv[0]);  // (open until the child is done: its messages have somewhere to go)
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS) return Result::trapped;
  if (!WIFEXITED(status)) return Result::other;
  switch (WEXITSTATUS(status)) {
    case 0: return Result::allowed;
    case 13: return Result::failed_eacces;
    case 38: return Result::failed_enosys;
  }
  return Result::other;
}

int errno_of(long r) { return r < 0 ? errno : 0; }

struct Probe {
  const char* what;
  std::function<int(int sock)> call;
  Result cpu;  // what the CPU worker's filter must do
};

void* nothing(void*) { return nullptr; }

const std::vector<Probe>& probes() {
  static const std::vector<Probe> p = {
      {"getpid", [](int) { return errno_of(syscall(SYS_getpid)); }, Result::allowed},
      {"a small mapping", [](int) { return mmap(nullptr, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED ? errno : 0; },
       Result::allowed},
      {"a mapping beyond the budget", [](int) { return mmap(nullptr, 64 << 20, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED ? errno : 0; },
       Result::trapped},
      {"open for reading", [](int) { return errno_of(open("/etc/hostname", O_RDONLY)); }, Result::failed_eacces},
      {"open for writing", [](int) { return errno_of(open("/tmp/ekb-seccomp-probe", O_WRONLY | O_CREAT, 0600)); }, Result::trapped},
      {"a socket", [](int) { return errno_of(socket(AF_INET, SOCK_STREAM, 0)); }, Result::trapped},
      {"a message on the harness's socket", [](int s) { return errno_of(send(s, "x", 1, MSG_NOSIGNAL)); }, Result::allowed},
      {"a message on another descriptor", [](int s) { return errno_of(send(s + 100, "x", 1, MSG_NOSIGNAL)); }, Result::trapped},
      {"a thread", [](int) {
         pthread_t t;
         int e = pthread_create(&t, nullptr, nothing, nullptr);
         if (e == 0) pthread_join(t, nullptr);
         return e;
       }, Result::allowed},
      {"a process", [](int) { return errno_of(syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0)); }, Result::trapped},
      {"clone3", [](int) { return errno_of(syscall(SYS_clone3, nullptr, 0)); }, Result::failed_enosys},
      {"a signal to itself", [](int) { return errno_of(syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), 0)); }, Result::allowed},
      {"a signal to another process", [](int) { return errno_of(syscall(SYS_tgkill, 1, 1, 0)); }, Result::trapped},
      {"reading a limit", [](int) { rlimit r; return errno_of(syscall(SYS_prlimit64, 0, RLIMIT_AS, nullptr, &r)); }, Result::allowed},
      {"setting a limit", [](int) { rlimit r{1, 1}; return errno_of(syscall(SYS_prlimit64, 0, RLIMIT_CORE, &r, nullptr)); }, Result::trapped},
  };
  return p;
}

TEST(SeccompBpf, TheCpuWorkersFilterDoesWhatLibseccompsDoes) {
  auto policy = [](int sock) { return cpu_worker_policy(16u << 20, sock, getpid()); };
  for (const Probe& p : probes()) {
    Result with_libseccomp = run_probe(false, policy, p.call), with_bpf = run_probe(true, policy, p.call);
    EXPECT_EQ(with_libseccomp, p.cpu) << p.what << ": libseccomp " << result_name(with_libseccomp);
    EXPECT_EQ(with_bpf, p.cpu) << p.what << ": BPF " << result_name(with_bpf);
  }
}

TEST(SeccompBpf, TheGpuWorkersFilterDoesWhatLibseccompsDoes) {
  auto policy = [](int) { return gpu_worker_policy(getpid()); };
  struct Case {
    const Probe* probe;
    Result gpu;
  };
  const auto& all = probes();
  auto find = [&](const std::string& what) {
    for (const auto& p : all)
      if (what == p.what) return &p;
    return &all[0];
  };
  for (const Case& c : std::vector<Case>{{find("getpid"), Result::allowed},
                                         {find("open for reading"), Result::allowed},
                                         {find("a socket"), Result::trapped},
                                         {find("a thread"), Result::allowed},
                                         {find("a process"), Result::trapped},
                                         {find("clone3"), Result::failed_enosys},
                                         {find("a signal to itself"), Result::allowed},
                                         {find("a signal to another process"), Result::trapped},
                                         {find("reading a limit"), Result::allowed},
                                         {find("setting a limit"), Result::trapped}}) {
    EXPECT_EQ(run_probe(false, policy, c.probe->call), c.gpu) << c.probe->what << " (libseccomp)";
    EXPECT_EQ(run_probe(true, policy, c.probe->call), c.gpu) << c.probe->what << " (BPF)";
  }
}

TEST(SeccompBpf, EveryCallHasOneRuleAndTheProgramChecksTheArchitectureFirst) {
  for (const FilterPolicy& p : {cpu_worker_policy(1 << 20, 3, 1), gpu_worker_policy(1)}) {
    std::set<int> seen;
    for (const auto& r : p.rules) EXPECT_TRUE(seen.insert(r.nr).second) << r.name << " has two rules";
    auto prog = compile_policy_bpf(p);
    ASSERT_GE(prog.size(), 4u);
    EXPECT_EQ(prog[0].code, BPF_LD | BPF_W | BPF_ABS);
    EXPECT_EQ(prog[0].k, 4u);  // seccomp_data.arch
    EXPECT_EQ(prog[2].k, static_cast<uint32_t>(SECCOMP_RET_KILL_PROCESS));
  }
}

}  // namespace
