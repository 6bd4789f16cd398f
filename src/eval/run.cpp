// Runs over submission sets (run.h).
#include "eval/run.h"

#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <thread>

#include "ekb_commit.h"  // generated at build time (cmake/ekb_commit.cmake)
#include "eval/evaluator.h"
#include "eval/read_bandwidth_check.h"
#include "eval/task_versions.h"
#include "harness/gpu_probe.h"
#include "remote/remote_start.h"
#include "remote/remote_worker.h"
#include "runtime/cpu/c_compiler.h"
#include "suite/task_hash.h"
#include "util/progress.h"

namespace ekb {

const char* ekb_commit() { return EKB_GIT_COMMIT; }

namespace {

// A board's part of the run's environment: what it says about itself, and whether its times mean
// anything (an emulated board's do not). Throws when it cannot be reached or refuses this host.
void describe_board(const DeviceProfile& dev, nlohmann::json& env) {
  const Board& b = *dev.board;
  if (std::string why = cross_compiler_missing(b); !why.empty()) throw std::runtime_error(why);
  nlohmann::json facts;
  try {
    facts = remote::hello_board(b);
  } catch (const remote::BoardUnavailable& e) {
    throw std::runtime_error(fmt::format("device profile `{}` ({}): {}", b.name, b.profile_path, e.what()));
  }
  int cpus = facts.value("cpus", 0), most = facts.value("max_threads", 0);
  if (most <= 0 || most > cpus) most = cpus;
  if (most > 0 && dev.threads > most)
    throw std::runtime_error(fmt::format("device profile `{}` ({}): field `threads` is {}, but the board lets a worker use {} (its CPUs, or "
                                         "`ekb worker --threads`)",
                                         b.name, b.profile_path, dev.threads, most));
  std::string signs = facts.value("emulation_signs", "");
  bool emulated = b.emulated || !signs.empty();
  HostFacts h = host_facts();
  env["harness_host"] = {{"cpu", h.cpu_model}, {"cores", h.cpus}, {"host", h.host_name}};
  env["cpu"] = facts.value("cpu", "");
  env["cores"] = facts.value("cpus", 0);
  env["host"] = facts.value("host", "");
  env["board"] = {{"name", b.name},
                  {"address", b.address.text()},
                  {"profile", b.profile_path},
                  {"arch", arch_name(b.arch)},
                  {"machine", facts.value("machine", "")},
                  {"kernel", facts.value("kernel", "")},
                  {"march", b.march},
                  {"emulated", emulated},
                  {"emulation_signs", signs},
                  {"sandbox", facts.value("sandbox", "")},
                  {"sandboxed", facts.value("sandboxed", false)}};
  // Every output that shows this run's times reads this flag (eval/report.h, cli/eval_report.cpp).
  env["emulated"] = emulated;
  env["compiler"] = fmt::format("{} -march={} (cross, subprocess){}", b.cc, b.march, b.openmp ? "" : " without OpenMP");
}

// Waits up to the board's reconnect time for it to answer again; whether it did.
bool board_back(const Board& b) {
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(b.reconnect_seconds);
  do {
    try {
      remote::hello_board(b);
      return true;
    } catch (const remote::BoardUnavailable&) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  } while (std::chrono::steady_clock::now() < until);
  return false;
}

}  // namespace

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
  if (dev.board) {
    // A board: its own facts; the peak rates its profile gives (measured there: `ekb devices
    // --measure --device FILE`), none for an emulated board (its times are not meaningful).
    describe_board(dev, env);
    env["isa"] = isa_name(target.isa);
    if (!env.value("emulated", false) && dev.board->peak_gflops > 0) {
      peaks.gflops = dev.board->peak_gflops;
      peaks.gbps = dev.board->peak_gbps;
      peaks.measured = "the profile's";
      env["peaks_note"] = "the profile's peak_gbps (a copy bandwidth) serves as the read bandwidth that proves a time impossible: "
                          "a board's profile has no read bandwidth";
    } else {
      env["peaks_note"] = env.value("emulated", false)
                              ? "none: an emulated board's times are not meaningful, so no time is judged impossible"
                              : "none in the profile: no time is judged impossible (ekb devices --measure --device " + dev.board->profile_path + ")";
    }
  } else if (dev.is_gpu()) {
    // The device must be here (asked of a GPU worker); no time is judged impossible on GPU profiles
    // (no peaks are measured for a GPU).
    GpuProbe probe = probe_gpu(dev);
    if (!probe.ok) throw std::runtime_error(fmt::format("device profile `{}`: its device is not available here: {}", dev.name, probe.why));
    env["compiler"] = probe.compiler;
    env["gpu"] = probe.device;
    env["device"]["max_threads_per_block"] = dev.gpu.max_threads_per_block;
    env["device"]["shared_memory_per_block"] = dev.gpu.shared_memory_per_block;
  } else {
    env["compiler"] = make_default_c_compiler()->name();
    env["isa"] = isa_name(target.isa);
    if (!known_peak_rates(store, dev))
      std::cerr << fmt::format("ekb: measuring this machine's peak rates for device `{}` (once; stored in the results store and this machine's cache)...\n",
                               dev.name);
    peaks = peak_rates(store, dev);
  }
  env["peak_gflops"] = peaks.gflops;
  env["peak_gbps"] = peaks.gbps;
  if (peaks.read_gbps > 0) env["read_gbps"] = peaks.read_gbps;
  if (environment) *environment = env;
  return peaks;
}

