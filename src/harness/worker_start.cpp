// The start-up requests of a candidate's worker (worker_start.h).
#include "harness/worker_start.h"

#include <sys/mman.h>
#include <unistd.h>

#include "harness/compile_cache.h"
#include "remote/remote_start.h"
#include "runtime/cpu/c_compiler.h"
#include "util/base64.h"

namespace ekb {

namespace {

// A memory file holding `bytes`, to hand to a worker (-1 when it cannot be made: then it compiles).
int bytes_fd(const std::string& bytes) {
  int fd = memfd_create("ekb-binary", MFD_CLOEXEC);
  if (fd < 0) return -1;
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) {
      close(fd);
      return -1;
    }
    done += static_cast<size_t>(n);
  }
  return fd;
}

}  // namespace

StartedWorker prepare_worker(const Program& p, const SharedBuffers& buf, const WorkerStart& how) {
  if (how.board) return prepare_remote_worker(p, buf, how);
  StartedWorker s;
  s.worker = std::make_unique<worker::WorkerProcess>(how.gpu ? worker::default_gpu_worker_path() : "", how.cpus,
                                                     how.gpu ? 0 : how.idle_spin_us);
  nlohmann::json compile = {{"op", "compile"}, {"source", how.source}, {"cplusplus", how.cplusplus}};
  nlohmann::json buffers = {{"op", "buffers"}, {"bytes", buf.bytes()}, {"sets", buf.layout()}, {"args", buf.argument_kinds()}};
  if (!buf.reserve_layout().is_null()) buffers["reserve"] = buf.reserve_layout();
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
  // CPU: the compiled kernel from the compile cache when it is there (the worker loads it), else the
  // worker compiles and hands the binary back to be kept.
  CompileCache cache;
  std::string key;
  int binary_fd = -1;
  if (!how.gpu && cache.enabled()) {
    key = CompileCache::key(default_c_compiler_identity(), how.source, how.cplusplus);
    if (auto bytes = cache.get(key)) {
      binary_fd = bytes_fd(*bytes);
      if (binary_fd >= 0) compile["binary_bytes"] = bytes->size();
    }
    compile["want_binary"] = true;  // (sent back only when it compiled: also when a kept one did not load)
  }
  worker::Reply r = s.worker->request(compile, 180000, binary_fd);
  if (binary_fd >= 0) close(binary_fd);
  if (r.ok() && r.body.contains("binary")) {
    if (auto bytes = base64_decode(r.body["binary"].get<std::string>())) cache.put(key, *bytes);
    r.body.erase("binary");
  }
  if (r.ok()) {
    s.compiled = r.body;
    r = s.worker->request(buffers, 60000, buf.fd());
  }
  if (!r.ok()) s.failure = r;
  return s;
}

worker::Reply sandbox_worker(worker::Worker& w, const WorkerStart& how) {
  return w.request({{"op", "sandbox"},
                    {"threads", how.threads},
                    {"memory_budget", how.gpu ? 0 : how.memory_budget},
                    {"cpu_seconds", how.cpu_seconds},
                    {"flush_bytes", how.flush_bytes}},
                   60000);
}

StartedWorker start_worker(const Program& p, const SharedBuffers& buf, const WorkerStart& how) {
  StartedWorker s = prepare_worker(p, buf, how);
  if (s.ok()) s.failure = sandbox_worker(*s.worker, how);
  return s;
}

}  // namespace ekb
