// `ekb compile FILE|TASK --backend cpu [--emit loops|c|ll|asm|obj] [-o OUT] [--schedule default|FILE]`:
// lower a kernel with a schedule and print (or write) what a stage of the compiler produces.
#include <fmt/format.h>

#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "schedule/choice.h"
#include "codegen/c_printer.h"
#include "runtime/cpu/c_compiler.h"
#include "schedule/default_schedule.h"
#include "lower/lower.h"

namespace ekb::cli {

void register_compile(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand("compile", "Lower a kernel with its schedule and print the loop IR or the generated code.");
  struct Opts {
    std::string target, backend = "cpu", emit = "loops", out, schedule;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("FILE|TASK", o->target, "an .ekb file, or the name of a suite task")->required();
  cmd->add_option("--backend", o->backend, "cpu (default)")->option_text("B");
  cmd->add_option("--emit", o->emit,
                  "what to print: schedule (the L1/L2 text used), loops (the loop IR), c (the C source), ll (LLVM IR), "
                  "asm, or obj (an object file; needs -o)")
      ->option_text("KIND");
  cmd->add_option("--schedule", o->schedule,
                  "default (the baseline), none (plain loops), or a file with schedule/memory sections; when not given, "
                  "the file's own sections, else default")
      ->option_text("S");
  cmd->add_option("-o,--output", o->out, "write to this file instead of standard output")->option_text("OUT");
  cmd->callback([o, &g] {
    std::unique_ptr<Suite> suite;
    LoadedProgram lp = load_file_or_task(o->target, g, suite);
    if (o->backend != "cpu") throw std::runtime_error(fmt::format("backend `{}` is not available yet; use cpu", o->backend));
    const Program& p = *lp.program;
    ScheduleChoice sc = choose_schedule(p, o->backend, o->schedule);
    std::string text;
    if (o->emit == "schedule") {
      text = sc.source && sc.description != "own" ? sc.source->text : "";
      if (sc.description == "own")
        for (const auto& s : p.module->sections)
          if (s.backend == o->backend) text += std::string(s.layer == Layer::schedule ? "schedule " : "memory ") + s.backend + " (in the file)\n";
    } else {
      lower::LoweredKernel k = lower_with(p, o->backend, sc);
      if (o->emit == "loops") {
        text = lir::to_string(k.body);
      } else {
        std::string c = codegen::print_c(k, codegen::c_dialect());
        if (o->emit == "c") text = c;
        else if (o->emit == "ll") text = make_default_c_compiler()->emit(c, EmitKind::ll, {});
        else if (o->emit == "asm") text = make_default_c_compiler()->emit(c, EmitKind::asm_text, {});
        else if (o->emit == "obj") {
          if (o->out.empty()) throw std::runtime_error("--emit obj writes binary: give -o FILE");
          text = make_default_c_compiler()->emit(c, EmitKind::obj, {});
        } else {
          throw std::runtime_error("unknown --emit `" + o->emit + "`; choose schedule, loops, c, ll, asm or obj");
        }
      }
    }
    if (o->out.empty()) std::cout << text;
    else {
      std::ofstream f(o->out, std::ios::binary);
      f << text;
      if (!f) throw std::runtime_error("cannot write " + o->out);
    }
  });
}

}  // namespace ekb::cli
