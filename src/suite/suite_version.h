// The suite's version: suite/VERSION, one line MAJOR.MINOR.PATCH. It is stored with every attempt
// (with the task's hash, task_hash.h) so that results on different versions of the suite are told
// apart; suite/CHANGELOG.md says what each version changed.
#pragma once
#include <filesystem>
#include <string>

namespace ekb {

// The version in DIR/VERSION, or "" when the directory has none (an unversioned suite, e.g. a test's).
// Throws naming the file when it is not one line MAJOR.MINOR.PATCH.
std::string read_suite_version(const std::filesystem::path& suite_dir);

// How a version is shown: "unversioned" for "".
std::string suite_version_label(const std::string& version);

}  // namespace ekb
