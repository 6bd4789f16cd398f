// The workers' seccomp filters as data: for each system call that is not simply the default, what
// happens to it (allowed, allowed only with certain arguments, failed with an errno, trapped). One
// table per kind of worker, written once with the system call numbers of the architecture ekb is
// built for, and loaded by either of two loaders: libseccomp (the host's build) or ekb's own BPF
// compiler (seccomp_bpf.h: the builds for boards, where libseccomp is not packaged for the board's
// architecture). So a board's worker is held to the same filter as a worker on the host.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ekb::worker {

enum class FilterAction { allow, trap, errno_eacces, errno_enosys, kill };

// A condition on one 64-bit argument of the call.
enum class ArgCmp { eq, ne, le, masked_eq };
struct ArgCondition {
  int arg = 0;          // 0..5
  ArgCmp cmp = ArgCmp::eq;
  uint64_t value = 0;   // (masked_eq: the value the masked argument must equal)
  uint64_t mask = ~0ull;
};

// `action` when the call is `nr` (and `condition` holds, when there is one); otherwise the default.
// A call appears in at most one rule.
struct FilterRule {
  int nr = -1;
  const char* name = "";  // for messages and tests
  FilterAction action = FilterAction::allow;
  std::optional<ArgCondition> condition;
};

struct FilterPolicy {
  FilterAction default_action = FilterAction::trap;
  std::vector<FilterRule> rules;
};

// The CPU worker's allow-list (sandbox.h): memory (mappings up to `max_mapping_bytes` when it is not
// 0), threads, futexes, time, signals to itself (`self`), messages on the harness's socket only;
// read-only opens fail with EACCES, clone3 with ENOSYS (the C library falls back to clone, which is
// allowed for threads only); everything else traps.
FilterPolicy cpu_worker_policy(uint64_t max_mapping_bytes, int harness_socket, pid_t self);
// The GPU worker's deny-list (sandbox.h): everything is allowed but new processes and programs,
// sockets, signals to other processes, ptrace, changing limits and the like, which trap.
FilterPolicy gpu_worker_policy(pid_t self);

// Loads `p` into the calling process, for every thread (TSYNC), with no_new_privs set. Returns an
// empty string, or what failed. Each is built only where it can be: the libseccomp loader in the
// host's build, the BPF one everywhere.
std::string load_policy_with_libseccomp(const FilterPolicy& p);
std::string load_policy_with_bpf(const FilterPolicy& p);
// The loader of this build: libseccomp where ekb was built with it, else the BPF compiler.
std::string load_policy(const FilterPolicy& p);

}  // namespace ekb::worker
