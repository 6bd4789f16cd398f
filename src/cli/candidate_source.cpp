// Building the translation unit of an IR program or a raw submission.
#include "cli/candidate_source.h"

#include <fmt/format.h>

#include <filesystem>

#include "codegen/c_printer.h"
#include "harness/submissions.h"
#include "runtime/gpu/launch_contract.h"
#include "loops/graph.h"
#include "lower/schedule_choice.h"

namespace ekb::cli {

bool is_raw_source(const std::string& path) {
  auto kind = submission_kind(path);
  return kind && *kind != SourceKind::ekb;
}

CliSource build_cli_source(const std::string& target, const std::string& task, const Target& backend_target,
                           const std::string& schedule, const Globals& g, std::unique_ptr<Suite>& suite) {
  Backend backend = backend_target.backend;
  CliSource c;
  if (is_raw_source(target)) {
    SourceKind kind = *submission_kind(target);
    bool gpu_source = kind == SourceKind::cu || kind == SourceKind::cl;
    if (!backend_takes(backend, kind))
      throw std::runtime_error(fmt::format("{}: the {} backend takes raw {} sources (`ekb show TASK --abi {}`)", target,
                                           backend_name(backend), raw_kinds_taken(backend), backend_name(backend)));
    if (!schedule.empty())
      throw std::runtime_error("--schedule applies to .ekb programs; a raw source is its own schedule");
    std::string name = task.empty() ? std::filesystem::path(target).filename().string() : task;
    if (task.empty()) name = name.substr(0, name.find('.'));  // TASK.c or TASK.s0.c
    suite = std::make_unique<Suite>(g.load_suite());
    const Task& t = find_task(*suite, name);
    c.program = t.program;
    if (gpu_source) {
      c.c_source = read_source_file(target)->text;
      try {
        gpu::parse_launch_contract(c.c_source);
      } catch (const std::exception& e) {
        throw std::runtime_error(fmt::format("{}: {}", target, e.what()));
      }
      c.description = fmt::format("raw {} for task {}", backend == Backend::cuda ? "CUDA C" : "OpenCL C", t.name);
      return c;
    }
    c.cplusplus = kind == SourceKind::cpp;
    lower::Graph gr = lower::build_graph(*t.program);
    c.c_source = codegen::raw_submission_source(read_source_file(target)->text, c.cplusplus, gr.inputs, gr.outputs,
                                                codegen::c_dialect());
    c.description = fmt::format("raw {} for task {}", c.cplusplus ? "C++" : "C", t.name);
    return c;
  }
  if (!task.empty()) throw std::runtime_error("--task applies to raw .c, .cpp, .cu and .cl sources");
  LoadedProgram lp = load_file_or_task(target, g, suite);
  c.program = lp.program;
  ScheduleChoice sc = choose_schedule(*lp.program, backend_target, schedule);
  c.lowered = std::make_unique<lower::LoweredKernel>(lower_with(*lp.program, backend_target, sc));
  c.c_source = codegen::print_for_backend(*c.lowered);
  c.description = "schedule " + sc.description;
  return c;
}

}  // namespace ekb::cli
