// Runs a program without a shell and captures what it prints: the subprocess C compiler's one
// window onto the outside toolchain.
#pragma once
#include <string>
#include <vector>

namespace ekb {

struct ProcessResult {
  int exit_code = -1;   // the exit status; 128 + signal number when a signal ended it
  std::string output;   // stdout and stderr, interleaved as written
};

// Runs argv[0] (searched in PATH when it has no '/') with argv; stdin is /dev/null. Throws
// std::runtime_error when the program cannot be started at all.
ProcessResult run_process(const std::vector<std::string>& argv);

// The absolute path of `program` as PATH resolves it, or `program` itself when not found.
std::string resolve_in_path(const std::string& program);

}  // namespace ekb
