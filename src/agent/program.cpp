// Agent programs: text, parsing, analysis (program.h).
#include "agent/program.h"

#include <fmt/format.h>
#include <xxhash.h>


#include "ir/check.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "lower/schedule_choice.h"
#include "schedule/apply.h"
#include "schedule/default_schedule.h"
#include "util/diagnostics.h"

namespace ekb::agent {

namespace {

std::string section_text(const char* layer, Backend b, const std::vector<StageLine>& lines) {
  std::string out;
  for (const auto& l : lines) {
    if (l.directives.empty()) continue;
    out += fmt::format("  {}: {}\n", l.stage, fmt::join(l.directives, "; "));
  }
  return out.empty() ? "" : fmt::format("{} {}\n{}", layer, backend_name(b), out);
}

}  // namespace

std::string AgentProgram::schedule_text() const {
  std::string s = section_text("schedule", backend, l1), m = section_text("memory", backend, l2);
  return s + (!s.empty() && !m.empty() ? "\n" : "") + m;
}

std::string AgentProgram::text() const {
  std::string sections = schedule_text();
  return kernel + (sections.empty() ? "" : "\n" + sections);
}

uint64_t AgentProgram::hash() const {
  std::string t = text();
  return XXH3_64bits(t.data(), t.size());
}

std::string AgentProgram::hash_hex() const { return fmt::format("{:016x}", hash()); }

const StageLine* AgentProgram::line(const std::string& stage, bool memory) const {
  for (const auto& l : memory ? l2 : l1)
    if (l.stage == stage) return &l;
  return nullptr;
}

StageLine& AgentProgram::line_for(const std::string& stage, bool memory) {
  auto& lines = memory ? l2 : l1;
  for (auto& l : lines)
    if (l.stage == stage) return l;
  lines.push_back({stage, {}});
  return lines.back();
}

void AgentProgram::drop_stage(const std::string& stage) {
  for (auto* lines : {&l1, &l2})
    std::erase_if(*lines, [&](const StageLine& l) { return l.stage == stage; });
}

AgentProgram program_from(const std::string& kernel, const std::string& sections, Backend backend) {
  AgentProgram p;
  p.kernel = kernel;
  if (!p.kernel.empty() && p.kernel.back() != '\n') p.kernel += '\n';
  p.backend = backend;
  if (sections.empty()) return p;
  DiagnosticList d;
  Module m = parse_module(std::make_shared<SourceFile>("sections", sections), d);
  if (d.has_errors()) throw DiagnosticError(std::move(d));
  for (const auto& s : m.sections) {
    if (s.backend != backend_name(backend)) continue;
    for (const auto& line : s.lines) {
      StageLine& l = p.line_for(line.stage, s.layer == Layer::memory);
      for (const auto& dir : line.directives) l.directives.push_back(directive_text(dir));
    }
  }
  return p;
}

AgentProgram default_program(const Program& task, const Target& target) {
  KernelPrintOptions o;
  o.comments = false;
  return program_from(print_kernel(*task.module->kernel, o), default_schedule_text(task, target), target.backend);
}

std::optional<Analysis> analyze(const AgentProgram& p, const Target& target, std::string* error) {
  try {
    Analysis a;
    a.program = load_program(std::make_shared<SourceFile>("candidate.ekb", p.text()));
    ScheduleChoice sc = choose_schedule(*a.program, target, "own");
    a.graph = lower::build_graph(*a.program);
    DiagnosticList d;
    a.schedule = apply_schedule(*a.program, a.graph, target, sc.schedule, sc.memory, d, sc.source);
    if (d.has_errors()) throw DiagnosticError(std::move(d));
    a.kernel = lower_with(*a.program, target, sc);
    return a;
  } catch (const DiagnosticError& e) {
    if (error) *error = e.diagnostics().render_all();
  } catch (const std::exception& e) {
    if (error) *error = e.what();
  }
  return std::nullopt;
}

}  // namespace ekb::agent
