// A GPU worker asked what its device is (gpu_probe.h).
#include "harness/gpu_probe.h"

#include "harness/worker_client.h"

namespace ekb {

GpuProbe probe_gpu(const DeviceProfile& dev) {
  GpuProbe out;
  worker::WorkerProcess w(worker::default_gpu_worker_path());
  worker::Reply r = w.request(
      {{"op", "probe"}, {"api", backend_name(dev.backend)}, {"platform", dev.gpu.platform}, {"ordinal", dev.gpu.ordinal}}, 60000);
  if (!r.ok()) {
    out.why = r.message;
    return out;
  }
  out.ok = true;
  out.device = r.body.value("device", nlohmann::json::object());
  out.compiler = r.body.value("compiler", "");
  return out;
}

}  // namespace ekb
