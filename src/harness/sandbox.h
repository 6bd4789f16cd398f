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

// The GPU worker's limits (gpu_worker_main.cpp). A GPU candidate is device code: it reaches the host
// only through the GPU driver, which needs its device files, ioctls and threads, so the allow-list
// above cannot apply. The rlimits do (CPU time, no core dumps), and a deny-list stops what no driver
// needs after set-up: new processes and programs, sockets, signals to other processes, ptrace,
// changing limits. (PoCL runs OpenCL kernels on the CPU, inside this process: the deny-list is what
// stands between such a kernel's stray writes and the system.)
std::string enter_gpu_sandbox(const SandboxLimits& limits);

}  // namespace ekb::worker
