// Hoisting a reduction out of a stage's expression into a stage of its own, shared by the
// `hoist_reduction` directive and the default GPU schedule (which must predict what the directive
// makes): which reduction is taken, over which variables, and how the stage then reads it.
#pragma once
#include <optional>
#include <string>

#include "loops/graph.h"

namespace ekb::lower {

// Why `st`'s first reduction cannot be hoisted ("" when it can): it is a reduction itself, it has
// none in its expression, or its reductions are all inside select branches (evaluated only when
// chosen, their reads guarded) or inside other reductions.
std::string hoist_problem(const LStage& st);

// The reduction of `st`'s expression that hoist_first_reduction takes; null when there is none.
const lir::Expr* hoistable_reduction(const LStage& st);

// The first reduction of `st`'s expression (in the order written, outside select branches and other
// reductions) as a stage named `name` over the variables of `st` it reads, in `st`'s order; `st`
// then reads it at those variables. nullopt (and `st` unchanged) when hoist_problem is not empty.
std::optional<LStage> hoist_first_reduction(LStage& st, const std::string& name);

}  // namespace ekb::lower
