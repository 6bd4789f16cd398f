// A kernel's schedule for one backend, after replaying its L1 and L2 directives: per stage, the loop
// order with each loop's kind, how loops were split and fused, and where the stage is computed and
// stored. Lowering builds loop nests from it; `ekb check` replays it only to report errors.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "loops/graph.h"
#include "loops/loop_ir.h"
#include "target/target.h"

namespace ekb {

enum class Tail { guard, pad, shift };
const char* tail_name(Tail t);

struct LoopDim {
  std::string name;
  bool reduction = false;
  lir::LoopKind kind = lir::LoopKind::serial;
  int gpu_axis = 0;  // bind: 0 x, 1 y, 2 z
  Loc loc;           // the directive that marked it (parallel, vectorize, unroll, bind), for located errors
};

struct SplitRel {
  std::string old_var, outer, inner;
  int64_t factor;
  Tail tail;
};
struct FuseRel {
  std::string outer, inner, fused;
};
using LoopRel = std::variant<SplitRel, FuseRel>;

struct StageSchedule {
  std::string name;
  std::vector<LoopDim> dims;  // loop order, outermost first
  std::vector<LoopRel> rels;  // splits and fuses, in the order applied
  bool has_l1 = false;        // some L1 directive touched it

  enum class Compute { root, inlined, at };
  Compute compute = Compute::root;
  std::string at_stage, at_dim;        // compute_at
  std::string store_stage, store_dim;  // store_at; empty: where it is computed
  std::string init_dim;                // decompose_reduction; empty: just outside the outermost reduction loop
  lir::MemScope scope = lir::MemScope::global;
  bool double_buffered = false;        // double_buffer: two copies of this shared cache, the next one staged

  int find_dim(const std::string& n) const;
};

struct Schedule {
  Target target;  // what the schedule is for (its backend, the ISA, the GPU limits)
  Backend backend() const { return target.backend; }
  std::map<std::string, StageSchedule> stages;
  StageSchedule* find(const std::string& n);
  const StageSchedule* find(const std::string& n) const;
};

// The names made from `roots` by `rels` (splits and fuses applied in order), `roots` included: a
// split of a name makes both pieces derived, a fuse with one makes the fused loop derived.
std::set<std::string> derived_names(const std::set<std::string>& roots, const std::vector<LoopRel>& rels);

// The schedule a stage has before any directive: one serial loop per variable, pure then reduction,
// computed at the root.
StageSchedule initial_schedule(const lower::LStage& s);

// Loop `dim`'s extent over stage `st`'s whole domain, after the splits and fuses of `s` (a stage
// computed inside another's loop may run a smaller region); 0 when unknown.
int64_t loop_extent(const StageSchedule& s, const lower::LStage& st, const std::string& dim);

}  // namespace ekb
