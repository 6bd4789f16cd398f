// The workers' filter tables (sandbox_policy.h). The numbers are this build's architecture's
// (<sys/syscall.h>); a call the architecture does not have (open, poll, time on aarch64 and
// riscv64) is left out.
#include "harness/sandbox_policy.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/syscall.h>

namespace ekb::worker {

namespace {

#define EKB_RULE(sys, ...) {SYS_##sys, #sys, __VA_ARGS__}

void add_allowed(std::vector<FilterRule>& r) {
  const std::vector<FilterRule> calls = {
      EKB_RULE(read, FilterAction::allow), EKB_RULE(write, FilterAction::allow), EKB_RULE(readv, FilterAction::allow),
      EKB_RULE(writev, FilterAction::allow), EKB_RULE(close, FilterAction::allow), EKB_RULE(fstat, FilterAction::allow),
      EKB_RULE(newfstatat, FilterAction::allow), EKB_RULE(munmap, FilterAction::allow), EKB_RULE(mprotect, FilterAction::allow),
      EKB_RULE(madvise, FilterAction::allow), EKB_RULE(brk, FilterAction::allow), EKB_RULE(futex, FilterAction::allow),
      EKB_RULE(set_robust_list, FilterAction::allow), EKB_RULE(get_robust_list, FilterAction::allow),
      EKB_RULE(rseq, FilterAction::allow), EKB_RULE(sched_yield, FilterAction::allow),
      EKB_RULE(sched_getaffinity, FilterAction::allow), EKB_RULE(sched_setaffinity, FilterAction::allow),
      EKB_RULE(sched_getparam, FilterAction::allow), EKB_RULE(sched_getscheduler, FilterAction::allow),
      EKB_RULE(clock_gettime, FilterAction::allow), EKB_RULE(clock_getres, FilterAction::allow),
      EKB_RULE(gettimeofday, FilterAction::allow), EKB_RULE(nanosleep, FilterAction::allow),
      EKB_RULE(clock_nanosleep, FilterAction::allow), EKB_RULE(getpid, FilterAction::allow), EKB_RULE(gettid, FilterAction::allow),
      EKB_RULE(rt_sigaction, FilterAction::allow), EKB_RULE(rt_sigprocmask, FilterAction::allow),
      EKB_RULE(rt_sigreturn, FilterAction::allow), EKB_RULE(sigaltstack, FilterAction::allow), EKB_RULE(exit, FilterAction::allow),
      EKB_RULE(exit_group, FilterAction::allow), EKB_RULE(getppid, FilterAction::allow), EKB_RULE(getuid, FilterAction::allow),
      EKB_RULE(geteuid, FilterAction::allow), EKB_RULE(getgid, FilterAction::allow), EKB_RULE(getegid, FilterAction::allow),
      EKB_RULE(getrandom, FilterAction::allow), EKB_RULE(membarrier, FilterAction::allow), EKB_RULE(ppoll, FilterAction::allow),
      EKB_RULE(getrusage, FilterAction::allow), EKB_RULE(restart_syscall, FilterAction::allow),
  };
  r.insert(r.end(), calls.begin(), calls.end());
#ifdef SYS_time
  r.push_back(EKB_RULE(time, FilterAction::allow));
#endif
#ifdef SYS_poll
  r.push_back(EKB_RULE(poll, FilterAction::allow));
#endif
}

ArgCondition arg_eq(int arg, uint64_t v) { return {arg, ArgCmp::eq, v, ~0ull}; }
ArgCondition arg_ne(int arg, uint64_t v) { return {arg, ArgCmp::ne, v, ~0ull}; }
ArgCondition arg_le(int arg, uint64_t v) { return {arg, ArgCmp::le, v, ~0ull}; }
ArgCondition arg_masked(int arg, uint64_t mask, uint64_t v) { return {arg, ArgCmp::masked_eq, v, mask}; }

}  // namespace

FilterPolicy cpu_worker_policy(uint64_t max_mapping_bytes, int harness_socket, pid_t self) {
  FilterPolicy p;
  p.default_action = FilterAction::trap;
  auto& r = p.rules;
  add_allowed(r);
  // Mappings up to the budget: one larger cannot fit it (the SIGSYS handler reports it as over budget).
  if (max_mapping_bytes) {
    r.push_back(EKB_RULE(mmap, FilterAction::allow, arg_le(1, max_mapping_bytes)));
    r.push_back(EKB_RULE(mremap, FilterAction::allow, arg_le(2, max_mapping_bytes)));
  } else {
    r.push_back(EKB_RULE(mmap, FilterAction::allow));
    r.push_back(EKB_RULE(mremap, FilterAction::allow));
  }
  // Signals only to itself (abort()); messages only on the harness's socket.
  r.push_back(EKB_RULE(tgkill, FilterAction::allow, arg_eq(0, static_cast<uint64_t>(self))));
  const uint64_t sock = static_cast<uint64_t>(harness_socket);
  r.push_back(EKB_RULE(recvmsg, FilterAction::allow, arg_eq(0, sock)));
  r.push_back(EKB_RULE(sendmsg, FilterAction::allow, arg_eq(0, sock)));
  r.push_back(EKB_RULE(recvfrom, FilterAction::allow, arg_eq(0, sock)));
  r.push_back(EKB_RULE(sendto, FilterAction::allow, arg_eq(0, sock)));
  // Threads, not processes; clone3 says "not supported" so that the C library falls back to clone.
  r.push_back(EKB_RULE(clone, FilterAction::allow, arg_masked(0, CLONE_THREAD, CLONE_THREAD)));
  r.push_back(EKB_RULE(clone3, FilterAction::errno_enosys));
  // Read-only opens fail quietly; opens for writing trap (the default).
  const uint64_t writing = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC;
  r.push_back(EKB_RULE(openat, FilterAction::errno_eacces, arg_masked(2, writing, 0)));
#ifdef SYS_open
  r.push_back(EKB_RULE(open, FilterAction::errno_eacces, arg_masked(1, writing, 0)));
#endif
  // Reading limits is harmless (thread creation does it); setting them is not allowed.
  r.push_back(EKB_RULE(prlimit64, FilterAction::allow, arg_eq(2, 0)));
  return p;
}

FilterPolicy gpu_worker_policy(pid_t self) {
  FilterPolicy p;
  p.default_action = FilterAction::allow;
  auto& r = p.rules;
  for (FilterRule t : std::vector<FilterRule>{
           EKB_RULE(execve, FilterAction::trap), EKB_RULE(execveat, FilterAction::trap), EKB_RULE(socket, FilterAction::trap),
           EKB_RULE(socketpair, FilterAction::trap), EKB_RULE(connect, FilterAction::trap), EKB_RULE(bind, FilterAction::trap),
           EKB_RULE(listen, FilterAction::trap), EKB_RULE(accept, FilterAction::trap), EKB_RULE(accept4, FilterAction::trap),
           EKB_RULE(ptrace, FilterAction::trap), EKB_RULE(kill, FilterAction::trap), EKB_RULE(tkill, FilterAction::trap),
           EKB_RULE(setrlimit, FilterAction::trap), EKB_RULE(setpriority, FilterAction::trap),
           EKB_RULE(process_vm_writev, FilterAction::trap), EKB_RULE(process_vm_readv, FilterAction::trap),
           EKB_RULE(unshare, FilterAction::trap), EKB_RULE(setns, FilterAction::trap), EKB_RULE(mount, FilterAction::trap),
           EKB_RULE(chroot, FilterAction::trap), EKB_RULE(reboot, FilterAction::trap), EKB_RULE(init_module, FilterAction::trap),
           EKB_RULE(kexec_load, FilterAction::trap)})
    r.push_back(t);
#ifdef SYS_fork
  r.push_back(EKB_RULE(fork, FilterAction::trap));
#endif
#ifdef SYS_vfork
  r.push_back(EKB_RULE(vfork, FilterAction::trap));
#endif
  // Threads only; signals only to itself; limits read, not set.
  r.push_back(EKB_RULE(clone, FilterAction::trap, arg_masked(0, CLONE_THREAD, 0)));
  r.push_back(EKB_RULE(clone3, FilterAction::errno_enosys));
  r.push_back(EKB_RULE(tgkill, FilterAction::trap, arg_ne(0, static_cast<uint64_t>(self))));
  r.push_back(EKB_RULE(prlimit64, FilterAction::trap, arg_ne(2, 0)));
  return p;
}

#undef EKB_RULE

std::string load_policy(const FilterPolicy& p) {
#if EKB_HAVE_LIBSECCOMP
  return load_policy_with_libseccomp(p);
#else
  return load_policy_with_bpf(p);
#endif
}

}  // namespace ekb::worker
