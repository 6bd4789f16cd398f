// Diagnostics: what is wrong, where (file:line:col with the line and a caret), and how to fix it.
// Parsers and checkers collect them in a DiagnosticList and go on where they can, so that one run
// reports every problem; callers that need a valid program throw DiagnosticError.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "util/source.h"

namespace ekb {

enum class Severity { error, warning, note };

struct Diagnostic {
  Severity severity = Severity::error;
  SourcePtr source;  // may be null for errors not tied to a file
  Loc loc;
  std::string message;  // what is wrong
  std::string fix;      // what would be right; may be empty
};

// Renders "file:line:col: error: message", the source line, a caret under the span, and "fix: ...".
std::string render(const Diagnostic& d);

class DiagnosticList {
 public:
  void error(const SourcePtr& src, Loc loc, std::string message, std::string fix = {});
  void warning(const SourcePtr& src, Loc loc, std::string message, std::string fix = {});
  void add(Diagnostic d) { items_.push_back(std::move(d)); }
  void append(const DiagnosticList& other);
  bool has_errors() const;
  size_t error_count() const;
  const std::vector<Diagnostic>& items() const { return items_; }
  std::string render_all() const;
  // Stops collecting after this many errors (a fuzzer or a garbage file must not print megabytes).
  static constexpr size_t kMaxErrors = 50;
  bool full() const { return error_count() >= kMaxErrors; }

 private:
  std::vector<Diagnostic> items_;
};

// Thrown when a program must be valid to go on; carries every diagnostic found.
class DiagnosticError : public std::runtime_error {
 public:
  explicit DiagnosticError(DiagnosticList list);
  const DiagnosticList& diagnostics() const { return list_; }

 private:
  DiagnosticList list_;
};

}  // namespace ekb
