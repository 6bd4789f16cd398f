// The limits a worker process puts on itself after compiling a candidate and before running any of
// its code: resource limits (address space, CPU time, file size, core dumps) and a seccomp filter
// that allows only what a compute kernel needs (memory, threads, futexes, time, the already-open
// socket to the harness). Everything else — opening files, sockets, new processes, signals to other
// processes, ptrace — stops the worker with a report of the system call, which the harness turns
// into the failure kind "denied".
#pragma once
#include <cstdint>
#include <string>

namespace ekb::worker {

struct SandboxLimits {
  uint64_t address_space_bytes = 0;  // total virtual memory the process may have (0: no limit)
  double cpu_seconds = 0;            // CPU time over all threads (0: no limit)
  uint64_t max_mapping_bytes = 0;    // one mmap/mremap larger than this stops the worker: over budget (0: no limit)
};

// Exit status of a worker stopped for a denied system call (it writes "denied: NAME" to stderr first).
constexpr int kDeniedExitStatus = 97;
// Exit status of a worker stopped for asking for one mapping larger than its whole memory budget.
constexpr int kOverBudgetExitStatus = 98;

// The process's current virtual memory size in bytes (VmSize), or 0 when unknown.
uint64_t current_address_space();

// Applies the limits and the filter to the calling process (all its threads must start after this,
// or already exist: the filter is synchronized to every thread). Returns an empty string, or what
// failed.
std::string enter_sandbox(const SandboxLimits& limits, int harness_socket);

}  // namespace ekb::worker
