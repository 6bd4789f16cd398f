// A deployable kernel: what `ekb export` writes. From a checked program, a schedule and a target, the
// files of a standalone project that builds without ekb: the generated source (C, CUDA C or OpenCL
// C), a header with the entry point and every tensor's name, type, shape and row-major layout (and
// for GPU programs the launch contract), a CMakeLists.txt, a small host example that runs the kernel
// on .npy inputs and checks its outputs by ekb's rule, and a README.txt. docs/export.md describes it.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "ir/program.h"
#include "lower/schedule_choice.h"
#include "target/target.h"

namespace ekb::io {

struct ExportFile {
  std::string name;  // relative to the export's directory
  std::string text;
};

struct ExportOptions {
  std::string name;    // the C identifier naming the files and the header's constants (default: the kernel's name)
  std::string origin;  // where the program and its schedule come from, for the files' comments
  std::string program_argument;  // how ekb names the program (the task, or the .ekb file) in the README's commands
  // OpenCL: a part of the platform's name the example picks by default ("" = the first with a device).
  std::string opencl_platform;
  // CUDA: the default CMAKE_CUDA_ARCHITECTURES of the export ("" = 90, the H200's).
  std::string cuda_architectures;
};

struct KernelExport {
  std::string name;
  Target target;
  std::string schedule;  // which schedule it was lowered with ("default", "own", a file)
  bool uses_openmp = false;
  std::vector<ExportFile> files;  // in the order written
  const ExportFile* file(const std::string& name) const;
};

// Lowers `p` with `schedule` for `target` and makes the export's files. Throws DiagnosticError (a
// schedule illegal for the target, located), or std::runtime_error (a name that is not a C identifier).
KernelExport make_export(const Program& p, const Target& target, const ScheduleChoice& schedule, const ExportOptions& o);

// Whether `s` can name the export: a C identifier ([A-Za-z_][A-Za-z0-9_]*).
bool is_c_identifier(const std::string& s);
// The name of a kernel made into a C identifier (characters other than letters, digits and `_` become `_`).
std::string export_name_for(const std::string& kernel_name);

// The file in an export's directory listing what ekb wrote there (one name a line).
inline constexpr const char* kExportManifest = ".ekb-export";

struct WriteReport {
  std::vector<std::string> written;  // every file of the export
  std::vector<std::string> removed;  // files of an earlier export that this one does not have
};
// Writes `e` into `dir`, created when missing. `dir` must be empty or missing; with `replace`, it may
// also hold an earlier export (its manifest lists the files ekb wrote there): those files are
// replaced or removed, and any other file is left alone; a file of this export that exists but is
// not in the manifest is never overwritten. Throws std::runtime_error naming the path and the rule.
WriteReport write_export(const KernelExport& e, const std::filesystem::path& dir, bool replace);

}  // namespace ekb::io
