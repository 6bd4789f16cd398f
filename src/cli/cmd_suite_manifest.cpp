// `ekb suite-manifest [--write | --check]`: the suite's manifest (suite/MANIFEST: every workload with
// its pattern and task hash) printed, rewritten, or compared with the suite as it loads, naming each
// workload that changed, is missing or is extra, and how to bring the manifest up to date.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "suite/manifest.h"
#include "suite/suite_version.h"
#include "util/write_file.h"

namespace ekb::cli {

namespace {

// The command that regenerates this suite's manifest, as the user should type it.
std::string write_command(const Globals& g) {
  return g.suite_dir.empty() ? "ekb suite-manifest --write" : fmt::format("ekb --suite {} suite-manifest --write", g.suite_dir);
}

bool check_manifest(const Suite& s, const Globals& g) {
  std::filesystem::path path = manifest_path(s.dir());
  std::ifstream in(path);
  if (!in) {
    std::cerr << fmt::format("ekb: error: the suite has no manifest ({} is missing)\n  fix: run `{}`\n", path.string(),
                             write_command(g));
    return false;
  }
  std::stringstream text;
  text << in.rdbuf();
  auto diffs = compare_manifest(parse_manifest(text.str(), path.string()), manifest_of(s));
  if (diffs.empty()) {
    std::cout << fmt::format("{}: up to date: {} workload(s), suite {}\n", path.string(), s.tasks().size(),
                             suite_version_label(s.version()));
    return true;
  }
  // Changed and vanished tasks first (they break comparisons with stored results), then new ones.
  const ManifestChange order[] = {ManifestChange::changed, ManifestChange::extra, ManifestChange::missing};
  size_t n[3] = {0, 0, 0};
  for (const auto& d : diffs)
    for (int k = 0; k < 3; ++k) n[k] += d.change == order[k];
  std::cerr << fmt::format("ekb: error: {} does not match the suite: {} workload(s) differ ({} changed, {} in the manifest "
                           "but not in the suite, {} not in the manifest)\n",
                           path.string(), diffs.size(), n[0], n[1], n[2]);
  for (ManifestChange kind : order)
    for (const auto& d : diffs)
      if (d.change == kind) std::cerr << "  " << describe(d) << "\n";
  std::cerr << fmt::format(
      "  fix: when these changes are meant, run `{}`, say what changed in CHANGELOG.md and, when a released task "
      "changed or went, raise suite/VERSION\n",
      write_command(g));
  return false;
}

}  // namespace

void register_suite_manifest(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand(
      "suite-manifest",
      "The suite's manifest (suite/MANIFEST): one line per workload with its pattern and task hash (of its canonical L0 "
      "text and its inputs' distributions). Prints it; --write rewrites the file; --check compares it with the suite "
      "and fails naming every workload that changed, is missing or is extra.");
  auto write = std::make_shared<bool>(false);
  auto check = std::make_shared<bool>(false);
  cmd->add_flag("--write", *write, "rewrite suite/MANIFEST from the suite as it is");
  cmd->add_flag("--check", *check,
                "exit 1 when suite/MANIFEST differs from the suite (a task changed, or is missing from or extra in it)")
      ->excludes(cmd->get_option("--write"));
  cmd->callback([write, check, &g] {
    Suite s = g.load_suite();
    if (*check) {
      if (!check_manifest(s, g)) throw CLI::RuntimeError(1);
      return;
    }
    std::string text = manifest_text(manifest_of(s));
    if (!*write) {
      std::cout << text;
      return;
    }
    write_atomically(manifest_path(s.dir()).string(), text);
    std::cout << fmt::format("wrote {}: {} workload(s), suite {}\n", manifest_path(s.dir()).string(), s.tasks().size(),
                             suite_version_label(s.version()));
  });
}

}  // namespace ekb::cli
