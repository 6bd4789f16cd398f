// The harness's side of a worker (worker_main.cpp): one interface, `Worker`, for a worker process on
// this machine (`WorkerProcess`: starting it, sending it requests with a deadline, and turning every
// way it can fail into a classified result) and for one on a board (remote/remote_worker.h), so
// that the attempt protocol (evaluate.h) is the same for both. A worker that failed is dead (killed
// and reaped); the caller starts a new one and the run goes on.
#pragma once
#include <sys/types.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "harness/outcome.h"

namespace ekb::worker {

// How a request ended: Outcome::ok, or the failure (outcome.h): compile (the candidate does not
// compile; the worker is still alive), crash (a signal), timeout (killed), denied (a system call the
// sandbox forbids), exited (it ended on its own), cpu_limit (SIGXCPU), over_budget (one allocation
// larger than the whole memory budget), protocol (a malformed or refused request or answer), and on
// GPUs launch_limits, device_fault and unavailable.

struct Reply {
  Outcome outcome = Outcome::ok;
  std::string message;  // what happened, for people
  nlohmann::json body;  // the worker's answer when the outcome is ok or compile
  double wall_ms = 0;   // the request's round trip, measured here (a board's worker: measured on the board)
  int denied_syscall = -1;  // denied: the system call's number (the worker's architecture's), when known
  bool ok() const { return outcome == Outcome::ok; }
};

// What the harness asks of a worker, wherever it runs.
class Worker {
 public:
  virtual ~Worker() = default;
  // Sends `request` (with `fd` passed along when >= 0: a shared-memory region or a file's bytes)
  // and waits up to `timeout_ms` for the answer.
  virtual Reply request(const nlohmann::json& request, int timeout_ms, int fd = -1) = 0;
  virtual bool alive() const = 0;
  // The worker's peak resident memory (VmHWM) in bytes, read outside its reach; 0 if gone.
  virtual uint64_t peak_rss() = 0;
  // Starts the peak over (from the resident memory now) and returns the resident memory now: the
  // mark from which a candidate's own allocations are measured.
  virtual uint64_t reset_peak_rss() = 0;
  // CPU time used by all its threads so far, in seconds (read from outside it); 0 if gone.
  virtual double cpu_seconds() = 0;
};

class WorkerProcess final : public Worker {
 public:
  // Starts `path` (empty: ekb-worker beside this program, or $EKB_WORKER; ekb-gpu-worker for GPU
  // candidates), pinned to `cpus` (empty: not pinned) with one OpenMP thread per CPU. Idle OpenMP
  // threads sleep at once, or, with `idle_spin_us` > 0, spin that long before they sleep (the warm
  // timing regime: calls back to back find them awake; LLVM's libomp only, worker_client.cpp). Throws
  // when it cannot start it.
  // `launcher`: words run before the worker's path (an emulator: {"qemu-aarch64", "-L", DIR}), and
  // `extra_args` after its own arguments; `extra_env`: NAME=VALUE set in its environment.
  explicit WorkerProcess(const std::string& path = "", const std::vector<int>& cpus = {}, int idle_spin_us = 0,
                         const std::vector<std::string>& launcher = {}, const std::vector<std::string>& extra_args = {},
                         const std::vector<std::string>& extra_env = {});
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  Reply request(const nlohmann::json& request, int timeout_ms, int fd = -1) override;
  bool alive() const override { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  uint64_t peak_rss() override;  // (from /proc)
  uint64_t reset_peak_rss() override;
  double cpu_seconds() override;

 private:
  pid_t pid_ = -1;
  int sock_ = -1, err_ = -1;  // the socket, and the read end of its stderr
  std::string private_dir_;   // its own directory ($TMPDIR/ekb-worker-XXXXXX), removed with it
  Reply bury(Outcome default_kind, const std::string& why);  // kill, reap, classify
  std::string drain_stderr();
};

// The first `threads` CPUs this process may run on: where every worker of a run is pinned, so that
// the candidate and the baseline run on the same CPUs.
std::vector<int> worker_cpus(int threads);

// Where ekb-worker is: $EKB_WORKER, else beside the running program.
std::string default_worker_path();
// Where ekb-gpu-worker is: $EKB_GPU_WORKER, else beside the running program.
std::string default_gpu_worker_path();

// A system call's name for a number of `arch`'s ("x86_64", "aarch64", "riscv64"; "" this build's),
// or "#NR" where this build cannot name it.
std::string syscall_name(int nr, const std::string& arch);

}  // namespace ekb::worker
