// Talking to GPU workers: whether a GPU profile's device is on this machine (the harness itself never
// loads a GPU stack: PoCL's LLVM must not meet ekb's in one process), and what a compile request for
// a GPU worker carries.
#pragma once
#include <nlohmann/json.hpp>

#include <string>

#include "harness/device_profiles.h"

namespace ekb {

struct GpuProbe {
  bool ok = false;
  std::string why;        // when not ok: no driver, no platform, no such platform (with the ones there are)
  nlohmann::json device;  // when ok: name, platform, version, arch, limits, memory
  std::string compiler;
};

GpuProbe probe_gpu(const GpuTarget& target);

// The fields a GPU worker's compile request adds: the API and device, the profile's limits and
// memory budget, the profile's name (for messages) and the program's file name.
void add_gpu_compile_fields(nlohmann::json& request, const GpuTarget& target, uint64_t memory_budget,
                            const std::string& profile, const std::string& program_name);

}  // namespace ekb
