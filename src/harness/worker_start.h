// Starting a worker for one candidate, the same way for `ekb run FILE` (single_run) and for an
// attempt (evaluate): the worker program for its backend (ekb-worker, or ekb-gpu-worker for a GPU
// target; on a board's profile, a worker on the board: remote/remote_start.h), then compile, the
// shared buffers, and the sandbox. What a GPU worker needs beyond a CPU
// one (the API and device, the profile's limits and budget, the buffers' sizes) is added here.
#pragma once
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "harness/device_profiles.h"
#include "harness/shared_buffers.h"
#include "harness/worker_client.h"
#include "ir/program.h"

namespace ekb {

struct WorkerStart {
  std::string source;
  bool cplusplus = false;
  int threads = 1;
  std::vector<int> cpus;        // where the worker is pinned (empty: not pinned)
  uint64_t memory_budget = 0;   // CPU: the sandbox's budget; GPU: the scratch buffers' budget
  double cpu_seconds = 0;
  uint64_t flush_bytes = 0;     // CPU: the cache flush's buffer
  const GpuDevice* gpu = nullptr;  // a GPU profile's device, or nullptr for the CPU
  Backend backend = Backend::cpu;  // with gpu: its API (cuda or opencl)
  std::string profile;          // the profile's name, for messages
  int idle_spin_us = 0;         // CPU: how long idle OpenMP threads spin before they sleep (worker_client.h)
  const Board* board = nullptr; // a board's profile: the kernel is cross-compiled here and runs there (remote/remote_start.h)
  bool cold = true;             // a board: each call's inputs are evicted from its caches (the cold timing regime)
};

struct StartedWorker {
  std::unique_ptr<worker::Worker> worker;  // a process here, or one on a board
  worker::Reply failure;   // the step that failed (its outcome is not ok), if one did
  // The compile request's answer (compile_ms, compiler; GPU: device, scratch_bytes; a board: `board`, its facts).
  nlohmann::json compiled = nlohmann::json::object();
  bool ok() const { return failure.ok(); }
};

StartedWorker start_worker(const Program& p, const SharedBuffers& buf, const WorkerStart& how);

// The same in two steps: the worker started, compiled and given its buffers; then sandboxed.
// evaluate prepares both of its workers before it sandboxes either, and checks the candidate only
// then: a worker that set up and ran alone before the other existed was measured a few per cent
// slower than its twin (a self-timing bias, bench/self_timing).
StartedWorker prepare_worker(const Program& p, const SharedBuffers& buf, const WorkerStart& how);
worker::Reply sandbox_worker(worker::Worker& w, const WorkerStart& how);

}  // namespace ekb