DeviceProfile with_parallel_cost(DeviceProfile dev, const PeakRates& peaks, Timing timing) {
  if (!dev.is_gpu()) dev.parallel_cost = parallel_cost(peaks, timing);
  return dev;
}

RunInfo evaluate_run(const Suite& suite, const SubmissionSet& subs, const nlohmann::json& key, const DeviceProfile& profile,
                     ResultsStore& store, Timing timing, bool quick) {
  nlohmann::json env;
  PeakRates peaks = prepare_device(store, profile, &env);
  // (The baseline's parallel loops weighed at this machine's cost of a region in this regime.)
  const DeviceProfile dev = with_parallel_cost(profile, peaks, timing);
  record_timing(env, timing);
  nlohmann::json run_key = keyed_by_timing(key, timing);
  if (quick) env["quick"] = run_key["quick"] = true;
  RunInfo run = store.open_run(run_key.dump(), backend_name(dev.backend), dev.name, env);
  EvalOptions eo = eval_options(dev, peaks, timing, &env);
  if (quick) quick_timing(eo);
  ReadBandwidthCheck reads(store, dev);  // (a kernel that read faster than the stored rate: measured again, once)
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
      // An attempt made while its device was unavailable (a board that stopped answering) says
      // nothing about the candidate: made again. (One stored before task or build hashes were
      // recorded is kept.)
      bool unavailable = store.attempt_outcome(run.id, s.task, s.sample) == Outcome::unavailable;
      if (!unavailable && (stored->empty() || *stored == built.build_hash)) {
        progress.step(label + " (stored)", failures);
        continue;
      }
      store.forget_attempt(run.id, s.task, s.sample);
      std::cerr << "ekb: "
                << (unavailable ? label + ": made again (its device was unavailable when it was made)" : rebuild_note(label, *stored, built.build_hash))
                << "\n";
    }
    AttemptRecord a = evaluate_built(task, s, built, eo);
    // A board that stopped answering: once it answers again (within its reconnect time), the attempt
    // is made again; if it does not, the attempt is stored as unavailable and the run stops here,
    // unfinished, to be resumed (rather than every later attempt failing the same way).
    if (a.eval.outcome == Outcome::unavailable && dev.board) {
      std::cerr << "ekb: " << label << ": " << a.eval.message << "; waiting up to " << dev.board->reconnect_seconds
                << " s for the board to answer again\n";
      if (board_back(*dev.board)) a = evaluate_built(task, s, built, eo);
      if (a.eval.outcome == Outcome::unavailable) {
        store.add_attempt(run.id, a);
        progress.step(label + ": " + outcome_name(a.eval.outcome), ++failures);
        progress.finish();
        throw std::runtime_error(fmt::format("board `{}` at {} stopped answering ({}); run {} stopped, unfinished, with {} attempts "
                                             "stored: run the same command again when the board is back to resume it",
                                             dev.board->name, dev.board->address.text(), a.eval.message, run.id, store.attempts(run.id).size()));
      }
    }
    failures += !a.eval.correct();
    reads.after(a.eval, eo);
    store.add_attempt(run.id, a);
    progress.step(label + ": " + outcome_name(a.eval.outcome), failures);
  }
  progress.finish();
  store.finish_run(run.id);
  return *store.run(run.id);
}

}  // namespace ekb
