// Replaying a backend's `schedule` (L1) and `memory` (L2) sections over the stage graph. Each
// directive is a primitive in src/schedule/primitives/ with its own legality check and located,
// fix-it errors; memory directives that make new stages rewrite the graph. The same replay serves
// `ekb check` (errors only) and lowering (the resulting graph and schedule).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ir/program.h"
#include "loops/graph.h"
#include "schedule/schedule.h"
#include "util/diagnostics.h"

namespace ekb {

class ScheduleContext {
 public:
  ScheduleContext(const Program& p, lower::Graph& g, Schedule& s, DiagnosticList& d, SourcePtr src)
      : program(p), graph(g), sched(s), diags(d), source(std::move(src)) {}

  const Program& program;
  lower::Graph& graph;
  Schedule& sched;
  DiagnosticList& diags;
  SourcePtr source;  // where the sections were written (the kernel's file, or a schedule file)
  std::map<std::string, std::vector<const ScheduleLine*>> pending_l1;  // L1 lines of stages not created yet

  void error(Loc loc, std::string msg, std::string fix);
  bool arity(const Directive& d, size_t min_args, size_t max_args, size_t min_outs, size_t max_outs, const char* usage);
  bool dim_exists(const StageSchedule& s, const DirectiveArg& a);
  bool positive_int(const DirectiveArg& a, const char* what);
  bool fresh_dims(const StageSchedule& s, const std::vector<DirectiveArg>& outs);
  bool stage_exists(const DirectiveArg& a);
  bool new_stage_name(const DirectiveArg& a);
  bool scope_ok(const DirectiveArg& a, lir::MemScope* out);
  bool tail_ok(const DirectiveArg& a, Tail* out);
  // Parses an optional `at AXIS` at args[i..]; `dim` receives AXIS ("" when absent).
  bool at_clause(const StageSchedule& s, const Directive& d, size_t i, const char* usage, std::string* dim);
  void unknown_stage(Loc loc, const std::string& name);
  // A loop's extent over the stage's whole domain (a stage computed inside another's loop may run a
  // smaller region); 0 when unknown.
  int64_t nominal_extent(const StageSchedule& s, const std::string& dim);
  lower::LStage& lstage(const std::string& name);
  // Adds a stage made by a memory directive just before `before`, and replays its waiting L1 lines.
  void create_stage(lower::LStage s, StageSchedule ss, const std::string& before);
  void apply_l1_line(const ScheduleLine& line);
  void apply_l2(StageSchedule& s, const Directive& d);
};

struct Primitive {
  const char* name;
  Layer layer;
  void (*apply)(ScheduleContext&, StageSchedule&, const Directive&);
};
// Every directive, in the order docs/ir.md lists them.
const std::vector<Primitive>& primitives();

// Replays `l1` and `l2` (either may be null) for `backend` over `graph`, which memory directives may
// rewrite. Reports errors into `diags` against `sections_source` (default: the kernel's file); the
// schedule is complete only when none were reported.
Schedule apply_schedule(const Program& p, lower::Graph& graph, const Target& target, const Section* l1,
                        const Section* l2, DiagnosticList& diags, SourcePtr sections_source = nullptr);

}  // namespace ekb
