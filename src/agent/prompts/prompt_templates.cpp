// Prompt templates from files, with their version (prompt_templates.h).
#include "agent/prompts/prompt_templates.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#ifndef EKB_PROMPTS_DIR
#define EKB_PROMPTS_DIR "prompts"
#endif

namespace ekb::agent {

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read the prompt file " + p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string fill_placeholders(const std::string& text, const std::map<std::string, std::string>& vars, const std::string& what) {
  std::string out;
  out.reserve(text.size());
  size_t at = 0;
  while (true) {
    size_t open = text.find("{{", at);
    if (open == std::string::npos) break;
    size_t close = text.find("}}", open + 2);
    if (close == std::string::npos) break;
    std::string key = text.substr(open + 2, close - open - 2);
    bool is_name = !key.empty() && !std::isdigit(static_cast<unsigned char>(key[0])) &&
                   key.find_first_not_of("abcdefghijklmnopqrstuvwxyz_0123456789") == std::string::npos;
    out.append(text, at, open - at);
    if (!is_name) {  // not a placeholder (e.g. C's `{{0}}`): kept as written
      out.append("{{");
      at = open + 2;
      continue;
    }
    auto it = vars.find(key);
    if (it == vars.end()) throw std::runtime_error(fmt::format("{}: the placeholder {{{{{}}}}} has no value", what, key));
    out += it->second;
    at = close + 2;
  }
  out.append(text, at, std::string::npos);
  return out;
}

PromptTemplates PromptTemplates::load(const std::string& dir) {
  if (!fs::is_directory(dir))
    throw std::runtime_error("no prompt directory " + dir + " (set --prompts DIR or $EKB_PROMPTS to the directory of the templates)");
  PromptTemplates t;
  t.dir_ = dir;
  fs::path version_file = fs::path(dir) / "VERSION";
  if (!fs::exists(version_file)) throw std::runtime_error("the prompt directory " + dir + " has no VERSION file");
  std::string version = read_file(version_file);
  while (!version.empty() && (version.back() == '\n' || version.back() == ' ' || version.back() == '\r')) version.pop_back();
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".md") t.texts_[e.path().stem().string()] = read_file(e.path());
  XXH64_state_t* h = XXH64_createState();
  XXH64_reset(h, 0);
  for (const auto& [name, text] : t.texts_) {  // std::map: in name order, so the hash does not depend on the directory's order
    XXH64_update(h, name.data(), name.size());
    XXH64_update(h, "\0", 1);
    XXH64_update(h, text.data(), text.size());
  }
  t.version_ = fmt::format("{}-{:08x}", version, static_cast<uint32_t>(XXH64_digest(h) >> 32));
  XXH64_freeState(h);
  return t;
}

std::string PromptTemplates::default_dir(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* e = std::getenv("EKB_PROMPTS"); e && *e) return e;
  return EKB_PROMPTS_DIR;
}

const std::string& PromptTemplates::text(const std::string& name) const {
  auto it = texts_.find(name);
  if (it == texts_.end()) throw std::runtime_error(fmt::format("the prompt directory {} has no template {}.md", dir_, name));
  return it->second;
}

std::string PromptTemplates::render(const std::string& name, const std::map<std::string, std::string>& vars) const {
  return fill_placeholders(text(name), vars, fmt::format("prompt template {}/{}.md", dir_, name));
}

}  // namespace ekb::agent
