// Shared pieces of the subcommands: finding the suite, and loading a file or a task by name.
#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

#include "cli/commands.h"
#include "ir/check.h"
#include "suite/degenerate.h"
#include "util/strings.h"

namespace ekb::cli {

std::filesystem::path Globals::suite_path() const {
  return suite_dir.empty() ? default_suite_dir() : std::filesystem::path(suite_dir);
}

Suite Globals::load_suite() const { return Suite::load(suite_path()); }

const Task& find_task(const Suite& s, const std::string& name) {
  if (const Task* t = s.find(name)) return *t;
  std::vector<std::string> names;
  for (const auto& t : s.tasks()) names.push_back(t.name);
  std::string near = closest_match(name, names);
  throw std::runtime_error(fmt::format("unknown task `{}`{}; `ekb list` shows the {} tasks of {}", name,
                                       near.empty() ? "" : fmt::format(" (did you mean `{}`?)", near), names.size(),
                                       s.dir().string()));
}

void add_timing_option(CLI::App* cmd, std::string& timing, const std::string& prefix) {
  std::string help = prefix + "how calls are timed:";
  std::vector<std::string> names;
  for (const auto& t : timing_table()) {
    help += fmt::format(" {} ({}{});", t.name, t.description, t.timing == Timing::cold ? "; the default" : "");
    names.push_back(t.name);
  }
  help.pop_back();
  help += " (docs/metrics.md)";
  cmd->add_option("--timing", timing, help)->option_text("REGIME")->check(CLI::IsMember(names));
}

LoadedProgram load_file_or_task(const std::string& arg, const Globals& g, std::unique_ptr<Suite>& suite) {
  LoadedProgram lp;
  std::error_code ec;
  if (std::filesystem::is_regular_file(arg, ec) || arg.ends_with(".ekb") || arg.find('/') != std::string::npos) {
    SourcePtr src = read_source_file(arg);
    lp.program = load_program(src);
    lp.text = src->text;
    return lp;
  }
  suite = std::make_unique<Suite>(g.load_suite());
  const Task& t = find_task(*suite, arg);
  // The suite rejects degenerate tasks before they are used (the verdict is cached per task text).
  DegeneracyReport r = check_degenerate(*t.program);
  if (!r.ok())
    throw std::runtime_error(fmt::format("task `{}` ({}) is degenerate: {}", t.name, t.file.string(), fmt::join(r.problems, "; ")));
  lp.program = t.program;
  lp.text = t.text;
  lp.task = &t;
  return lp;
}

}  // namespace ekb::cli
