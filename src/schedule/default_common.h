// What the default schedule's backends share (default_schedule.h): questions about a stage's
// expression, the decision which intermediate stages are inlined, the limit on how deep fused loop
// nests grow, and the text of the directives every backend writes the same way.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "loops/graph.h"
#include "target/target.h"

namespace ekb::default_schedule {

using lower::Graph;
using lower::LStage;

int count_reads(const lir::ExprP& e, const std::string& buffer);
bool has_reduce(const lir::ExprP& e);
// Whether `s` reduces: a reduction of its own, or one inside its expression.
bool reduces(const LStage& s);
// Is `buffer` read inside a reduction's body in `e` (so once per reduction point)?
bool read_in_reduction(const lir::ExprP& e, const std::string& buffer, bool inside);
bool has_select(const lir::ExprP& e);
// A call that costs more than a few instructions (a math function, a reduction inside).
bool has_costly_call(const lir::ExprP& e);

// The directives of a schedule: one line per stage, in order, for the L1 and L2 sections.
struct Plan {
  std::vector<std::string> l1, l2;  // "  STAGE: d1; d2"
  void schedule(const std::string& stage, const std::vector<std::string>& dirs);
  void memory(const std::string& stage, const std::string& dir);
  // The `schedule BACKEND` and `memory BACKEND` sections (empty when there is nothing to say).
  std::string text(Backend backend) const;
};

// Which intermediate stages are inlined into their readers (the same rule on every backend):
// stages without a reduction, unless read at every point of a reduction while guarded or costly
// (a padded input), or costly and read at several places, or a reader would grow past the limits
// of ir/limits.h. `sim` is left as the graph with those stages inlined. `cpu`: two more stages keep
// loops of their own, one read at every point of a reduction through indices that are not sums of
// variables (a clamped border), and a costly one whose readers have more points than it has (a
// lookup table, a window read by every frame).
struct Inlining {
  std::set<std::string> inlined;
  Graph sim;
};
Inlining decide_inlining(const Graph& g, Plan& plan, bool cpu = false);
// Inlines `name` into its readers in `sim` when every reader stays within the limits of lowered
// expressions (ir/limits.h); otherwise `sim` is unchanged (false) and the stage keeps loops of its own.
bool inline_within_limits(Graph& sim, const std::string& name);

// A chain of fused stages (each computed inside the next) nests their loops: the fusions that would
// put a stage inside more than kMaxLoops loops are dropped, from the readers down, so that stage and
// the rest of the chain start again at the root.
void keep_loop_nests_shallow(const Graph& g, std::map<std::string, std::string>& fused_into);

// `fuse` directives joining `vars` in order; returns the fused name.
std::string fuse_in_order(const std::vector<std::string>& vars, std::vector<std::string>& dirs);

// A recurrence's pure variables besides its step, in order: the independent ones (each point its own
// sequence) and those whose points read each other's earlier steps (the stage's scan_nonlocal), with
// every variable's extent.
struct RecurrenceVars {
  std::vector<std::string> local, nonlocal;
  std::map<std::string, int64_t> extent;
};
RecurrenceVars recurrence_vars(const LStage& s);

}  // namespace ekb::default_schedule
