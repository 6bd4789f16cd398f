// Runs over submission sets (run.h).
#include "eval/run.h"

#include <fmt/format.h>

#include <iostream>

#include "ekb_commit.h"  // generated at build time (cmake/ekb_commit.cmake)
#include "eval/evaluator.h"
#include "eval/task_versions.h"
#include "harness/gpu_probe.h"
#include "runtime/cpu/c_compiler.h"
#include "suite/task_hash.h"
#include "util/progress.h"

namespace ekb {

const char* ekb_commit() { return EKB_GIT_COMMIT; }

PeakRates prepare_device(ResultsStore& store, const DeviceProfile& dev, nlohmann::json* environment) {
  HostFacts h = host_facts();
  Target target = dev.target();
  nlohmann::json env = {{"cpu", h.cpu_model},
                        {"cores", h.cpus},
                        {"host", h.host_name},
                        {"ekb_commit", ekb_commit()},
                        {"target", target.describe()},
                        {"device", {{"name", dev.name}, {"threads", dev.threads}, {"memory_budget", dev.memory_budget}}}};
  PeakRates peaks{};
  if (dev.is_gpu()) {
    // The device must be here (asked of a GPU worker); the roofline check needs CPU-measured peaks
    // and is not applied on GPU profiles.
    GpuProbe probe = probe_gpu(dev);
    if (!probe.ok) throw std::runtime_error(fmt::format("device profile `{}`: its device is not available here: {}", dev.name, probe.why));
    env["compiler"] = probe.compiler;
    env["gpu"] = probe.device;
    env["device"]["max_threads_per_block"] = dev.gpu.max_threads_per_block;
    env["device"]["shared_memory_per_block"] = dev.gpu.shared_memory_per_block;
  } else {
    env["compiler"] = make_default_c_compiler()->name();
    env["isa"] = isa_name(target.isa);
    if (!stored_peak_rates(store, dev))
      std::cerr << fmt::format("ekb: measuring this machine's peak rates for device `{}` (once; stored in the results store)...\n",
                               dev.name);
    peaks = peak_rates(store, dev);
  }
  env["peak_gflops"] = peaks.gflops;
  env["peak_gbps"] = peaks.gbps;
  if (environment) *environment = env;
  return peaks;
}

RunInfo evaluate_run(const Suite& suite, const SubmissionSet& subs, const nlohmann::json& key, const DeviceProfile& dev,
                     ResultsStore& store, Timing timing, bool quick) {
  nlohmann::json env;
  PeakRates peaks = prepare_device(store, dev, &env);
  env["timing"] = timing_name(timing);
  nlohmann::json run_key = keyed_by_timing(key, timing);
  if (quick) env["quick"] = run_key["quick"] = true;
  RunInfo run = store.open_run(run_key.dump(), backend_name(dev.backend), dev.name, env);
  EvalOptions eo = eval_options(dev, peaks, timing);
  if (quick) quick_timing(eo);
  Progress progress("eval", subs.items.size());
  size_t failures = 0;
  for (const auto& s : subs.items) {
    std::string label = fmt::format("{} sample {}", s.task, s.sample);
    const Task& task = *suite.find(s.task);
    std::string hash = task_hash(*task.program);
    if (auto stale = drop_other_version(store, run.id, s.task, s.sample, hash))
      std::cerr << "ekb: " << remeasure_note(label, *stale, hash) << "\n";
    BuiltSubmission built = build_submission(task, s, dev);
    if (auto stored = store.attempt_build_hash(run.id, s.task, s.sample)) {
      // (One stored before task or build hashes were recorded is kept.)
      if (stored->empty() || *stored == built.build_hash) {
        progress.step(label + " (stored)", failures);
        continue;
      }
      store.forget_attempt(run.id, s.task, s.sample);
      std::cerr << "ekb: " << rebuild_note(label, *stored, built.build_hash) << "\n";
    }
    AttemptRecord a = evaluate_built(task, s, built, eo);
    failures += !a.eval.correct();
    store.add_attempt(run.id, a);
    progress.step(label + ": " + outcome_name(a.eval.outcome), failures);
  }
  progress.finish();
  store.finish_run(run.id);
  return *store.run(run.id);
}

}  // namespace ekb
