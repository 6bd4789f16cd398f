// A single sandboxed run through ekb-worker (single_run.h).
#include "harness/single_run.h"

#include "harness/shared_buffers.h"
#include "harness/worker_client.h"
#include "runtime/kernel_args.h"

namespace ekb {

SingleRun run_isolated(const Program& p, const std::string& c_source, bool cplusplus, const std::vector<TensorData>& inputs,
                       int threads, bool time_it, double min_seconds, int min_reps) {
  SingleRun out;
  worker::WorkerProcess w("", worker::worker_cpus(threads));
  SharedBuffers buf(p, 1);
  auto failed = [&](const worker::Reply& r) {
    out.status = r.failure == worker::Failure::compile ? "compile" : worker::failure_name(r.failure);
    out.message = r.message;
    out.compile_log = r.body.is_object() ? r.body.value("log", "") : "";
    return out;
  };
  worker::Reply r = w.request({{"op", "compile"}, {"source", c_source}, {"cplusplus", cplusplus}}, 180000);
  if (!r.ok()) return failed(r);
  out.compile_ms = r.body.value("compile_ms", 0.0);
  out.compiler = r.body.value("compiler", "");
  r = w.request({{"op", "buffers"}, {"bytes", buf.bytes()}, {"sets", buf.layout()}}, 30000, buf.fd());
  if (r.ok())
    r = w.request({{"op", "sandbox"}, {"threads", threads}, {"memory_budget", uint64_t(4) << 30}, {"cpu_seconds", 600.0},
                   {"flush_bytes", 1 << 20}},
                  60000);
  if (!r.ok()) return failed(r);
  std::vector<HostBuffer> host;
  for (const auto& t : inputs) host.push_back(to_host(t));
  buf.write_inputs(0, host);
  buf.poison_outputs(0, 0xAB);
  nlohmann::json run = {{"op", "run"}, {"set", 0}, {"threads", threads}, {"calls", 1}};
  r = w.request(run, 120000);
  if (!r.ok()) return failed(r);
  if (!buf.guards_intact()) {
    out.status = "out of bounds";
    out.message = "the kernel wrote outside its buffers (a guard zone beside them changed)";
    return out;
  }
  out.outputs = buf.read_outputs(0);
  if (!buf.inputs_equal(0, host)) {
    out.status = "input mutated";
    out.message = "the kernel changed its inputs";
    return out;
  }
  if (!time_it) return out;
  std::vector<double> ms;
  double total = 0;
  while ((total < min_seconds || static_cast<int>(ms.size()) < min_reps) && ms.size() < 10000) {
    r = w.request(run, 120000);
    if (!r.ok()) return failed(r);
    ms.push_back(r.wall_ms);
    total += r.wall_ms / 1000.0;
  }
  out.timing = summarize_times(ms);
  return out;
}

}  // namespace ekb
