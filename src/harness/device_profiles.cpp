// The built-in device profiles.
#include "harness/device_profiles.h"

#include <fmt/format.h>

#include <unistd.h>

#include <fstream>
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
  return {
      {"host", "cpu", fmt::format("this machine's CPU, all {} cores, 4 GiB for a candidate's own allocations", cores), cores,
       4ull << 30, GpuTarget{}},
      {"edge-cpu", "cpu", "an edge-class CPU budget on this machine: 2 threads, 512 MiB for a candidate's own allocations",
       std::min(2, cores), 512ull << 20, GpuTarget{}},
      {"edge-1core", "cpu", "a single-core edge CPU budget on this machine: 1 thread, 256 MiB for a candidate's own allocations",
       1, 256ull << 20, GpuTarget{}},
      {"h200-cuda", "cuda", "the NVIDIA H200 through CUDA (NVRTC, driver API): its own limits, 16 GiB for the kernel's scratch buffers",
       1, 16ull << 30, GpuTarget{"cuda", "", 0, 0, 0}},
      {"h200-opencl", "opencl", "the NVIDIA H200 through NVIDIA's OpenCL: its own limits, 16 GiB for the kernel's scratch buffers", 1,
       16ull << 30, GpuTarget{"opencl", "NVIDIA", 0, 0, 0}},
      {"pocl-cpu", "opencl", fmt::format("OpenCL on this machine's CPU through PoCL ({} cores), 4 GiB for the kernel's scratch buffers", cores),
       cores, 4ull << 30, GpuTarget{"opencl", "Portable Computing Language", 0, 0, 0}},
      {"opencl-any", "opencl", "the first OpenCL platform here that has a device, with its own limits, 4 GiB for the kernel's scratch buffers",
       1, 4ull << 30, GpuTarget{"opencl", "", 0, 0, 0}},
      {"jetson-orin-cuda", "cuda", "Jetson Orin Nano-class limits applied on the CUDA GPU here: 1024 threads and 48 KiB of shared "
       "memory per block, 1 GiB for the kernel's scratch buffers (its 8 GiB are shared with the CPU)",
       1, 1ull << 30, GpuTarget{"cuda", "", 0, 1024, 48u << 10}},
      {"mali-g57-opencl", "opencl", "Mali-G57-class limits applied on the OpenCL GPU here: 384 work-items and 32 KiB of local memory "
       "per work-group, 512 MiB for the kernel's scratch buffers",
       1, 512ull << 20, GpuTarget{"opencl", "NVIDIA", 0, 384, 32u << 10}},
  };
}

std::string default_device_for(const std::string& backend) {
  if (backend == "cpu") return "host";
  if (backend == "cuda") return "h200-cuda";
  if (backend == "opencl") return "opencl-any";
  throw std::runtime_error(fmt::format("unknown backend `{}`; backends: cpu, cuda, opencl", backend));
}

DeviceProfile device_for(const std::string& device, const std::string& backend) {
  DeviceProfile d = find_device(device.empty() ? default_device_for(backend.empty() ? "cpu" : backend) : device);
  if (!backend.empty() && d.backend != backend)
    throw std::runtime_error(fmt::format("device profile `{}` is for the {} backend, not {} (`ekb devices` lists the profiles)", d.name,
                                         d.backend, backend));
  return d;
}

DeviceProfile find_device(const std::string& name) {
  std::string known;
  for (const auto& d : device_profiles()) {
    if (d.name == name) return d;
    known += (known.empty() ? "" : ", ") + d.name;
  }
  throw std::runtime_error(fmt::format("unknown device profile `{}` (known: {}; `ekb devices` lists them)", name, known));
}

}  // namespace ekb
