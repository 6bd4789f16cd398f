// The note table (attempt_notes.h).
#include "harness/attempt_notes.h"

namespace ekb {

const std::vector<NoteInfo>& note_table() {
  static const std::vector<NoteInfo> t = {
      {NoteKind::fewer_flops_than_stated, "fewer_flops_than_stated", "flops",
       "faster than the task's flop count allows at this machine's measured arithmetic peak: a better algorithm than the "
       "task's statement, skipped zeros or narrower arithmetic (not a failure)"},
      {NoteKind::beyond_copy_bandwidth, "beyond_copy_bandwidth", "copy",
       "faster than the task's stated bytes allow at this machine's measured copy bandwidth: no proof that the time is "
       "impossible (a kernel need not move every stated byte, and reading alone is faster than copying)"},
      {NoteKind::beyond_read_bandwidth, "beyond_read_bandwidth", "read",
       "read the bytes every correct kernel must read faster than this machine's stored read bandwidth, but within the "
       "proof's margin (not a failure: the stored rate is measured again, and kept as the larger)"},
  };
  return t;
}

const NoteInfo& note_info(NoteKind k) { return note_table()[static_cast<size_t>(k)]; }  // in enum order (attempt_notes_test checks)

std::optional<NoteKind> find_note_kind(const std::string& name) {
  for (const auto& i : note_table())
    if (name == i.name) return i.kind;
  return std::nullopt;
}

AttemptNote make_note(NoteKind kind, const std::string& figures) {
  return {kind, std::string(note_info(kind).meaning) + (figures.empty() ? "" : ": " + figures)};
}

nlohmann::json notes_json(const std::vector<AttemptNote>& notes) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& n : notes) a.push_back({{"kind", note_info(n.kind).name}, {"text", n.text}});
  return a;
}

std::vector<AttemptNote> notes_from_json(const nlohmann::json& j) {
  std::vector<AttemptNote> out;
  if (!j.is_array()) return out;
  for (const auto& n : j) {
    if (!n.is_object() || !n.contains("kind") || !n["kind"].is_string()) continue;
    auto kind = find_note_kind(n["kind"].get<std::string>());
    if (!kind) continue;
    out.push_back({*kind, n.contains("text") && n["text"].is_string() ? n["text"].get<std::string>() : note_info(*kind).meaning});
  }
  return out;
}

}  // namespace ekb
