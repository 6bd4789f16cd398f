// The start-up requests of a candidate's worker (worker_start.h).
#include "harness/worker_start.h"

namespace ekb {

StartedWorker start_worker(const Program& p, const SharedBuffers& buf, const WorkerStart& how) {
  StartedWorker s;
  s.worker = std::make_unique<worker::WorkerProcess>(how.gpu ? worker::default_gpu_worker_path() : "", how.cpus);
  nlohmann::json compile = {{"op", "compile"}, {"source", how.source}, {"cplusplus", how.cplusplus}};
  nlohmann::json buffers = {{"op", "buffers"}, {"bytes", buf.bytes()}, {"sets", buf.layout()}};
  if (how.gpu) {
    compile.update({{"api", backend_name(how.backend)},
                    {"platform", how.gpu->platform},
                    {"ordinal", how.gpu->ordinal},
                    {"max_threads_per_block", how.gpu->max_threads_per_block},
                    {"shared_memory_per_block", how.gpu->shared_memory_per_block},
                    {"memory_budget", how.memory_budget},
                    {"profile", how.profile.empty() ? std::string("the device profile") : "profile " + how.profile},
                    {"name", p.name + (how.backend == Backend::cuda ? ".cu" : ".cl")}});
    buffers.update({{"sizes", buf.sizes()}, {"guard", SharedBuffers::guard_bytes()}});
  }
  worker::Reply r = s.worker->request(compile, 180000);
  if (r.ok()) {
    s.compiled = r.body;
    r = s.worker->request(buffers, 60000, buf.fd());
  }
  if (r.ok())
    r = s.worker->request({{"op", "sandbox"},
                           {"threads", how.threads},
                           {"memory_budget", how.gpu ? 0 : how.memory_budget},
                           {"cpu_seconds", how.cpu_seconds},
                           {"flush_bytes", how.flush_bytes}},
                          60000);
  if (!r.ok()) s.failure = r;
  return s;
}

}  // namespace ekb
