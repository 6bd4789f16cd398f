// Building the translation unit of an IR program or a raw submission.
#include "cli/candidate_source.h"

#include <fmt/format.h>

#include <filesystem>

#include "codegen/c_printer.h"
#include "lower/graph.h"
#include "schedule/choice.h"

namespace ekb::cli {

bool is_raw_source(const std::string& path) {
  for (const char* ext : {".c", ".cc", ".cpp", ".cxx"})
    if (path.ends_with(ext)) return true;
  return false;
}

CandidateSource build_candidate(const std::string& target, const std::string& task, const std::string& backend,
                                const std::string& schedule, const Globals& g, std::unique_ptr<Suite>& suite) {
  if (backend != "cpu" && backend != "cuda" && backend != "opencl")
    throw std::runtime_error(fmt::format("unknown backend `{}`; backends: cpu, cuda, opencl", backend));
  CandidateSource c;
  if (backend != "cpu" && is_raw_source(target))
    throw std::runtime_error(fmt::format("raw sources for `{}` are not accepted yet", backend));
  if (is_raw_source(target)) {
    if (!schedule.empty())
      throw std::runtime_error("--schedule applies to .ekb programs; a raw source is its own schedule");
    std::string name = task.empty() ? std::filesystem::path(target).filename().string() : task;
    if (task.empty()) name = name.substr(0, name.find('.'));  // TASK.c or TASK.s0.c
    suite = std::make_unique<Suite>(g.load_suite());
    const Task& t = find_task(*suite, name);
    c.program = t.program;
    c.cplusplus = !target.ends_with(".c");
    lower::Graph gr = lower::build_graph(*t.program);
    c.c_source = codegen::raw_submission_source(read_source_file(target)->text, c.cplusplus, gr.inputs, gr.outputs,
                                                codegen::c_dialect());
    c.description = fmt::format("raw {} for task {}", c.cplusplus ? "C++" : "C", t.name);
    return c;
  }
  if (!task.empty()) throw std::runtime_error("--task applies to raw .c / .cpp sources");
  LoadedProgram lp = load_file_or_task(target, g, suite);
  c.program = lp.program;
  ScheduleChoice sc = choose_schedule(*lp.program, backend, schedule);
  c.lowered = std::make_unique<lower::LoweredKernel>(lower_with(*lp.program, backend, sc));
  if (backend == "cpu") c.c_source = codegen::print_c(*c.lowered, codegen::c_dialect());
  else if (backend == "cuda") c.c_source = codegen::print_gpu(*c.lowered, codegen::cuda_dialect()).source;
  c.description = "schedule " + sc.description;
  return c;
}

}  // namespace ekb::cli
