// The built-in device profiles.
#include "harness/device_profiles.h"
#include "remote/board_profile.h"

#include <fmt/format.h>

#include <unistd.h>

#include <fstream>
#include <optional>
#include <stdexcept>
#include <thread>

namespace ekb {

HostFacts host_facts() {
  HostFacts h;
  h.cpu_model = "unknown";
  std::ifstream f("/proc/cpuinfo");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("model name", 0) == 0) {
      h.cpu_model = line.substr(line.find(':') + 2);
      break;
    }
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  h.host_name = host;
  h.cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  return h;
}

std::vector<DeviceProfile> device_profiles() {
  int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // The NVIDIA H200 (SXM): 132 multiprocessors, 228 KiB of shared memory each, 4.8 TB/s of HBM3e.
  auto h200 = [](const char* platform) { return GpuDevice{platform, 0, 0, 0, 132, 228u << 10, 4800}; };
  return {
      {"host", Backend::cpu, fmt::format("this machine's CPU, all {} cores, 4 GiB for a candidate's own allocations", cores), cores,
       4ull << 30, GpuDevice{}, std::nullopt, std::nullopt},
      {"edge-cpu", Backend::cpu, "an edge-class CPU budget on this machine: 2 threads, 512 MiB for a candidate's own allocations",
       std::min(2, cores), 512ull << 20, GpuDevice{}, std::nullopt, std::nullopt},
      {"edge-1core", Backend::cpu, "a single-core edge CPU budget on this machine: 1 thread, 256 MiB for a candidate's own allocations",
       1, 256ull << 20, GpuDevice{}, std::nullopt, std::nullopt},
      {"h200-cuda", Backend::cuda, "the NVIDIA H200 through CUDA (NVRTC, driver API): its own limits, 16 GiB for the kernel's scratch buffers",
       1, 16ull << 30, h200(""), std::nullopt, std::nullopt},
      {"h200-opencl", Backend::opencl, "the NVIDIA H200 through NVIDIA's OpenCL: its own limits, 16 GiB for the kernel's scratch buffers", 1,
       16ull << 30, h200("NVIDIA"), std::nullopt, std::nullopt},
      {"pocl-cpu", Backend::opencl, fmt::format("OpenCL on this machine's CPU through PoCL ({} cores), 4 GiB for the kernel's scratch buffers", cores),
       cores, 4ull << 30, GpuDevice{"Portable Computing Language", 0, 0, 0}, std::nullopt, std::nullopt},
      {"opencl-any", Backend::opencl, "the first OpenCL platform here that has a device, with its own limits, 4 GiB for the kernel's scratch buffers",
       1, 4ull << 30, GpuDevice{"", 0, 0, 0}, std::nullopt, std::nullopt},
      {"jetson-orin-cuda", Backend::cuda, "Jetson Orin Nano-class limits applied on the CUDA GPU here: 1024 threads and 48 KiB of shared "
       "memory per block, 1 GiB for the kernel's scratch buffers (its 8 GiB are shared with the CPU)",
       1, 1ull << 30, GpuDevice{"", 0, 1024, 48u << 10}, std::nullopt, std::nullopt},
      {"mali-g57-opencl", Backend::opencl, "Mali-G57-class limits applied on the OpenCL GPU here: 384 work-items and 32 KiB of local memory "
       "per work-group, 512 MiB for the kernel's scratch buffers",
       1, 512ull << 20, GpuDevice{"NVIDIA", 0, 384, 32u << 10}, std::nullopt, std::nullopt},
  };
}

Target DeviceProfile::target() const {
  Target t = is_gpu()   ? gpu_target(backend, static_cast<int64_t>(gpu.max_threads_per_block),
                                     static_cast<int64_t>(gpu.shared_memory_per_block))
             : board    ? board_target(*board, threads)
                        : host_cpu_target(threads);
  t.profile = name;
  if (parallel_cost) t.parallel_cost = *parallel_cost;
  if (gpu.multiprocessors > 0) t.multiprocessors = gpu.multiprocessors;
  if (gpu.shared_memory_per_multiprocessor > 0) t.shared_memory_per_multiprocessor = static_cast<int64_t>(gpu.shared_memory_per_multiprocessor);
  if (gpu.bandwidth_gbs > 0) t.bandwidth_gbs = gpu.bandwidth_gbs;
  return t;
}

namespace {

const char* default_device_for(Backend backend) {
  switch (backend) {
    case Backend::cpu: return "host";
    case Backend::cuda: return "h200-cuda";
    case Backend::opencl: return "opencl-any";
  }
  return "host";
}

}  // namespace

DeviceProfile device_for(const std::string& device, const std::string& backend_text) {
  std::optional<Backend> backend;
  if (!backend_text.empty()) backend = parse_backend(backend_text);
  DeviceProfile d = is_profile_file(device) ? read_board_profile(device)
                                            : find_device(device.empty() ? default_device_for(backend.value_or(Backend::cpu)) : device);
  if (backend && d.backend != *backend)
    throw std::runtime_error(fmt::format("device profile `{}` is for the {} backend, not {} (`ekb devices` lists the profiles)", d.name,
                                         backend_name(d.backend), backend_text));
  return d;
}

DeviceProfile find_device(const std::string& name) {
  std::string known;
  for (const auto& d : device_profiles()) {
    if (d.name == name) return d;
    known += (known.empty() ? "" : ", ") + d.name;
  }
  throw std::runtime_error(fmt::format("unknown device profile `{}` (known: {}; `ekb devices` lists them; a board's profile is a "
                                       "file ending in .json, docs/scale.md)",
                                       name, known));
}

}  // namespace ekb
