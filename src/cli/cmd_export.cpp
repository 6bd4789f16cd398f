// `ekb export FILE|TASK --backend cpu|cuda|opencl [--device P] [--isa I] -o DIR`: a deployable kernel,
// a standalone project (source, header, CMakeLists.txt, example) that builds without ekb (src/io/export.h).
#include <fmt/format.h>

#include <iostream>

#include "cli/candidate_source.h"
#include "cli/commands.h"
#include "harness/peak_rates.h"
#include "io/export.h"
#include "lower/schedule_choice.h"

namespace ekb::cli {

void register_export(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand(
      "export",
      "Write a deployable kernel into DIR: the generated source (C, CUDA C or OpenCL C), a header with its entry point and "
      "its tensors' layouts, a CMakeLists.txt and an example program that runs it and checks it against ekb's reference "
      "(docs/export.md). Nothing of ekb's is needed to build it.");
  struct Opts {
    std::string target, backend, device, isa, schedule, name, out, cuda_arch;
    int threads = 0;
    bool replace = false, json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("FILE|TASK", o->target, "an .ekb program (e.g. ekb_tuned/TASK.ekb, with its own schedule) or a suite task")
      ->required();
  cmd->add_option("-o,--output", o->out,
                  "the directory to write (created; it must be empty, or hold an earlier export and --replace be given)")
      ->option_text("DIR")
      ->required();
  cmd->add_option("--backend", o->backend, "cpu (default), cuda or opencl")->option_text("B");
  cmd->add_option("--device", o->device,
                  "lower for this device profile (`ekb devices`): its threads (CPU) or per-block limits (GPU); default: host, "
                  "h200-cuda or opencl-any")
      ->option_text("PROFILE");
  cmd->add_option("--isa", o->isa,
                  "CPU: lower for this vector ISA instead of the host's: none, sse, avx2, avx512 (x86-64) or neon (aarch64); "
                  "give it for a cross build")
      ->option_text("ISA");
  cmd->add_option("--threads", o->threads, "CPU: the threads the schedule and the example assume (default: the profile's)")
      ->option_text("N");
  cmd->add_option("--schedule", o->schedule,
                  "default (the baseline), none (plain loops), or a file with schedule/memory sections; when not given, the "
                  "file's own sections for the backend, else default")
      ->option_text("S");
  cmd->add_option("--name", o->name, "the C identifier naming the files and the header's constants (default: the kernel's name)")
      ->option_text("NAME");
  cmd->add_option("--cuda-arch", o->cuda_arch,
                  "CUDA: the export's default CMAKE_CUDA_ARCHITECTURES (default 90, the H200; e.g. 87 for a Jetson Orin)")
      ->option_text("LIST");
  cmd->add_flag("--replace", o->replace,
                "DIR may hold an earlier export: replace its files (other files there, e.g. a build directory, stay)");
  cmd->add_flag("--json", o->json, "print what was written as a JSON object");
  cmd->callback([o, &g] {
    if (is_raw_source(o->target))
      throw std::runtime_error(fmt::format("{}: a raw submission is already its own source; export takes an .ekb program or a "
                                           "task (`ekb show TASK --abi B` prints the raw ABI)",
                                           o->target));
    DeviceProfile profile = with_known_parallel_cost(nullptr, device_for(o->device, o->backend), Timing::cold);
    Target target = profile.target();
    if (!o->isa.empty()) {
      if (target.backend != Backend::cpu)
        throw std::runtime_error(fmt::format("--isa applies to the cpu backend; profile `{}` is {}", profile.name,
                                             backend_name(target.backend)));
      std::optional<Isa> isa = isa_from_name(o->isa);
      if (!isa) throw std::runtime_error(fmt::format("unknown --isa `{}`; choose none, sse, avx2, avx512 or neon", o->isa));
      set_isa(target, *isa);
    }
    if (o->threads < 0) throw std::runtime_error("--threads takes a number >= 1");
    if (o->threads > 0) {
      if (target.backend != Backend::cpu) throw std::runtime_error("--threads applies to the cpu backend");
      target.threads = o->threads;
    }
    if (!o->cuda_arch.empty() && target.backend != Backend::cuda) throw std::runtime_error("--cuda-arch applies to the cuda backend");

    std::unique_ptr<Suite> suite;
    LoadedProgram lp = load_file_or_task(o->target, g, suite);
    io::ExportOptions eo;
    eo.name = o->name;
    eo.origin = lp.task ? fmt::format("suite task {} ({})", lp.task->name, lp.task->file.filename().string())
                        : fmt::format("the file {}", o->target);
    eo.program_argument = o->target;
    eo.opencl_platform = profile.gpu.platform;
    eo.cuda_architectures = o->cuda_arch;
    ScheduleChoice sc = choose_schedule(*lp.program, target, o->schedule);
    io::KernelExport e = io::make_export(*lp.program, target, sc, eo);
    io::WriteReport r = io::write_export(e, o->out, o->replace);

    if (o->json) {
      nlohmann::json j = {{"name", e.name},          {"kernel", lp.program->name},  {"backend", backend_name(target.backend)},
                          {"target", target.describe()}, {"schedule", e.schedule}, {"openmp", e.uses_openmp},
                          {"directory", o->out},     {"files", r.written},          {"removed", r.removed}};
      std::cout << j.dump(2) << "\n";
      return;
    }
    std::cout << fmt::format("exported {} ({}, schedule {}) for {} to {}/\n", e.name, backend_name(target.backend), e.schedule,
                             target.describe(), o->out);
    for (const auto& f : r.written) std::cout << "  " << f << "\n";
    for (const auto& f : r.removed) std::cout << "  removed " << f << " (from the earlier export)\n";
    std::cout << fmt::format("build: cmake -S {0} -B {0}/build && cmake --build {0}/build && {0}/build/{1}_example --help\n", o->out,
                             e.name);
  });
}

}  // namespace ekb::cli
