// Device profiles: what a run may use. On the edge every core and every byte is a budget, so a
// profile fixes the thread count and the memory budget of a candidate's own allocations (beyond its
// arguments). `ekb devices` lists them; `--device NAME` picks one.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <optional>

#include "remote/board.h"
#include "target/target.h"

namespace ekb {

// Where a GPU profile's kernels run and what they may use there (0: the device's own limit).
struct GpuDevice {
  std::string platform;  // OpenCL: a part of the platform's name ("NVIDIA", "Portable Computing Language")
  int ordinal = 0;       // CUDA: the device's number
  uint64_t max_threads_per_block = 0;
  uint64_t shared_memory_per_block = 0;
  // The device's throughput, for the agent's cost model (0: the Target's defaults for a small GPU).
  int multiprocessors = 0;
  uint64_t shared_memory_per_multiprocessor = 0;
  double bandwidth_gbs = 0;
};

struct DeviceProfile {
  std::string name;
  Backend backend = Backend::cpu;
  std::string description;
  int threads = 1;             // CPU threads (GPU profiles: 1, the thread that drives the device; PoCL: every core)
  uint64_t memory_budget = 0;  // bytes: the kernel's own allocations (GPU: its scratch buffers, in device memory)
  GpuDevice gpu;               // GPU profiles only
  // A board attached as a remote device (a profile file: remote/board_profile.h): its kernels are
  // cross-compiled here and run there (CPU only).
  std::optional<Board> board;
  // CPU: what a parallel region costs here in the run's timing regime, and one thread's rates
  // (measured with the peak rates: harness/peak_rates.h), for the default schedule; unset: defaults.
  std::optional<ParallelCost> parallel_cost;
  bool is_gpu() const { return ekb::is_gpu(backend); }
  bool is_board() const { return board.has_value(); }
  // What lowering and code generation are given: the host CPU's ISA, caches and the profile's
  // threads (CPU), or the profile's per-block limits (GPU).
  Target target() const;
};

// What identifies this machine: CPU model (from /proc/cpuinfo), online CPUs, host name.
struct HostFacts {
  std::string cpu_model, host_name;
  int cpus = 0;
};
HostFacts host_facts();

// The built-in profiles. CPU: `host` with every core, `edge-cpu` with 2 threads and 512 MiB,
// `edge-1core` with 1 thread and 256 MiB. GPU: `h200-cuda`, `h200-opencl` (the real device through
// each API), `pocl-cpu` (OpenCL on this CPU through PoCL), and edge-class limits applied on the same
// hardware: `jetson-orin-cuda` and `mali-g57-opencl`; `opencl-any`: the first OpenCL platform here. Whether a GPU profile's device is present is
// found by a worker when it is used (`ekb devices --probe`).
std::vector<DeviceProfile> device_profiles();
// The profile named `name`; throws listing the known ones.
DeviceProfile find_device(const std::string& name);
// The profile a command uses: `device` when given (a built-in profile's name, or a board's profile
// file: a path ending in .json, remote/board_profile.h) (its backend must be `backend` when that is
// given: a backend name, or "" for any), else the backend's default: host (cpu), h200-cuda (cuda),
// opencl-any (opencl).
DeviceProfile device_for(const std::string& device, const std::string& backend);

}  // namespace ekb
