// The small fixed suite under tests/fixtures/suite_small (its counts never change), and a private
// copy of it in a temporary directory for the tests that edit a suite.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ekb::test {

inline std::filesystem::path fixture_suite_dir() { return std::filesystem::path(EKB_SOURCE_DIR) / "tests/fixtures/suite_small"; }

struct FixtureCopy {
  std::filesystem::path root, suite;  // suite = root/suite, a copy of the fixture
  explicit FixtureCopy(const std::string& name) {
    root = std::filesystem::temp_directory_path() / ("ekb-fixture-" + std::to_string(::getpid()) + "-" + name);
    std::filesystem::remove_all(root);
    suite = root / "suite";
    std::filesystem::create_directories(root);
    std::filesystem::copy(fixture_suite_dir(), suite, std::filesystem::copy_options::recursive);
    for (auto& e : std::filesystem::recursive_directory_iterator(suite))  // (the copies are ours to edit)
      std::filesystem::permissions(e.path(), std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
  }
  ~FixtureCopy() { std::filesystem::remove_all(root); }
  FixtureCopy(const FixtureCopy&) = delete;
  FixtureCopy& operator=(const FixtureCopy&) = delete;

  std::string read(const std::string& rel) const {
    std::ifstream in(suite / rel);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  void write(const std::string& rel, const std::string& text) const {
    std::filesystem::create_directories((suite / rel).parent_path());
    std::ofstream(suite / rel) << text;
  }
  // Replaces the first `from` in the file by `to`; fails the test when there is none.
  void replace(const std::string& rel, const std::string& from, const std::string& to) const {
    std::string t = read(rel);
    size_t at = t.find(from);
    if (at == std::string::npos) throw std::runtime_error(rel + " has no `" + from + "`");
    write(rel, t.replace(at, from.size(), to));
  }
};

}  // namespace ekb::test
