// `ekb run FILE|TASK --backend cpu [--schedule default|none|FILE]`: compile, run on generated inputs,
// compare with the float64 reference, and time. Exit 0 when every output passes, 1 otherwise.
// `ekb run` alone: the main job (run_main_job below).
#include <fmt/format.h>

#include <fnmatch.h>

#include <chrono>
#include <iostream>
#include <set>
#include <thread>

#include "cli/candidate_source.h"
#include "cli/commands.h"
#include "codegen/c_printer.h"
#include "harness/compare.h"
#include "interp/reference.h"
#include "harness/single_run.h"
#include "runtime/cpu_runner.h"
#include "suite/figures.h"

namespace ekb::cli {

namespace {

// The main job: the first task of every category (or every task matching a glob), its default
// schedule as the candidate. Correct@1 must be 100%, and the speedups (the same code timed against
// itself) show how repeatable the timing is on this machine.
void run_main_job(const Globals& g, const DeviceProfile& dev, const std::string& db, const std::string& tasks, bool json) {
  Suite suite = g.load_suite();
  SubmissionSet subs;
  std::set<std::string> categories;
  nlohmann::json key = {{"command", "run"}, {"device", dev.name}};
  for (const auto& t : suite.tasks()) {
    bool chosen = tasks.empty() ? categories.insert(t.category).second : fnmatch(tasks.c_str(), t.name.c_str(), 0) == 0;
    if (!chosen) continue;
    subs.items.push_back({t.name, t.file.string(), SourceKind::ekb, 0, t.text});
    key["tasks"].push_back(t.name);
  }
  if (subs.items.empty()) throw std::runtime_error(fmt::format("no suite task matches `{}` (`ekb list` shows them)", tasks));
  (json ? std::cerr : std::cout)
      << fmt::format("ekb main job: {} tasks ({}), each task's default schedule evaluated as a candidate against its baseline "
                     "on device `{}` ({} threads), stored in {}.\n"
                     "Candidate and baseline are the same code here: Correct@1 should be 100% and the speedups near 1.0 "
                     "(their spread is the timing's repeatability on this machine).\n\n",
                     subs.items.size(), tasks.empty() ? "one per category" : "matching `" + tasks + "`", dev.name, dev.threads,
                     db);
  run_evaluation(suite, subs, key, dev, db, json);
}

}  // namespace

void register_run(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand("run", "Compile a kernel with a schedule, run it on generated inputs, compare every output "
                                        "with the float64 reference and time it. Exit 0 when all outputs pass.");
  struct Opts {
    std::string target, backend, schedule, task;
    uint64_t seed = 1;
    int threads = 0;
    std::string device, db = default_db(), tasks;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("FILE|TASK", o->target,
                  "an .ekb file, a suite task, or a raw .c / .cpp submission; without it, the main job: one task of every "
                  "category, each task's default schedule evaluated end to end as a candidate (sandboxed workers, checks, "
                  "interleaved timing against the baseline, the results store)");
  cmd->add_option("--device", o->device,
                  "the device profile (`ekb devices`; default: host for cpu, h200-cuda for cuda, opencl-any for opencl); "
                  "its backend is the default backend")
      ->option_text("PROFILE");
  cmd->add_option("--db", o->db, "the main job's results store (default: $EKB_DB, else ./ekb_results.db)")->option_text("FILE");
  cmd->add_option("--tasks", o->tasks, "the main job over every suite task matching this glob ('*': the whole suite) instead "
                                       "of one per category")
      ->option_text("GLOB");
  cmd->add_flag("--json", o->json, "the main job's report as one JSON object (as `ekb eval --json`)");
  cmd->add_option("--task", o->task, "the task a raw source implements (default: its file name up to the first dot)")
      ->option_text("TASK");
  cmd->add_option("--backend", o->backend, "cpu, cuda or opencl (default: the device profile's; cpu)")->option_text("B");
  cmd->add_option("--schedule", o->schedule,
                  "default (the baseline), none (plain loops), or a file with schedule/memory sections; when not given, "
                  "the file's own sections, else default")
      ->option_text("S");
  cmd->add_option("--seed", o->seed, "input seed (default 1)")->option_text("N");
  cmd->add_option("--threads", o->threads, "threads the kernel may use (default: all cores)")->option_text("N");
  cmd->callback([o, &g] {
    DeviceProfile dev = device_for(o->device, o->backend);
    if (o->target.empty()) {
      run_main_job(g, dev, o->db, o->tasks, o->json);
      return;
    }
    std::unique_ptr<Suite> suite;
    bool gpu = dev.is_gpu();
    int threads = o->threads > 0 ? o->threads : gpu ? dev.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    Target target = dev.target();
    if (!gpu) target.threads = threads;
    CliSource cand = build_cli_source(o->target, o->task, target, o->schedule, g, suite);
    const Program& p = *cand.program;
    ReferenceResult ref = reference_outputs(p, o->seed);
    // The kernel runs in a sandboxed worker process (harness/single_run.h), never in this one.
    SingleRun run = run_isolated(p, cand.c_source, cand.cplusplus, ref.inputs, threads, true, 0.2, 5, gpu ? &dev : nullptr);
    if (run.outcome == Outcome::compile) {
      std::fflush(stdout);
      std::cerr << "ekb: error: " << run.message << "\n" << run.compile_log;
      throw CLI::RuntimeError(1);
    }
    if (gpu)
      std::cout << fmt::format("kernel {}  backend {}  {}  device {} ({})\n", p.name, backend_name(dev.backend), cand.description,
                               dev.name, run.device);
    else
      std::cout << fmt::format("kernel {}  backend {}  {}  threads {}  target {}\n", p.name, backend_name(dev.backend),
                               cand.description, threads, target.describe());
    std::cout << fmt::format("compiled in {:.1f} ms ({}, in a sandboxed worker)\n", run.compile_ms, run.compiler);
    if (run.outputs.empty()) {
      std::cout << fmt::format("the kernel failed: {} ({})\nFAIL\n", outcome_name(run.outcome), run.message);
      throw CLI::RuntimeError(1);
    }
    bool pass = run.outcome == Outcome::ok;
    if (!pass) std::cout << fmt::format("the kernel failed: {} ({})\n", outcome_name(run.outcome), run.message);
    for (const auto& cmp : compare_outputs(p, run.outputs, ref.outputs)) {
      pass = pass && cmp.pass;
      std::cout << fmt::format("  {:<12} max abs {:.3g}  max rel {:.3g} (tolerance {:.0e})  {}", cmp.name, cmp.max_abs_error,
                               cmp.max_rel_error, cmp.tolerance, cmp.pass ? "pass" : "FAIL");
      if (!cmp.pass)
        std::cout << fmt::format("  worst at flat index {}: got {} want {}", cmp.worst_index, cmp.worst_got, cmp.worst_want);
      std::cout << "\n";
    }
    const TimingStats& t = run.timing;
    Figures f = compute_figures(p);
    if (!t.ms.empty())
      std::cout << fmt::format("time: median {:.4f} ms (IQR {:.4f}-{:.4f}, {} runs, warm, {})  "
                               "{:.2f} GFLOP/s  {:.2f} GB/s\n",
                               t.median, t.q1, t.q3, t.ms.size(),
                               gpu ? "device time of the launches" : "each measured around its request", f.flops / (t.median * 1e6),
                               static_cast<double>(f.bytes) / (t.median * 1e6));
    std::cout << (pass ? "PASS\n" : "FAIL\n");
    if (!pass) throw CLI::RuntimeError(1);
  });
}

}  // namespace ekb::cli
