// Reading suite/VERSION (suite_version.h).
#include "suite/suite_version.h"

#include <fmt/format.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace ekb {

std::string read_suite_version(const std::filesystem::path& suite_dir) {
  std::filesystem::path path = suite_dir / "VERSION";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return "";
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}", path.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  static const std::regex semver(R"(\d+\.\d+\.\d+)");
  if (!std::regex_match(text, semver))
    throw std::runtime_error(fmt::format("{}: expected one line MAJOR.MINOR.PATCH (e.g. 1.0.0), found `{}`", path.string(),
                                         text.substr(0, 40)));
  return text;
}

std::string suite_version_label(const std::string& version) { return version.empty() ? "unversioned" : version; }

}  // namespace ekb
