// `ekb check FILE...`: parse and check every layer of each file (and every workload of a suite file).
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "ir/check.h"
#include "ir/parser.h"
#include "suite/suite.h"

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
    workloads = load_suite_file(path, path, wd).size();
    for (const auto& d : wd.items())
      if (d.severity == Severity::error) diags.add(d);
  }
  std::cerr << diags.render_all();
  if (diags.has_errors()) return false;
  std::cout << fmt::format("{}: ok: kernel `{}`, {} stage(s){}\n", path, p->name, p->stages.size(),
                           workloads ? fmt::format(", {} workload(s)", workloads) : "");
  return true;
}

}  // namespace

void register_check(CLI::App& app, Globals&) {
  auto* cmd = app.add_subcommand("check", "Parse and check .ekb files: L0 names, types, shapes and bounds; the L1/L2 "
                                          "sections; a suite file's workloads. Exit 0 when all are valid, 1 otherwise.");
  auto files = std::make_shared<std::vector<std::string>>();
  cmd->add_option("FILE", *files, ".ekb files to check")->required();
  cmd->callback([files] {
    bool ok = true;
    for (const auto& f : *files) ok = check_one(f) && ok;
    if (!ok) throw CLI::RuntimeError(1);
  });
}

}  // namespace ekb::cli
