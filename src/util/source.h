// A source text with its name, and locations into it. Every diagnostic ekb prints points at one of
// these, so that a person or a model can find the exact spot to fix.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ekb {

struct SourceFile {
  std::string name;  // what diagnostics call it: a path, or "TASK (suite/x.ekb, workload W)"
  std::string text;

  SourceFile(std::string name, std::string text);
  // Line `line` (1-based) without its newline; empty when out of range.
  std::string_view line_text(int line) const;
  int line_count() const { return static_cast<int>(line_starts_.size()); }

 private:
  std::vector<size_t> line_starts_;
};

using SourcePtr = std::shared_ptr<const SourceFile>;

// A span on one line: 1-based line and column, length in characters (at least 1 when printed).
struct Loc {
  int line = 0;
  int col = 0;
  int len = 1;
  bool valid() const { return line > 0; }
};

// Reads a whole file; throws std::runtime_error naming the path when it cannot.
SourcePtr read_source_file(const std::string& path);

}  // namespace ekb
