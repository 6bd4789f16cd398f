// The task catalog: every .ekb file under the suite directory, each either one task (its kernel) or
// a pattern with a `workloads` table that instantiates one task per workload. A task's text is the
// canonical kernel a model is given (dims filled in); its program is that text, checked. Named
// subsets of the tasks (the agent subset) are declared in subsets/NAME.txt, one task per line.
#pragma once
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ir/program.h"
#include "util/diagnostics.h"

namespace ekb {

struct Task {
  std::string name, pattern, category, domain;
  std::string text;                  // the task's .ekb text
  std::filesystem::path file;        // the suite file it comes from
  std::shared_ptr<Program> program;  // checked
  std::string suite_version;         // suite/VERSION of the suite it was loaded from ("" when unversioned)
};

class Suite {
 public:
  // Loads and statically checks every task; throws DiagnosticError listing every problem (a task
  // that does not check, a duplicate name, a missing category or domain).
  static Suite load(const std::filesystem::path& dir);

  const std::vector<Task>& tasks() const { return tasks_; }
  const Task* find(const std::string& name) const;
  const std::filesystem::path& dir() const { return dir_; }
  // suite/VERSION (suite_version.h); "" for a directory without one.
  const std::string& version() const { return version_; }
  // The tasks of subset `name` (subsets/NAME.txt), in the file's order; throws naming the subsets
  // there are when there is no such subset.
  std::vector<const Task*> subset(const std::string& name) const;
  std::vector<std::string> subset_names() const;

 private:
  std::filesystem::path dir_;
  std::string version_;
  std::vector<Task> tasks_;
  std::vector<std::pair<std::string, std::vector<std::string>>> subsets_;
};

// Expands one suite file, already read into `src` (named as diagnostics should call it), into its
// tasks; reports problems into `diags`.
std::vector<Task> load_suite_file(const std::filesystem::path& path, const SourcePtr& src, DiagnosticList& diags);

// The suite directory: --suite, else $EKB_SUITE, else the one this build was configured with.
std::filesystem::path default_suite_dir();

}  // namespace ekb
