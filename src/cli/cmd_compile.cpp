// `ekb compile FILE|TASK --backend cpu [--emit schedule|loops|c|ll|asm|obj] [-o OUT] [--schedule S]`:
// lower a kernel with a schedule (or take a raw .c / .cpp submission) and print or write what one stage
// of the compiler produces.
#include <fmt/format.h>

#include <fstream>
#include <iostream>

#include "cli/candidate_source.h"
#include "cli/commands.h"
#include "harness/peak_rates.h"
#include "runtime/cpu/c_compiler.h"
#include "lower/schedule_choice.h"
#include "harness/device_profiles.h"

namespace ekb::cli {

void register_compile(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand("compile", "Lower a kernel with its schedule and print the loop IR or the generated code.");
  struct Opts {
    std::string target, backend, emit = "loops", out, schedule, task, device;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("FILE|TASK", o->target, "an .ekb file, a suite task, or a raw .c / .cpp submission")->required();
  cmd->add_option("--task", o->task, "the task a raw source implements (default: its file name up to the first dot)")
      ->option_text("TASK");
  cmd->add_option("--backend", o->backend, "cpu (default), cuda or opencl")->option_text("B");
  cmd->add_option("--device", o->device,
                  "lower for this device profile's target (`ekb devices`: its ISA's vector width, threads, GPU limits); "
                  "default: the backend's target on this machine")
      ->option_text("PROFILE");
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
    std::string text;
    // (A CPU's default schedule weighs parallel loops at this machine's measured cost of a region in
    // the default timing regime, as a run on the profile does: harness/peak_rates.h.)
    Backend backend = parse_backend(o->backend.empty() ? "cpu" : o->backend);
    Target target = o->device.empty() && backend != Backend::cpu
                        ? default_target(backend)
                        : with_known_parallel_cost(nullptr, device_for(o->device.empty() ? "host" : o->device, o->backend), Timing::cold).target();
    if (o->emit == "schedule") {
      if (is_raw_source(o->target)) throw std::runtime_error("a raw source has no schedule sections");
      LoadedProgram lp = load_file_or_task(o->target, g, suite);
      ScheduleChoice sc = choose_schedule(*lp.program, target, o->schedule);
      if (sc.description == "own") {
        for (const auto& s : lp.program->module->sections)
          if (s.backend == backend_name(target.backend))
            text += std::string(s.layer == Layer::schedule ? "schedule " : "memory ") + s.backend + " (in the file)\n";
      } else if (sc.source) {
        text = sc.source->text;
      }
    } else {
      CliSource cand = build_cli_source(o->target, o->task, target, o->schedule, g, suite);
      CompileOptions copts;
      copts.cplusplus = cand.cplusplus;
      if (o->emit == "loops") {
        if (!cand.lowered) throw std::runtime_error("a raw source has no loop IR; use --emit c, ll, asm or obj");
        text = lir::to_string(cand.lowered->body);
      } else if (o->emit == "c") {
        text = cand.c_source;
      } else if (o->emit == "ll") {
        text = make_default_c_compiler()->emit(cand.c_source, EmitKind::ll, copts);
      } else if (o->emit == "asm") {
        text = make_default_c_compiler()->emit(cand.c_source, EmitKind::asm_text, copts);
      } else if (o->emit == "obj") {
        if (o->out.empty()) throw std::runtime_error("--emit obj writes binary: give -o FILE");
        text = make_default_c_compiler()->emit(cand.c_source, EmitKind::obj, copts);
      } else {
        throw std::runtime_error("unknown --emit `" + o->emit + "`; choose schedule, loops, c, ll, asm or obj");
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
