// `ekb check FILE...`: parse and check every layer of each file (and every workload of a suite file).
#include <fmt/format.h>

#include <atomic>
#include <iostream>
#include <mutex>
#include <thread>

#include "cli/commands.h"
#include "ir/check.h"
#include "ir/parser.h"
#include "suite/degenerate.h"
#include "suite/suite.h"
#include "util/progress.h"

namespace ekb::cli {

namespace {

bool check_one(const std::string& path) {
  DiagnosticList diags;
  SourcePtr src;
  try {
    src = read_source_file(path);
  } catch (const std::exception& e) {
    std::cerr << "ekb: error: " << e.what() << "\n";
    return false;
  }
  auto module = std::make_shared<Module>(parse_module(src, diags));
  std::shared_ptr<Program> p;
  if (!diags.has_errors()) p = check_module(module, diags);
  size_t workloads = 0;
  if (p && module->workloads) {
    // A file with a workloads table is a suite file: each workload is checked as its own task.
    DiagnosticList wd;
    workloads = load_suite_file(path, src, wd).size();
    for (const auto& d : wd.items())
      if (d.severity == Severity::error) diags.add(d);
  }
  std::cerr << diags.render_all();
  if (diags.has_errors()) return false;
  std::cout << fmt::format("{}: ok: kernel `{}`, {} stage(s){}\n", path, p->name, p->stages.size(),
                           workloads ? fmt::format(", {} workload(s)", workloads) : "");
  return true;
}

// The whole suite: every task checks, and no task is degenerate.
bool check_suite(const Globals& g) {
  Suite s = g.load_suite();
  const auto& tasks = s.tasks();
  Progress progress("checking tasks", tasks.size());
  std::vector<std::string> reports(tasks.size());
  std::atomic<size_t> next{0}, bad{0};
  std::mutex mu;
  auto worker = [&] {
    for (size_t k; (k = next++) < tasks.size();) {
      const Task& t = tasks[k];
      DegeneracyReport r = check_degenerate(*t.program);
      if (!r.ok()) {
        ++bad;
        std::string msg = fmt::format("{}: error: task `{}` is degenerate:\n", t.file.string(), t.name);
        for (const auto& p : r.problems) msg += "  - " + p + "\n";
        msg += "  fix: change the computation, the sizes or the input distributions so every output varies "
               "with every input\n";
        reports[k] = msg;
      }
      std::lock_guard<std::mutex> lock(mu);
      progress.step(t.name, bad);
    }
  };
  std::vector<std::thread> pool;
  unsigned n = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), 8));
  for (unsigned i = 0; i < n; ++i) pool.emplace_back(worker);
  for (auto& th : pool) th.join();
  progress.finish();
  for (const auto& m : reports) std::cerr << m;
  std::cout << fmt::format("suite {}: {} task(s), {} degenerate\n", s.dir().string(), tasks.size(), bad.load());
  return bad == 0;
}

}  // namespace

void register_check(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand("check", "Parse and check .ekb files: L0 names, types, shapes and bounds; the L1/L2 "
                                          "sections; a suite file's workloads. Exit 0 when all are valid, 1 otherwise.");
  auto files = std::make_shared<std::vector<std::string>>();
  auto suite = std::make_shared<bool>(false);
  cmd->add_option("FILE", *files, ".ekb files to check");
  cmd->add_flag("--suite", *suite, "check the whole suite: every task, and that no task is degenerate (an output "
                                   "constant, near zero, non-finite, or insensitive to an input)");
  cmd->callback([files, suite, &g] {
    if (files->empty() && !*suite) throw CLI::ValidationError("FILE", "give .ekb files to check, or --suite");
    bool ok = true;
    if (*suite) ok = check_suite(g);
    for (const auto& f : *files) ok = check_one(f) && ok;
    if (!ok) throw CLI::RuntimeError(1);
  });
}

}  // namespace ekb::cli
