// The schedule primitives, one per file: each applies one directive to a stage's schedule (and, for
// memory directives that make stages, to the graph), after checking it is legal.
#pragma once
#include "schedule/apply.h"

namespace ekb::prim {

void split(ScheduleContext&, StageSchedule&, const Directive&);
void fuse(ScheduleContext&, StageSchedule&, const Directive&);
void reorder(ScheduleContext&, StageSchedule&, const Directive&);
void tile(ScheduleContext&, StageSchedule&, const Directive&);
void parallel(ScheduleContext&, StageSchedule&, const Directive&);
void vectorize(ScheduleContext&, StageSchedule&, const Directive&);
void unroll(ScheduleContext&, StageSchedule&, const Directive&);
void bind(ScheduleContext&, StageSchedule&, const Directive&);
void inline_stage(ScheduleContext&, StageSchedule&, const Directive&);
void compute_at(ScheduleContext&, StageSchedule&, const Directive&);
void store_at(ScheduleContext&, StageSchedule&, const Directive&);
void cache_read(ScheduleContext&, StageSchedule&, const Directive&);
void cache_write(ScheduleContext&, StageSchedule&, const Directive&);
void decompose_reduction(ScheduleContext&, StageSchedule&, const Directive&);
void rfactor(ScheduleContext&, StageSchedule&, const Directive&);
void hoist_reduction(ScheduleContext&, StageSchedule&, const Directive&);
void pack(ScheduleContext&, StageSchedule&, const Directive&);
void double_buffer(ScheduleContext&, StageSchedule&, const Directive&);

// How a loop kind is named in messages: "parallel", "vectorized", "unrolled", "bound to a GPU axis".
const char* mark_name(lir::LoopKind k);

// Splits `axis` of `s` by `factor` into `outer` and `inner` (in its place); shared by split, tile,
// vectorize and unroll. `loc` is where errors point.
bool split_dim(ScheduleContext& ctx, StageSchedule& s, const std::string& axis, int64_t factor, Tail tail,
               const std::string& outer, const std::string& inner, Loc loc);

// For `vectorize AXIS WIDTH` and `unroll AXIS FACTOR` with a factor below the extent: splits AXIS
// (guard tail) into AXIS_o and AXIS + `suffix`, and sets `axis` to the inner piece. `directive`
// names the directive in messages. False after an error.
bool split_off_inner(ScheduleContext& ctx, StageSchedule& s, std::string& axis, int64_t factor, const char* directive,
                     const char* suffix, Loc loc);
// Marks loop `axis` with `kind`; a loop already marked is an error at `loc`.
void mark_loop(ScheduleContext& ctx, StageSchedule& s, const std::string& axis, lir::LoopKind kind, Loc loc);

}  // namespace ekb::prim
