// A single sandboxed run through ekb-worker (single_run.h).
#include "harness/single_run.h"

#include <chrono>

#include "harness/worker_start.h"
#include "harness/shared_buffers.h"
#include "harness/worker_client.h"
#include "runtime/kernel_args.h"

namespace ekb {

namespace {

// A worker for `c_source`, compiled and given one argument slot: here, on a GPU profile's device,
// or on a board (`device`).
StartedWorker start_single(const Program& p, SharedBuffers& buf, const std::string& c_source, bool cplusplus, int threads,
                           const DeviceProfile* device) {
  const DeviceProfile* gpu = device && device->is_gpu() ? device : nullptr;
  return start_worker(p, buf,
                      WorkerStart{c_source, cplusplus, threads, worker::worker_cpus(threads),
                                  gpu ? gpu->memory_budget : uint64_t(4) << 30, 600.0, 1u << 20, gpu ? &gpu->gpu : nullptr,
                                  gpu ? gpu->backend : Backend::cpu, device ? device->name : "", 0,
                                  device && device->board ? &*device->board : nullptr});
}

// One checked call on `inputs` in slot 0: inputs written, outputs poisoned, then the guards and the
// inputs checked. Returns the outcome (ok, or the worker's or the checks' failure) and its message.
std::pair<Outcome, std::string> checked_call(worker::Worker& w, SharedBuffers& buf, const std::vector<TensorData>& inputs,
                                             int threads, std::vector<TensorData>& outputs, worker::Reply& reply) {
  std::vector<HostBuffer> host;
  for (const auto& t : inputs) host.push_back(to_host(t));
  buf.write_inputs(0, host);
  buf.poison_outputs(0, 0xAB);
  reply = w.request({{"op", "run"}, {"set", 0}, {"threads", threads}, {"calls", 1}, {"locate", true}}, 120000);
  if (!reply.ok()) return {reply.outcome, reply.message};
  if (!buf.guards_intact()) return {Outcome::out_of_bounds, "the kernel wrote outside its buffers (a guard zone beside them changed)"};
  outputs = buf.read_outputs(0);
  if (!buf.inputs_equal(0, host)) return {Outcome::input_mutated, "the kernel changed its inputs"};
  return {Outcome::ok, ""};
}

std::string reply_log(const worker::Reply& r) { return r.body.is_object() ? r.body.value("log", "") : ""; }

}  // namespace

SingleRun run_isolated(const Program& p, const std::string& c_source, bool cplusplus, const std::vector<TensorData>& inputs,
                       int threads, bool time_it, double min_seconds, int min_reps, const DeviceProfile* device) {
  const DeviceProfile* gpu = device && device->is_gpu() ? device : nullptr;
  SingleRun out;
  SharedBuffers buf(p, 1);
  auto failed = [&](const worker::Reply& r) {
    out.outcome = r.outcome;
    out.message = r.message;
    out.compile_log = reply_log(r);
    return out;
  };
  StartedWorker s = start_single(p, buf, c_source, cplusplus, threads, device);
  if (!s.ok()) return failed(s.failure);
  worker::Worker& w = *s.worker;
  out.compile_ms = s.compiled.value("compile_ms", 0.0);
  out.compile_cached = s.compiled.value("cached", false);
  out.compiler = s.compiled.value("compiler", "");
  out.confinement = s.compiled.value("confinement", "");
  if (gpu) out.device = s.compiled.value("device", nlohmann::json::object()).value("name", "");
  if (s.compiled.contains("board")) {
    const auto& b = s.compiled["board"];
    bool emulated = device->board->emulated || !b.value("emulation_signs", std::string()).empty();
    out.board = device->name + " (" + b.value("arch", "") + ", " + b.value("host", "") + (emulated ? ", emulated: times not meaningful" : "") + ")";
  }
  worker::Reply r;
  auto [outcome, message] = checked_call(w, buf, inputs, threads, out.outputs, r);
  if (outcome != Outcome::ok) {
    if (!r.ok()) return failed(r);
    out.outcome = outcome;
    out.message = message;
    return out;
  }
  if (!time_it) return out;
  nlohmann::json run = {{"op", "run"}, {"set", 0}, {"threads", threads}, {"calls", 1}, {"locate", false}};
  std::vector<double> ms;
  double total = 0;
  // (GPU calls are timed on the device, but each also copies its buffers: the loop runs on wall time.)
  auto t0 = std::chrono::steady_clock::now();
  auto spent = [&] { return gpu ? std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() : total; };
  while ((spent() < min_seconds || static_cast<int>(ms.size()) < min_reps) && ms.size() < 10000) {
    r = w.request(run, 120000);
    if (!r.ok()) return failed(r);
    double t = r.body.value("kernel_ms", r.wall_ms);  // the worker's own time of the kernel (evaluate.cpp)
    ms.push_back(t);
    total += t / 1000.0;
  }
  out.timing = summarize_times(ms);
  return out;
}

SingleRunSets run_isolated_sets(const Program& p, const std::string& c_source, bool cplusplus,
                                const std::vector<std::vector<TensorData>>& input_sets, int threads, const DeviceProfile* gpu) {
  SingleRunSets out;
  SharedBuffers buf(p, 1);
  StartedWorker s = start_single(p, buf, c_source, cplusplus, threads, gpu);
  if (!s.ok()) {
    out.outcome = s.failure.outcome;
    out.message = s.failure.message;
    out.compile_log = reply_log(s.failure);
    return out;
  }
  out.compiler = s.compiled.value("compiler", "");
  if (gpu) out.device = s.compiled.value("device", nlohmann::json::object()).value("name", "");
  for (size_t i = 0; i < input_sets.size(); ++i) {
    std::vector<TensorData> outputs;
    worker::Reply r;
    auto [outcome, message] = checked_call(*s.worker, buf, input_sets[i], threads, outputs, r);
    if (outcome != Outcome::ok) {
      out.outcome = outcome;
      out.message = "input set " + std::to_string(i + 1) + ": " + message;
      out.compile_log = reply_log(r);
      return out;
    }
    out.outputs.push_back(std::move(outputs));
  }
  return out;
}

}  // namespace ekb
