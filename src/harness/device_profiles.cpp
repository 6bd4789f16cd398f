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
       4ull << 30},
      {"edge-cpu", "cpu", "an edge-class CPU budget on this machine: 2 threads, 512 MiB for a candidate's own allocations",
       std::min(2, cores), 512ull << 20},
      {"edge-1core", "cpu", "a single-core edge CPU budget on this machine: 1 thread, 256 MiB for a candidate's own allocations",
       1, 256ull << 20},
  };
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
