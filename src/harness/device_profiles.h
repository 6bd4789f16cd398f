// Device profiles: what a run may use. On the edge every core and every byte is a budget, so a
// profile fixes the thread count and the memory budget of a candidate's own allocations (beyond its
// arguments). `ekb devices` lists them; `--device NAME` picks one.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ekb {

struct DeviceProfile {
  std::string name, backend, description;
  int threads = 1;
  uint64_t memory_budget = 0;  // bytes
};

// What identifies this machine: CPU model (from /proc/cpuinfo), online CPUs, host name.
struct HostFacts {
  std::string cpu_model, host_name;
  int cpus = 0;
};
HostFacts host_facts();

// The profiles this machine can run (cpu: `host` with every core, `edge-cpu` with 2 threads and 512 MiB,
// `edge-1core` with 1 thread and 256 MiB).
std::vector<DeviceProfile> device_profiles();
// The profile named `name`; throws listing the known ones.
DeviceProfile find_device(const std::string& name);

}  // namespace ekb
