// libFuzzer target for the front end: any bytes must parse and check without crashing, undefined
// behaviour or a hang; text that parses must print to canonical text that parses again and prints
// identically (the `ekb fmt` fixed point); small valid programs are also interpreted, where a run-time
// fault must surface as a DiagnosticError, never as a crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include "interp/interpreter.h"
#include "harness/inputs.h"
#include "ir/check.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "suite/figures.h"

namespace {

bool small_enough_to_interpret(const ekb::Program& p) {
  for (const auto& t : p.tensors)
    if (t.elements() > 4096) return false;
  return ekb::compute_figures(p).flops < 2e5;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16384) return 0;
  auto src = std::make_shared<ekb::SourceFile>("fuzz.ekb", std::string(reinterpret_cast<const char*>(data), size));
  ekb::DiagnosticList diags;
  auto module = std::make_shared<ekb::Module>(ekb::parse_module(src, diags));
  (void)diags.render_all();
  if (diags.has_errors()) return 0;

  std::string printed = ekb::print_module(*module);
  auto src2 = std::make_shared<ekb::SourceFile>("fuzz2.ekb", printed);
  ekb::DiagnosticList diags2;
  ekb::Module again = ekb::parse_module(src2, diags2);
  if (diags2.has_errors() || ekb::print_module(again) != printed) __builtin_trap();  // fmt is not a fixed point

  auto program = ekb::check_module(module, diags);
  (void)diags.render_all();
  if (!program || !small_enough_to_interpret(*program)) return 0;
  try {
    (void)ekb::interpret(*program, ekb::generate_inputs(*program, 1));
  } catch (const ekb::DiagnosticError& e) {
    (void)e.what();
  }
  return 0;
}
