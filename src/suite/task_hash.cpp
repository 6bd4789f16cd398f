// The task hash (task_hash.h).
#include "suite/task_hash.h"

#include "interp/reference.h"
#include "util/text_hash.h"

namespace ekb {

namespace {

// Every run of spaces and line breaks as one space: how the printer lays a long statement over
// lines is not part of the task.
std::string collapse_whitespace(const std::string& text) {
  std::string out;
  for (char c : text) {
    bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (!space) out += c;
    else if (!out.empty() && out.back() != ' ') out += ' ';
  }
  return out;
}

}  // namespace

std::string task_hash(const Program& p) {
  std::string text = collapse_whitespace(canonical_l0_text(p));
  text += " | inputs drawn from:";
  for (int id : p.inputs) text += " " + p.tensors[id].name + " ~ " + p.tensors[id].dist.text() + ";";
  return text_hash_hex(text);
}

}  // namespace ekb
