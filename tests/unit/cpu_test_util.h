// Helpers for tests that compile and run kernels on the cpu backend: lower with a schedule, print C,
// compile in process, run on the reference inputs, compare.
#pragma once
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "codegen/c_printer.h"
#include "harness/compare.h"
#include "interp/reference.h"
#include "runtime/cpu_runner.h"
#include "lower/schedule_choice.h"
#include "test_util.h"

namespace ekb::test {

inline CCompiler& shared_compiler() {
  static std::unique_ptr<CCompiler> cc = make_default_c_compiler();
  return *cc;
}

struct CpuCheck {
  bool pass = false;
  std::string report;  // per output: name, max error, tolerance
  std::string c_source;
};

// Lowers `p` with `schedule` ("default", "none", or L1/L2 text), runs it on seed 1 and compares.
inline CpuCheck check_on_cpu(const Program& p, const std::string& schedule, int threads = 2) {
  CpuCheck r;
  ScheduleChoice sc;
  if (schedule == "default" || schedule == "none" || schedule.empty()) {
    sc = choose_schedule(p, default_target(Backend::cpu), schedule);
  } else {
    sc.source = std::make_shared<SourceFile>("schedule.ekb", schedule);
    DiagnosticList d;
    sc.holder = std::make_shared<Module>(parse_module(sc.source, d));
    if (d.has_errors()) throw DiagnosticError(std::move(d));
    for (const auto& s : sc.holder->sections)
      if (s.backend == "cpu") (s.layer == Layer::schedule ? sc.schedule : sc.memory) = &s;
  }
  lower::LoweredKernel k = lower_with(p, default_target(Backend::cpu), sc);
  r.c_source = codegen::print_c(k, codegen::c_dialect());
  CpuKernel kernel = compile_cpu_kernel(shared_compiler(), r.c_source);
  ReferenceResult ref = reference_outputs(p, 1);
  auto got = run_cpu_kernel(kernel, p, ref.inputs, threads);
  r.pass = true;
  for (const auto& c : compare_outputs(p, got, ref.outputs)) {
    r.pass = r.pass && c.pass;
    r.report += fmt::format("{}: max rel {:.3g} (tolerance {:.0e}){}; ", c.name, c.max_rel_error, c.tolerance,
                            c.pass ? "" : fmt::format(" FAIL at {}: got {} want {}", c.worst_index, c.worst_got, c.worst_want));
  }
  return r;
}

}  // namespace ekb::test
