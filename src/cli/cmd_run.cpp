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
#include "agent/main_job.h"
#include "cli/commands.h"
#include "harness/peak_rates.h"
#include "cli/eval_report.h"
#include "eval/report.h"
#include "codegen/c_printer.h"
#include "harness/compare.h"
#include "interp/reference.h"
#include "harness/single_run.h"
#include "runtime/cpu_runner.h"
#include "suite/figures.h"

namespace ekb::cli {

namespace {

// The main job (agent/main_job.h): LEKA's search on one task per category (or every task matching a
// glob), then the programs it found re-scored through `ekb eval`'s protocol; per task the baseline's
// and the tuned program's times, the speedup with its interval, then the metrics.
void run_main_job(const Globals& g, const DeviceProfile& dev, const std::string& db, const std::string& tasks_glob, int budget,
                  double time_limit, const std::string& out, bool json, Timing timing) {
  Suite suite = g.load_suite();
  std::vector<const Task*> tasks = tasks_glob.empty() ? agent::one_task_per_category(suite) : select_tasks(suite, tasks_glob, "");
  agent::MainJobOptions mo;
  mo.agent.search.budget = budget;
  mo.agent.search.time_limit_s = time_limit;
  mo.agent.out_dir = out;
  mo.agent.timing = timing;
  nlohmann::json key = {{"command", "run"}, {"device", dev.name}, {"budget", budget}, {"time_limit", time_limit},
                        {"out", std::filesystem::absolute(out).lexically_normal().string()}};
  for (const Task* t : tasks) key["tasks"].push_back(t->name);
  std::ostream& log = json ? std::cerr : std::cout;
  log << fmt::format("ekb main job: LEKA's search ({} measurements or {:.0f} s per task) on {} tasks ({}) for device `{}` ({}), "
                     "then the programs it found (in {}) re-scored through `ekb eval`'s protocol, timed {}; results in {}.\n\n",
                     budget, time_limit, tasks.size(), tasks_glob.empty() ? "one per category" : "matching `" + tasks_glob + "`",
                     dev.name, dev.target().describe(), out, timing_name(timing), db);
  ResultsStore store(db);
  size_t done = 0;
  agent::MainJobResult r = agent::run_main_job(suite, tasks, dev, mo, store, key, [&](const agent::TaskOutcome& t) {
    ++done;
    const Evaluation& e = t.best.eval;
    log << fmt::format("  search [{:>2}/{}] {:<44} {:>3} steps  {}\n", done, tasks.size(), t.task, t.steps,
                       e.correct() ? fmt::format("{:.2f}x in the search", e.speedup) : outcome_name(e.outcome));
  });
  if (json) {
    nlohmann::json j = report_json(r.eval_run, r.rescored, {});
    j["agent_run"] = r.agent_run.id;
    for (const auto& t : r.searched)
      j["search"].push_back({{"task", t.task}, {"steps", t.steps}, {"stopped", t.stopped}, {"search_speedup", t.best.eval.speedup}});
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("\nre-scored (run {}; the search is run {}: `ekb trajectory {} TASK` shows a task's path):\n",
                           r.eval_run.id, r.agent_run.id, r.agent_run.id);
  std::cout << fmt::format("  {:<44} {:<14} {:>12} {:>12}  {:<24} {}\n", "task", "category", "baseline ms", "tuned ms",
                           "speedup [95% interval]", "status");
  for (const auto& a : r.rescored) {
    const Task* t = suite.find(a.task);
    const Evaluation& e = a.eval;
    std::cout << fmt::format("  {:<44} {:<14} {:>12} {:>12}  {:<24} {}\n", a.task, t ? t->category : "",
                             e.correct() ? fmt::format("{:.4f}", e.baseline.median) : "-",
                             e.correct() ? fmt::format("{:.4f}", e.candidate.median) : "-",
                             e.correct() ? fmt::format("{:.2f}x [{:.2f}, {:.2f}]", e.speedup, e.speedup_lo, e.speedup_hi) : "-",
                             std::string(outcome_name(e.outcome)) + (e.noisy ? " noisy" : ""));
  }
  print_metrics(r.rescored);
}

}  // namespace

void register_run(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand("run", "Compile a kernel with a schedule, run it on generated inputs, compare every output "
                                        "with the float64 reference and time it. Exit 0 when all outputs pass.");
  struct Opts {
    std::string target, backend, schedule, task;
    uint64_t seed = 1;
    int threads = 0;
    std::string device, db = default_db(), tasks, out = "ekb_tuned", timing = "cold";
    int budget = 16;
    double time_limit = 20;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("FILE|TASK", o->target,
                  "an .ekb file, a suite task, or a raw .c / .cpp submission; without it, the main job: LEKA's search on one "
                  "task of every category, then the programs it found re-scored end to end (sandboxed workers, checks, "
                  "interleaved timing against the baseline, the speedup's interval, the results store)");
  cmd->add_option("--device", o->device,
                  "the device profile (`ekb devices`; default: host for cpu, h200-cuda for cuda, opencl-any for opencl); "
                  "its backend is the default backend")
      ->option_text("PROFILE");
  cmd->add_option("--db", o->db, "the main job's results store (default: $EKB_DB, else ./ekb_results.db)")->option_text("FILE");
  cmd->add_option("--tasks", o->tasks, "the main job over every suite task matching this glob ('*': the whole suite) instead "
                                       "of one per category")
      ->option_text("GLOB");
  cmd->add_flag("--json", o->json, "the main job's report as one JSON object (as `ekb eval --json`)");
  cmd->add_option("--budget", o->budget, "the main job: measurements per task for the search (default 16)")
      ->option_text("N")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--time-limit", o->time_limit, "the main job: wall seconds of search per task (default 20)")
      ->option_text("S")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--out", o->out, "the main job: where the tuned programs go (default ./ekb_tuned)")->option_text("DIR");
  add_timing_option(cmd, o->timing, "the main job: ");
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
      run_main_job(g, dev, o->db, o->tasks, o->budget, o->time_limit, o->out, o->json, parse_timing(o->timing));
      return;
    }
    std::unique_ptr<Suite> suite;
    bool gpu = dev.is_gpu();
    int threads = o->threads > 0 ? o->threads : gpu || dev.board ? dev.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    Target target = with_known_parallel_cost(nullptr, dev, Timing::cold).target();
    if (!gpu) target.threads = threads;
    CliSource cand = build_cli_source(o->target, o->task, target, o->schedule, g, suite);
    const Program& p = *cand.program;
    ReferenceResult ref = reference_outputs(p, o->seed);
    // The kernel runs in a sandboxed worker process (harness/single_run.h), never in this one.
    SingleRun run = run_isolated(p, cand.c_source, cand.cplusplus, ref.inputs, threads, true, 0.2, 5, gpu || dev.board ? &dev : nullptr);
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
    std::cout << fmt::format("{} in {:.1f} ms ({}, in a sandboxed worker; compile confinement: {})\n",
                             run.compile_cached ? "loaded from the compile cache" : "compiled", run.compile_ms, run.compiler,
                             run.confinement);
    if (!run.board.empty()) std::cout << "ran on board " << run.board << "\n";
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
