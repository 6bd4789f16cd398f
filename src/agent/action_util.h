// Helpers the action tables share (internal to src/agent): a stage's loops as the schedule left
// them, edits of a stage's directive lines, fresh names, and the target's factor sets.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "agent/actions.h"

namespace ekb::agent::detail {

struct LoopInfo {
  std::string name;
  int64_t extent = 0;
  bool reduction = false;
  lir::LoopKind kind = lir::LoopKind::serial;
};

// One schedulable stage of an analysed program.
struct StageView {
  const lower::LStage* stage = nullptr;
  const StageSchedule* sched = nullptr;
  std::vector<LoopInfo> loops;  // outermost first
  bool root() const { return sched->compute == StageSchedule::Compute::root; }
  bool inlined() const { return sched->compute == StageSchedule::Compute::inlined; }
  const LoopInfo* find(const std::string& n) const;
};
std::vector<StageView> stage_views(const Analysis& a);

bool is_mark(const std::string& directive);  // parallel, vectorize, unroll, bind
std::string directive_word(const std::string& directive);
std::vector<std::string> words_of(const std::string& directive);  // "cache_write local at m_o -> C_l": six
// The directives of `line` that start with `word` ("parallel"), by position.
std::vector<size_t> find_directives(const StageLine* line, const std::string& word);
// `p` with `dir` inserted into `stage`'s L1 line before its first mark (structure first).
AgentProgram with_structure(AgentProgram p, const std::string& stage, const std::string& dir);
// `p` with `dir` appended to `stage`'s line in L1 (memory false) or L2.
AgentProgram with_appended(AgentProgram p, const std::string& stage, const std::string& dir, bool memory);
// `p` with the directive at `index` of `stage`'s line replaced by `dir` ("" removes it).
AgentProgram with_replaced(AgentProgram p, const std::string& stage, bool memory, size_t index, const std::string& dir);
// `p` with `stage`'s L1 line set to `dirs`.
AgentProgram with_line(AgentProgram p, const std::string& stage, std::vector<std::string> dirs, bool memory);
// Removes every directive of `stage`'s line (L1 or L2) starting with `word`.
void drop_directives(AgentProgram& p, const std::string& stage, bool memory, const std::string& word);

// A name not used by any stage, tensor or loop of `a`: base, base2, base3...
std::string fresh_name(const Analysis& a, const std::string& base);

// Vector widths to try on `t` for values of `type`: one, two and four registers (at most `extent`).
std::vector<int64_t> vector_widths(const Target& t, DType type, int64_t extent);

}  // namespace ekb::agent::detail
