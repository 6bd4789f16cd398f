// What a submission becomes before it runs: the translation unit its backend compiles. An .ekb
// program is checked, held to the task's interface (the same input and output names, types and
// shapes; its own L0 may compute them differently: fuse or split stages, reassociate, restructure a
// reduction), given the task's input distributions (inputs always come from the task's declarations)
// and lowered with its own schedule for the target; raw C/C++ is wrapped in the task's ABI; raw CUDA
// and OpenCL run as written. The baseline is the task's L0 with the default schedule for the target.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>

#include "harness/outcome.h"
#include "harness/submissions.h"
#include "ir/program.h"
#include "suite/suite.h"
#include "target/target.h"

namespace ekb {

// A submission that cannot run: not the task's interface (mismatch), or not a valid program
// (compile: parse, type, bounds or schedule errors, located).
struct CandidateRejected : std::runtime_error {
  Outcome outcome;
  CandidateRejected(Outcome o, const std::string& message) : std::runtime_error(message), outcome(o) {}
};

struct CandidateSource {
  std::string source;                // the translation unit (C with its entry wrapper, CUDA C or OpenCL C)
  bool cplusplus = false;            // raw C++
  std::shared_ptr<Program> program;  // the candidate's own L0 (.ekb), else the task's
};

// What differs between the interfaces of `task` and `candidate` ("" when none): the first input or
// output missing, extra, of another type or shape, in the candidate.
std::string interface_difference(const Program& task, const Program& candidate);

// The checked program of an .ekb candidate for `task` (`path` names it in diagnostics): its interface
// must be the task's, and its inputs take the task's distributions. Throws CandidateRejected.
std::shared_ptr<Program> load_candidate_program(const Task& task, const std::string& path, const std::string& text);

// The source of `s` for `target`'s backend; throws CandidateRejected.
CandidateSource build_candidate(const Task& task, const Submission& s, const Target& target);

// The baseline's source: the task's L0 with the default schedule for `target`.
std::string baseline_source(const Program& task, const Target& target);

}  // namespace ekb
