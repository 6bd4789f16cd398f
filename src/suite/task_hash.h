// The hash that names one version of a task: what the suite's manifest lists per workload and what
// the results store records with every attempt, so that a result is never taken for a result on a
// changed task. It covers everything that decides what the task computes and on what inputs: the
// canonical L0 text of the instantiated kernel (names, sizes, stages, declared distributions; no
// comments; its spacing and line breaks collapsed, so that the printer's layout of a long statement
// is not a new task) and the distribution each input is drawn from (an input without `~ ...` gets its
// type's default, which lives in code, not in the text).
#pragma once
#include <string>

#include "ir/program.h"

namespace ekb {

// XXH3-64 as 16 hex digits (util/text_hash.h).
std::string task_hash(const Program& p);

}  // namespace ekb
