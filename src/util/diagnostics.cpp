// Rendering of diagnostics in the compiler style that people and language models both read well.
#include "util/diagnostics.h"

#include <fmt/format.h>

#include <algorithm>

namespace ekb {
namespace {

// Longer source lines are quoted in part.
constexpr size_t kLongLine = 160;

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::error: return "error";
    case Severity::warning: return "warning";
    case Severity::note: return "note";
  }
  return "error";
}

}  // namespace

std::string render(const Diagnostic& d) {
  std::string out;
  if (d.source && d.loc.valid())
    out = fmt::format("{}:{}:{}: ", d.source->name, d.loc.line, d.loc.col);
  else if (d.source)
    out = d.source->name + ": ";
  out += fmt::format("{}: {}\n", severity_name(d.severity), d.message);
  if (d.source && d.loc.valid()) {
    std::string_view line = d.source->line_text(d.loc.line);
    int col = std::max(1, d.loc.col);
    std::string gutter = fmt::format("{:>5} | ", d.loc.line);
    // A very long line (one statement spread over megabytes) is shown as a window around the caret.
    std::string shown;
    if (line.size() > kLongLine) {
      size_t from = static_cast<size_t>(col - 1) > kLongLine / 2 ? static_cast<size_t>(col - 1) - kLongLine / 2 : 0;
      from = std::min(from, line.size());
      size_t to = std::min(line.size(), from + kLongLine);
      shown = (from > 0 ? "..." : "") + std::string(line.substr(from, to - from)) + (to < line.size() ? "..." : "");
      col -= static_cast<int>(from) - (from > 0 ? 3 : 0);
      line = shown;
    }
    out += gutter;
    out += line;
    out += '\n';
    out += std::string(gutter.size() - 2, ' ') + "| ";
    // Keep tabs so the caret lines up under tab-indented text.
    for (int i = 1; i < col; ++i)
      out += (static_cast<size_t>(i - 1) < line.size() && line[i - 1] == '\t') ? '\t' : ' ';
    int avail = static_cast<int>(line.size()) - (col - 1);
    int len = std::clamp(d.loc.len, 1, std::max(1, avail));
    out += '^';
    out += std::string(len - 1, '~');
    out += '\n';
  }
  if (!d.fix.empty()) out += "  fix: " + d.fix + "\n";
  return out;
}

void DiagnosticList::error(const SourcePtr& src, Loc loc, std::string message, std::string fix) {
  if (full()) return;
  items_.push_back({Severity::error, src, loc, std::move(message), std::move(fix)});
}

void DiagnosticList::warning(const SourcePtr& src, Loc loc, std::string message, std::string fix) {
  items_.push_back({Severity::warning, src, loc, std::move(message), std::move(fix)});
}

void DiagnosticList::append(const DiagnosticList& other) {
  for (const auto& d : other.items_) items_.push_back(d);
}

bool DiagnosticList::has_errors() const { return error_count() > 0; }

size_t DiagnosticList::error_count() const {
  return static_cast<size_t>(std::count_if(items_.begin(), items_.end(), [](const Diagnostic& d) {
    return d.severity == Severity::error;
  }));
}

std::string DiagnosticList::render_all() const {
  std::string out;
  for (const auto& d : items_) out += render(d);
  if (full()) out += fmt::format("(stopped after {} errors)\n", kMaxErrors);
  return out;
}

DiagnosticError::DiagnosticError(DiagnosticList list)
    : std::runtime_error(list.render_all()), list_(std::move(list)) {}

}  // namespace ekb
