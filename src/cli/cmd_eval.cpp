// `ekb eval DIR`: every submission in DIR checked and timed against its task's baseline (each in a
// sandboxed worker), stored in the results store as it ends, then the metrics; resumable.
// `ekb results [RUN]`: what the store holds. `ekb devices`: the device profiles.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "util/text_hash.h"
#include "cli/eval_report.h"
#include "eval/report.h"
#include "eval/run.h"
#include "eval/task_versions.h"
#include "harness/device_profiles.h"
#include "harness/gpu_probe.h"
#include "harness/peak_rates.h"
#include "harness/results_store.h"
#include "harness/submissions.h"
#include "remote/remote_worker.h"

namespace ekb::cli {

namespace {

// The figures beyond the peaks: reading from memory, one thread's rates, what a parallel region costs.
std::string rates_detail(const PeakRates& r, const DeviceProfile& d) {
  std::string s = fmt::format("\n{:<16} reading {:.1f} GB/s (one thread {:.1f}); one thread {:.1f} GFLOP/s", "", r.read_gbps,
                              r.thread_read_gbps, r.thread_gflops);
  if (d.threads > 1)
    s += fmt::format("; a parallel region costs {:.1f} us cold, {:.1f} us warm, {:.1f} us cold-asleep", r.region_us_cold,
                     r.region_us_warm, r.region_us_asleep);
  return s;
}

}  // namespace


std::string default_db() {
  const char* env = std::getenv("EKB_DB");
  return env && *env ? env : "ekb_results.db";
}

std::string hash_hex(const std::string& text) {
  return text_hash_hex(text);
}

void run_evaluation(const Suite& suite, const SubmissionSet& subs, const nlohmann::json& key, const DeviceProfile& dev,
                    const std::string& db, bool json, Timing timing, bool quick) {
  ResultsStore store(db);
  RunInfo run = evaluate_run(suite, subs, key, dev, store, timing, quick);
  if (quick && !json)
    std::cout << "quick timing (--quick): every check as always, times from a few calls per side: a verification, not a "
                 "measurement\n";
  auto attempts = store.attempts(run.id);
  if (json) std::cout << report_json(run, attempts, subs.problems).dump(2) << "\n";
  else print_report(run, attempts, subs.problems);
}

void register_eval(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand("eval", "Check and time every submission in DIR against its task's baseline (each kernel in a "
                                         "sandboxed worker process), store the attempts, print the metrics. Resumable: run it "
                                         "again with the same arguments after an interruption.");
  struct Opts {
    std::string dir, backend, device, tasks, db = default_db(), timing = "cold", shard;
    bool json = false, quick = false, defaults = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("DIR", o->dir,
                  "submissions: TASK.ekb, TASK.c, TASK.cpp (cpu), TASK.cu (cuda), TASK.cl (opencl); several samples as "
                  "TASK.s0.c, TASK.s1.ekb... (leave it out with --defaults)");
  cmd->add_option("--backend", o->backend, "cpu, cuda or opencl (default: the device profile's)")->option_text("B");
  cmd->add_option("--device", o->device,
                  "a device profile (`ekb devices`; default: host for cpu, h200-cuda for cuda, opencl-any for opencl)")
      ->option_text("PROFILE");
  cmd->add_option("--tasks", o->tasks, "only tasks matching this glob, e.g. 'conv*'")->option_text("GLOB");
  cmd->add_option("--db", o->db, "the results store (default: $EKB_DB, else ./ekb_results.db)")->option_text("FILE");
  cmd->add_flag("--json", o->json, "print one JSON object instead of the table");
  add_timing_option(cmd, o->timing);
  cmd->add_flag("--quick", o->quick,
                "a verification rather than a measurement: every check as always (three input sets, poisoned outputs, "
                "guard zones), but each side timed for a few calls only (5 to 20, half a second); the run is kept apart "
                "from full runs");
  cmd->add_flag("--defaults", o->defaults,
                "instead of DIR: every suite task (matching --tasks) with its own text, that is its default schedule, "
                "against itself: the suite verified on the device (with --quick, bench/suite/verify.sh)");
  cmd->add_option("--shard", o->shard, "only the I-th of N interleaved parts of the tasks (1-based, in sorted order), e.g. 2/4")
      ->option_text("I/N");
  cmd->callback([o, &g] {
    if (o->defaults == !o->dir.empty())
      throw CLI::ValidationError("ekb eval", o->defaults ? "give either DIR or --defaults, not both"
                                                          : "give DIR, the submissions' directory (or --defaults for the suite's own)");
    DeviceProfile dev = device_for(o->device, o->backend);
    Suite suite = g.load_suite();
    SubmissionSet subs = o->defaults ? default_submissions(suite, o->tasks) : scan_submissions(o->dir, suite, o->tasks);
    for (const auto& p : subs.problems) std::cerr << "ekb eval: " << p << "\n";
    nlohmann::json key = {{"command", "eval"},
                          {"dir", o->defaults ? std::string("(defaults)") : std::filesystem::absolute(o->dir).lexically_normal().string()},
                          {"backend", backend_name(dev.backend)}, {"device", dev.name}, {"tasks", o->tasks}};
    // Every file, before the split: the shards of one run have the same key but for "shard", which
    // is how `ekb merge` joins them into one run (and that run's key is the unsharded run's).
    for (const auto& s : subs.items) key["files"].push_back({s.path, hash_hex(s.text)});
    if (!o->shard.empty()) {
      Shard shard = parse_shard_text(o->shard);
      keep_shard(subs, shard.index, shard.count);
      key["shard"] = shard.text();
    }
    run_evaluation(suite, subs, key, dev, o->db, o->json, parse_timing(o->timing), o->quick);
  });
}

std::unique_ptr<Suite> current_suite(const Globals& g, bool quiet) {
  try {
    return std::make_unique<Suite>(g.load_suite());
  } catch (const std::exception& e) {
    std::string why = e.what();
    if (!quiet)
      std::cerr << fmt::format("ekb: the suite at {} does not load ({}), so stored task versions are not compared with it\n",
                               g.suite_path().string(), why.substr(0, why.find('\n')));
    return nullptr;
  }
}

void require_store_file(const std::string& db) {
  std::error_code ec;
  if (!std::filesystem::exists(db, ec)) throw std::runtime_error(fmt::format("no results store at {}", db));
  if (std::filesystem::is_regular_file(db, ec) && std::filesystem::file_size(db, ec) == 0)
    throw std::runtime_error(fmt::format("{} is an empty file, not an ekb results store", db));
}

void register_results(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand("results", "What the results store holds: every run, or one run's attempts and metrics; notes "
                                            "when a run's attempts span several suite versions or were made on another version "
                                            "of their task than the current suite's (--suite).");
  struct Opts {
    int64_t run = 0;
    std::string db = default_db();
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("RUN", o->run, "a run id (default: list the runs)");
  cmd->add_option("--db", o->db, "the results store (default: $EKB_DB, else ./ekb_results.db)")->option_text("FILE");
  cmd->add_flag("--json", o->json, "print JSON");
  cmd->callback([o, &g] {
    if (!std::filesystem::exists(o->db)) throw std::runtime_error(fmt::format("no results store at {}", o->db));
    ResultsStore store(o->db);
    std::unique_ptr<Suite> suite = current_suite(g, o->json);
    if (o->run == 0) {
      nlohmann::json all = nlohmann::json::array();
      for (const auto& r : store.runs()) {
        auto attempts = store.attempts(r.id);
        Metrics m = compute_metrics(outcomes_of(attempts));
        TaskVersions versions = task_versions(attempts, suite.get());
        all.push_back({{"run", r.id}, {"created", r.created}, {"backend", r.backend}, {"device", r.device}, {"timing", timing_name(timing_of(r))},
                       {"finished", r.finished}, {"tasks", m.tasks}, {"samples", m.samples}, {"correct_at_1", m.correct_at_k},
                       {"fast_1_0", m.fast["1.0"]}, {"fast_1_0_significant", m.fast_significant["1.0"]},
                       {"task_versions", task_versions_json(versions)}, {"emulated", emulated_times(r)}});
        if (!o->json) {
          std::cout << fmt::format("run {:>4}  {}  {:<6} {:<16} {:<4} {:>4} tasks {:>4} samples  Correct@1 {:5.1f}%  Fast@1.0 {:5.1f}% "
                                   "(significant {:5.1f}%){}\n",
                                   r.id, r.created, r.backend, r.device, timing_name(timing_of(r)), m.tasks, m.samples, 100 * m.correct_at_k,
                                   100 * m.fast["1.0"], 100 * m.fast_significant["1.0"], r.finished ? "" : "  (unfinished)");
          if (emulated_times(r)) std::cout << "          " << kEmulatedTimesNote << "\n";
          for (const auto& n : version_notes(versions)) std::cout << "          " << n << "\n";
        }
      }
      if (o->json) std::cout << all.dump(2) << "\n";
      return;
    }
    auto r = store.run(o->run);
    if (!r) throw std::runtime_error(fmt::format("no run {} in {}", o->run, o->db));
    auto attempts = store.attempts(r->id);
    TaskVersions versions = task_versions(attempts, suite.get());
    if (o->json) {
      nlohmann::json j = report_json(*r, attempts, {});
      j["task_versions"] = task_versions_json(versions);
      std::cout << j.dump(2) << "\n";
      return;
    }
    print_report(*r, attempts, {});
    for (const auto& n : version_notes(versions)) std::cout << n << "\n";
  });
}

namespace {

// `ekb devices --device BOARD.json [--measure]`.
void show_board(const DeviceProfile& d, bool measure) {
  if (!d.board) throw std::runtime_error(fmt::format("`{}` is a built-in profile; --device takes a board's profile file here", d.name));
  const Board& b = *d.board;
  nlohmann::json facts;
  try {
    facts = remote::hello_board(b);
  } catch (const remote::BoardUnavailable& e) {
    throw std::runtime_error(e.what());
  }
  bool emulated = b.emulated || !facts.value("emulation_signs", std::string()).empty();
  std::cout << fmt::format("{:<16} board at {} ({}), {} threads, budget {} MiB\n", d.name, b.address.text(), b.profile_path, d.threads,
                           d.memory_budget >> 20);
  std::cout << fmt::format("{:<16} target: {}; kernels built by {} -march={}{}\n", "", d.target().describe(), b.cc, b.march,
                           b.openmp ? " with OpenMP" : " without OpenMP");
  std::cout << fmt::format("{:<16} the board says: {}, {} CPUs ({}), {}, host {}\n", "", facts.value("arch", ""), facts.value("cpus", 0),
                           facts.value("cpu", ""), facts.value("kernel", ""), facts.value("host", ""));
  std::cout << fmt::format("{:<16} its workers' sandbox: {}\n", "", facts.value("sandbox", ""));
  if (emulated)
    std::cout << fmt::format("{:<16} emulated ({}): {}\n", "", b.emulated ? "its profile says so" : facts.value("emulation_signs", ""),
                             kEmulatedTimesNote);
  if (b.peak_gflops > 0)
    std::cout << fmt::format("{:<16} peak rates (its profile): {:.1f} GFLOP/s, {:.1f} GB/s\n", "", b.peak_gflops, b.peak_gbps);
  else
    std::cout << fmt::format("{:<16} no peak rates in its profile: no time is judged impossible\n", "");
  if (!measure) return;
  DeviceProfile m = d;
  m.board->emulated = emulated;
  std::cerr << fmt::format("ekb: measuring the peak rates of `{}` on the board (two kernels, each against itself)...\n", d.name);
  PeakRates r = measure_peak_rates(m);
  std::cout << fmt::format("{:<16} measured now on the board: {:.1f} GFLOP/s, {:.1f} GB/s; put them in {}:\n"
                           "  \"peak_gflops\": {:.1f}, \"peak_gbps\": {:.1f}\n",
                           "", r.gflops, r.gbps, b.profile_path, r.gflops, r.gbps);
}

}  // namespace

void register_devices(CLI::App& app, Globals&) {
  auto* cmd = app.add_subcommand("devices", "The device profiles (for --device): CPU profiles with the peak rates measured for "
                                            "them (the read bandwidth that proves a time impossible, and the rates notes compare times with), GPU profiles "
                                            "with their limits and, with --probe, whether their device is here; with --device "
                                            "FILE, a board's profile: what the board says it is, and with --measure its peak "
                                            "rates measured on it.");
  struct Opts {
    std::string db = default_db(), device;
    bool measure = false, probe = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--db", o->db, "the results store holding the peaks (default: $EKB_DB, else ./ekb_results.db)")->option_text("FILE");
  cmd->add_flag("--measure", o->measure, "measure every CPU profile's peak rates again (on a quiet machine) and store them");
  cmd->add_flag("--probe", o->probe, "ask a GPU worker whether each GPU profile's device is on this machine, and what it is");
  cmd->add_option("--device", o->device,
                  "only this board's profile file (docs/scale.md): connect to the board and show what it is; with --measure, "
                  "measure its peak rates there and print the two fields to put in the file")
      ->option_text("FILE");
  cmd->callback([o] {
    if (!o->device.empty()) {
      show_board(device_for(o->device, "cpu"), o->measure);
      return;
    }
    std::unique_ptr<ResultsStore> store;
    if (o->measure || std::filesystem::exists(o->db)) store = std::make_unique<ResultsStore>(o->db);
    for (const auto& d : device_profiles()) {
      std::string detail;
      if (d.is_gpu()) {
        detail = d.gpu.max_threads_per_block || d.gpu.shared_memory_per_block
                     ? fmt::format("limits: {} threads and {} KiB of shared memory per block", d.gpu.max_threads_per_block,
                                   d.gpu.shared_memory_per_block >> 10)
                     : "limits: the device's own";
        detail += "; no time is judged impossible on GPU profiles";
        if (o->probe) {
          GpuProbe p = probe_gpu(d);
          detail += p.ok ? fmt::format("\n{:<16} here: {} ({}, {}), {} threads per block, {} KiB shared per block, {} MiB",
                                       "", p.device.value("name", ""), p.device.value("platform", ""), p.compiler,
                                       p.device.value("max_threads_per_block", 0), p.device.value("shared_memory_per_block", uint64_t(0)) >> 10,
                                       p.device.value("total_memory", uint64_t(0)) >> 20)
                         : fmt::format("\n{:<16} not here: {}", "", p.why);
        }
      } else {
        detail = "peaks not measured yet (the first eval measures them)";
        if (store && o->measure) {
          std::cerr << fmt::format("ekb: measuring the peak rates of `{}`...\n", d.name);
          PeakRates r = peak_rates(*store, d, true);
          detail = fmt::format("{:.1f} GFLOP/s, {:.1f} GB/s (measured now){}", r.gflops, r.gbps, rates_detail(r, d));
        } else if (store) {
          if (auto p = known_peak_rates(*store, d))
            detail = fmt::format("{:.1f} GFLOP/s, {:.1f} GB/s (measured {}{}){}", p->gflops, p->gbps, p->measured,
                                 stored_peak_rates(*store, d) ? "" : ", this machine's cache", rates_detail(*p, d));
        }
      }
      std::cout << fmt::format("{:<16} {:<6} threads {:<3} budget {:>5} MiB  {}\n{:<16} target: {}\n{:<16} {}\n", d.name,
                               backend_name(d.backend), d.threads, d.memory_budget >> 20, d.description, "",
                               d.target().describe(), "", detail);
    }
  });
}

}  // namespace ekb::cli
