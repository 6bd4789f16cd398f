// Line indexing for source files, so diagnostics can quote the offending line.
#include "util/source.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ekb {

SourceFile::SourceFile(std::string n, std::string t) : name(std::move(n)), text(std::move(t)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n' && i + 1 < text.size()) line_starts_.push_back(i + 1);
}

std::string_view SourceFile::line_text(int line) const {
  if (line < 1 || line > line_count()) return {};
  size_t begin = line_starts_[line - 1];
  size_t end = text.find('\n', begin);
  if (end == std::string::npos) end = text.size();
  std::string_view v(text.data() + begin, end - begin);
  if (!v.empty() && v.back() == '\r') v.remove_suffix(1);
  return v;
}

SourcePtr read_source_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw std::runtime_error("error while reading " + path);
  return std::make_shared<SourceFile>(path, ss.str());
}

}  // namespace ekb
