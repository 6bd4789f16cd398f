// Prompt templates live in files (prompts/ in the source tree, or a directory the user names), not
// in code: a person can read and change what a model is told without rebuilding ekb. A template is
// text with `{{name}}` placeholders. The set carries a version — prompts/VERSION plus a hash of
// every template's text — recorded with every result made from it, so that results of different
// prompts are never taken for the same experiment.
#pragma once
#include <map>
#include <string>

namespace ekb::agent {

class PromptTemplates {
 public:
  // Reads every `*.md` file of `dir` (the template's name is the file's stem) and VERSION. A missing
  // directory or VERSION file is an error naming it.
  static PromptTemplates load(const std::string& dir);
  // The directory in use: `flag` if set, else $EKB_PROMPTS, else the source tree's prompts/.
  static std::string default_dir(const std::string& flag);

  bool has(const std::string& name) const { return texts_.count(name) != 0; }
  const std::string& text(const std::string& name) const;  // throws naming the template and the directory
  // `name` with every `{{key}}` replaced by vars[key]; a placeholder without a value is an error
  // naming it and the template (a prompt is never sent with a hole in it).
  std::string render(const std::string& name, const std::map<std::string, std::string>& vars) const;
  // "VERSION-HASH": the VERSION file's text and 8 hex digits of a hash over every template's name and text.
  const std::string& version() const { return version_; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_, version_;
  std::map<std::string, std::string> texts_;
};

// `text` with `{{key}}` replaced from `vars`; throws naming `what` and the first placeholder without a value.
std::string fill_placeholders(const std::string& text, const std::map<std::string, std::string>& vars, const std::string& what);

}  // namespace ekb::agent
