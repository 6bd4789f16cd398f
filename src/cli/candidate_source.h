// What `ekb compile` and `ekb run` build: the C translation unit of a kernel, either lowered from an
// .ekb program (or suite task) with a schedule, or a raw .c / .cpp submission against a task's ABI.
#pragma once
#include <memory>
#include <string>

#include "cli/commands.h"
#include "ir/program.h"
#include "lower/lower.h"

namespace ekb::cli {

struct CliSource {
  std::shared_ptr<Program> program;  // the task's L0 (what the outputs are checked against)
  std::string c_source;              // the whole translation unit, ekb_entry included
  bool cplusplus = false;
  std::string description;           // "schedule default", "raw C", ...
  std::unique_ptr<lower::LoweredKernel> lowered;  // when made from the IR
};

bool is_raw_source(const std::string& path);  // .c, .cc, .cpp, .cxx (cpu), .cu (cuda), .cl (opencl)
// `task` names the task of a raw source (default: the file name up to its first dot).
CliSource build_cli_source(const std::string& target, const std::string& task, const Target& backend_target,
                                const std::string& schedule, const Globals& g, std::unique_ptr<Suite>& suite);

}  // namespace ekb::cli
