// Shared helpers of the action tables (action_util.h).
#include "agent/action_util.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "schedule/schedule.h"

namespace ekb::agent::detail {

const LoopInfo* StageView::find(const std::string& n) const {
  for (const auto& l : loops)
    if (l.name == n) return &l;
  return nullptr;
}

std::vector<StageView> stage_views(const Analysis& a) {
  std::vector<StageView> out;
  for (const auto& st : a.graph.stages) {
    const StageSchedule* ss = a.schedule.find(st.name);
    if (!ss) continue;
    StageView v{&st, ss, {}};
    for (const auto& d : ss->dims) v.loops.push_back({d.name, loop_extent(*ss, st, d.name), d.reduction, d.kind});
    out.push_back(std::move(v));
  }
  return out;
}

std::string directive_word(const std::string& d) { return d.substr(0, d.find(' ')); }

bool is_mark(const std::string& d) {
  std::string w = directive_word(d);
  return w == "parallel" || w == "vectorize" || w == "unroll" || w == "bind";
}

std::vector<std::string> words_of(const std::string& directive) {
  std::vector<std::string> w;
  std::istringstream in(directive);
  for (std::string x; in >> x;) w.push_back(x);
  return w;
}

std::vector<size_t> find_directives(const StageLine* line, const std::string& word) {
  std::vector<size_t> out;
  if (!line) return out;
  for (size_t i = 0; i < line->directives.size(); ++i)
    if (directive_word(line->directives[i]) == word) out.push_back(i);
  return out;
}

AgentProgram with_structure(AgentProgram p, const std::string& stage, const std::string& dir) {
  auto& d = p.line_for(stage, false).directives;
  auto it = std::find_if(d.begin(), d.end(), is_mark);
  d.insert(it, dir);
  return p;
}

AgentProgram with_appended(AgentProgram p, const std::string& stage, const std::string& dir, bool memory) {
  p.line_for(stage, memory).directives.push_back(dir);
  return p;
}

AgentProgram with_replaced(AgentProgram p, const std::string& stage, bool memory, size_t index, const std::string& dir) {
  auto& d = p.line_for(stage, memory).directives;
  if (index >= d.size()) return p;
  if (dir.empty()) d.erase(d.begin() + static_cast<long>(index));
  else d[index] = dir;
  return p;
}

AgentProgram with_line(AgentProgram p, const std::string& stage, std::vector<std::string> dirs, bool memory) {
  p.line_for(stage, memory).directives = std::move(dirs);
  return p;
}

void drop_directives(AgentProgram& p, const std::string& stage, bool memory, const std::string& word) {
  auto& d = p.line_for(stage, memory).directives;
  std::erase_if(d, [&](const std::string& x) { return directive_word(x) == word; });
}

std::string fresh_name(const Analysis& a, const std::string& base) {
  std::set<std::string> used;
  for (const auto& t : a.program->tensors) used.insert(t.name);
  for (const auto& s : a.graph.stages) {
    used.insert(s.name);
    for (const auto& v : s.vars) used.insert(v);
    for (const auto& v : s.rvars) used.insert(v);
  }
  for (const auto& [n, ss] : a.schedule.stages)
    for (const auto& d : ss.dims) used.insert(d.name);
  if (!used.count(base)) return base;
  for (int i = 2;; ++i)
    if (!used.count(base + std::to_string(i))) return base + std::to_string(i);
}

std::vector<int64_t> vector_widths(const Target& t, DType type, int64_t extent) {
  std::vector<int64_t> out;
  int lanes = t.lanes(type);
  if (lanes <= 1) return out;
  for (int k : {1, 2, 4}) {
    int64_t w = std::min<int64_t>(static_cast<int64_t>(lanes) * k, 64);
    if (extent > 0) w = std::min(w, extent);
    if (w >= 2 && std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
  }
  return out;
}

}  // namespace ekb::agent::detail
