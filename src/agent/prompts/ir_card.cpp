// The reference card, made from docs/ir.md (ir_card.h).
#include "agent/prompts/ir_card.h"

#include <sstream>

namespace ekb::agent {

namespace {

std::string trimmed(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

}  // namespace

std::string ir_card_from_docs(const std::string& docs_text) {
  std::istringstream in(docs_text);
  std::string out = "<!-- The reference card of the .ekb language, generated from docs/ir.md by `ekb prompt --card`: edit "
                    "docs/ir.md, not this file. -->\n\n";
  bool off = false, in_error_block = false, last_empty = true;
  for (std::string line; std::getline(in, line);) {
    std::string t = trimmed(line);
    if (t == "<!-- card: off -->") {
      off = true;
      continue;
    }
    if (t == "<!-- card: on -->") {
      off = false;
      continue;
    }
    if (off) continue;
    if (in_error_block) {
      if (t == "```") in_error_block = false;
      continue;
    }
    if (t == "```ekb-error") {
      in_error_block = true;
      continue;
    }
    bool empty = t.empty();
    if (empty && last_empty) continue;
    out += line + "\n";
    last_empty = empty;
  }
  while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') out.pop_back();
  return out;
}

}  // namespace ekb::agent
