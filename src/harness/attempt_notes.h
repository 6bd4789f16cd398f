// What the harness noticed about an attempt without failing it, as one table: a time faster than a
// figure of the task suggests is not a proof that the time is impossible (harness/time_verdict.h),
// so it is noted beside the result, never counted against it. Each kind has its stored name and
// its meaning; an attempt's note carries that meaning with its own figures. Evaluation, the results
// store (attempts.notes, JSON), `ekb eval`'s table and JSON, the HTML report and the agent's
// feedback read this table; nothing else spells note kinds as strings.
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ekb {

enum class NoteKind {
  fewer_flops_than_stated,  // faster than the task's flop count allows at the measured arithmetic peak
  beyond_copy_bandwidth,    // faster than the stated bytes allow at the measured copy bandwidth
  beyond_read_bandwidth,    // read its must-read bytes faster than the stored read bandwidth (within the proof's margin)
};

struct NoteInfo {
  NoteKind kind;
  const char* name;     // as stored and printed in JSON ("fewer_flops_than_stated")
  const char* marker;   // a few letters for a table's status column
  const char* meaning;  // what it says about the kernel, for people and agents
};

const std::vector<NoteInfo>& note_table();
const NoteInfo& note_info(NoteKind k);
std::optional<NoteKind> find_note_kind(const std::string& name);

// One note on one attempt: its kind and the sentence shown (the kind's meaning and the attempt's figures).
struct AttemptNote {
  NoteKind kind = NoteKind::fewer_flops_than_stated;
  std::string text;
  bool operator==(const AttemptNote&) const = default;
};

// A note of `kind` whose text is its meaning followed by `figures`.
AttemptNote make_note(NoteKind kind, const std::string& figures);

// As stored (attempts.notes) and shown in JSON: [{"kind": NAME, "text": TEXT}, ...]. Reading skips
// entries of a kind this ekb does not know, and anything malformed.
nlohmann::json notes_json(const std::vector<AttemptNote>& notes);
std::vector<AttemptNote> notes_from_json(const nlohmann::json& j);

}  // namespace ekb
