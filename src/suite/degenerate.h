// Rejecting degenerate tasks: a task whose reference output is constant, near zero everywhere,
// non-finite, or insensitive to one of its inputs, or with a choice that never goes both ways on the
// harness's input sets (a select always taking one branch, a clamp that never clamps, a min or max
// always taking one operand), cannot tell a right kernel from a wrong one.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ir/program.h"

namespace ekb {

struct DegeneracyReport {
  std::vector<std::string> problems;  // empty when the task is sound
  bool from_cache = false;
  bool ok() const { return problems.empty(); }
};

// Runs the interpreter on several seeds and perturbed inputs. A sound verdict is cached on disk
// (keyed by the task's L0 hash), so later loads cost nothing.
DegeneracyReport check_degenerate(const Program& p, bool use_cache = true);

}  // namespace ekb
