// Schedule selection for `ekb compile` and `ekb run`.
#include "lower/schedule_choice.h"

#include <fmt/format.h>

#include <filesystem>

#include "ir/parser.h"
#include "ir/printer.h"
#include "schedule/check_sections.h"
#include "schedule/default_schedule.h"

namespace ekb {

namespace {

void take_sections(ScheduleChoice& c, Backend backend) {
  for (const auto& s : c.holder->sections) {
    if (s.backend != backend_name(backend)) continue;
    if (s.layer == Layer::schedule) c.schedule = &s;
    else c.memory = &s;
  }
}

}  // namespace

ScheduleChoice choose_schedule(const Program& p, const Target& target, const std::string& spec) {
  Backend backend = target.backend;
  ScheduleChoice c;
  c.source = p.source();
  bool own = false;
  for (const auto& s : p.module->sections) own = own || s.backend == backend_name(backend);
  if (spec == "none") {
    c.description = "none";
    return c;
  }
  if ((spec.empty() && own) || spec == "own") {
    c.holder = p.module;
    c.description = "own";
    DiagnosticList d;
    sections_by_backend(p, d);
    if (d.has_errors()) throw DiagnosticError(std::move(d));
    take_sections(c, backend);
    return c;
  }
  std::string text, name;
  if (spec.empty() || spec == "default") {
    text = default_schedule_text(p, target);
    name = fmt::format("default schedule of {}", p.name);
    c.description = "default";
  } else {
    SourcePtr src = read_source_file(spec);
    text = src->text;
    name = spec;
    c.description = spec;
  }
  c.source = std::make_shared<SourceFile>(name, text);
  DiagnosticList d;
  c.holder = std::make_shared<Module>(parse_module(c.source, d));
  if (d.has_errors()) throw DiagnosticError(std::move(d));
  if (c.holder->kernel) {
    // A full .ekb given as a schedule file must be for the same computation.
    DiagnosticList kd;
    KernelPrintOptions o;
    o.comments = false;
    o.name = p.name;
    std::string theirs = print_kernel(*c.holder->kernel, o), ours = print_kernel(*p.module->kernel, o);
    if (theirs != ours)
      throw std::runtime_error(fmt::format("{} holds a different kernel than `{}`; a schedule file holds only "
                                           "`schedule`/`memory` sections (or the same kernel)", spec, p.name));
  }
  take_sections(c, backend);
  return c;
}

lower::LoweredKernel lower_with(const Program& p, const Target& target, const ScheduleChoice& c) {
  return lower::lower_kernel(p, target, c.schedule, c.memory, c.source);
}

}  // namespace ekb
