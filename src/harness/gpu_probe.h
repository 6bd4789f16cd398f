// Whether a GPU profile's device is on this machine, asked of a GPU worker (the harness itself never
// loads a GPU stack: PoCL's LLVM must not meet ekb's in one process).
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

// `dev` is a GPU profile.
GpuProbe probe_gpu(const DeviceProfile& dev);

}  // namespace ekb
