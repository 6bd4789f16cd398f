// A GPU worker asked what its device is (gpu_probe.h).
#include "harness/gpu_probe.h"

#include "harness/worker_client.h"

namespace ekb {

GpuProbe probe_gpu(const GpuTarget& target) {
  GpuProbe out;
  worker::WorkerProcess w(worker::default_gpu_worker_path());
  worker::Reply r =
      w.request({{"op", "probe"}, {"api", target.api}, {"platform", target.platform}, {"ordinal", target.ordinal}}, 60000);
  if (!r.ok()) {
    out.why = r.message;
    return out;
  }
  out.ok = true;
  out.device = r.body.value("device", nlohmann::json::object());
  out.compiler = r.body.value("compiler", "");
  return out;
}

void add_gpu_compile_fields(nlohmann::json& request, const GpuTarget& target, uint64_t memory_budget,
                            const std::string& profile, const std::string& program_name) {
  request.update({{"api", target.api},
                  {"platform", target.platform},
                  {"ordinal", target.ordinal},
                  {"max_threads_per_block", target.max_threads_per_block},
                  {"shared_memory_per_block", target.shared_memory_per_block},
                  {"memory_budget", memory_budget},
                  {"profile", profile.empty() ? std::string("the device profile") : "profile " + profile},
                  {"name", program_name + (target.api == "cuda" ? ".cu" : ".cl")}});
}

}  // namespace ekb
