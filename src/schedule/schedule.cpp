// Schedule model helpers.
#include "schedule/schedule.h"

namespace ekb {

const char* tail_name(Tail t) {
  switch (t) {
    case Tail::guard: return "guard";
    case Tail::pad: return "pad";
    case Tail::shift: return "shift";
  }
  return "guard";
}

int StageSchedule::find_dim(const std::string& n) const {
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i].name == n) return static_cast<int>(i);
  return -1;
}

StageSchedule* Schedule::find(const std::string& n) {
  auto it = stages.find(n);
  return it == stages.end() ? nullptr : &it->second;
}
const StageSchedule* Schedule::find(const std::string& n) const {
  auto it = stages.find(n);
  return it == stages.end() ? nullptr : &it->second;
}

std::set<std::string> derived_names(const std::set<std::string>& roots, const std::vector<LoopRel>& rels) {
  std::set<std::string> out = roots;
  for (const auto& r : rels) {
    if (auto* sp = std::get_if<SplitRel>(&r)) {
      if (out.count(sp->old_var)) out.insert({sp->outer, sp->inner});
    } else {
      const auto& f = std::get<FuseRel>(r);
      if (out.count(f.outer) || out.count(f.inner)) out.insert(f.fused);
    }
  }
  return out;
}

StageSchedule initial_schedule(const lower::LStage& s) {
  StageSchedule ss;
  ss.name = s.name;
  for (const auto& v : s.vars) ss.dims.push_back({v, false});
  for (const auto& v : s.rvars) ss.dims.push_back({v, true});
  return ss;
}

int64_t loop_extent(const StageSchedule& s, const lower::LStage& st, const std::string& dim) {
  std::map<std::string, int64_t> ext;
  for (size_t i = 0; i < st.vars.size(); ++i) ext[st.vars[i]] = st.extents[i];
  for (size_t i = 0; i < st.rvars.size(); ++i) ext[st.rvars[i]] = st.rextents[i];
  for (const auto& r : s.rels) {
    if (auto* sp = std::get_if<SplitRel>(&r)) {
      int64_t e = ext.count(sp->old_var) ? ext[sp->old_var] : 0;
      ext[sp->inner] = sp->factor;
      ext[sp->outer] = e ? (e + sp->factor - 1) / sp->factor : 0;
    } else {
      const auto& f = std::get<FuseRel>(r);
      ext[f.fused] = ext[f.outer] * ext[f.inner];
    }
  }
  auto it = ext.find(dim);
  return it == ext.end() ? 0 : it->second;
}

}  // namespace ekb
