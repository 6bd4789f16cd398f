// Taking the code out of a model's reply (reply_code.h).
#include "agent/prompts/reply_code.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <vector>

namespace ekb::agent {

namespace {

struct Block {
  std::string tag, code;
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// A fence line: up to 3 spaces, then 3 or more backticks (or tildes); the info string's first word is the tag.
bool fence_line(const std::string& line, std::string& fence, std::string& tag) {
  size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  if (i >= line.size() || (line[i] != '`' && line[i] != '~')) return false;
  char c = line[i];
  size_t n = 0;
  while (i + n < line.size() && line[i + n] == c) ++n;
  if (n < 3) return false;
  fence = std::string(n, c);
  std::istringstream info(line.substr(i + n));
  info >> tag;
  return true;
}

std::vector<Block> fenced_blocks(const std::string& reply) {
  std::vector<Block> blocks;
  std::istringstream in(reply);
  bool open = false;
  std::string open_fence;
  Block cur;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string fence, tag;
    if (!open) {
      if (fence_line(line, fence, tag)) {
        open = true;
        open_fence = fence;
        cur = Block{tag, ""};
      }
      continue;
    }
    // Inside a block: a line of the same fence character, at least as long, with no info string closes it.
    if (fence_line(line, fence, tag) && tag.empty() && fence[0] == open_fence[0] && fence.size() >= open_fence.size()) {
      blocks.push_back(cur);
      open = false;
      continue;
    }
    cur.code += line + "\n";
  }
  if (open) blocks.push_back(cur);  // a truncated reply: the block runs to the end
  return blocks;
}

}  // namespace

const char* reply_code_status_name(ReplyCodeStatus s) {
  switch (s) {
    case ReplyCodeStatus::ok: return "ok";
    case ReplyCodeStatus::no_code: return "no code";
    case ReplyCodeStatus::wrong_language: return "wrong language";
  }
  return "?";
}

ReplyCode extract_code(const std::string& reply, const CodeLanguage& lang) {
  std::set<std::string> wanted{lower(lang.fence)};
  for (const auto& a : lang.aliases) wanted.insert(lower(a));
  std::vector<Block> blocks = fenced_blocks(reply);
  const Block* tagged = nullptr;
  const Block* untagged = nullptr;
  std::set<std::string> others;
  for (const auto& b : blocks) {
    if (wanted.count(lower(b.tag))) tagged = &b;
    else if (b.tag.empty()) untagged = &b;
    else others.insert(b.tag);
  }
  ReplyCode r;
  if (const Block* b = tagged ? tagged : untagged) {
    r.status = ReplyCodeStatus::ok;
    r.code = b->code;
    return r;
  }
  if (!others.empty()) {
    r.status = ReplyCodeStatus::wrong_language;
    r.message = fmt::format("the reply's code is in {} (```{}), but {} was asked for, in a ```{} block", fmt::join(others, ", "),
                            *others.begin(), lang.name, lang.fence);
    return r;
  }
  r.status = ReplyCodeStatus::no_code;
  r.message = fmt::format("the reply has no fenced code block: the program must be in one ```{} block", lang.fence);
  return r;
}

}  // namespace ekb::agent
