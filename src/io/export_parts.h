// The parts of an export that its backends share (export.h): what every file says about where it
// comes from, the frame of the header, CMakeLists.txt and README.txt, the header's description of each
// tensor, the example's table of tensors, and the example's support code. The backend files
// (export_cpu.cpp, export_gpu.cpp) put them together.
#pragma once
#include <string>
#include <vector>

#include "io/export.h"
#include "lower/lower.h"
#include "runtime/gpu/launch_contract.h"

namespace ekb::io::detail {

struct ExportContext {
  const Program& program;
  const lower::LoweredKernel& kernel;
  const ExportOptions& options;
  std::string name;      // the export's C identifier
  std::string schedule;  // which schedule ("default", "own", a file)
};

// Lines saying what this is, where it comes from and what it was lowered for, each prefixed with
// `prefix` (" * " in a C block comment, "# " in CMake).
std::string provenance(const ExportContext& c, const std::string& prefix);

// How ekb names the program in a command line (the task, or the .ekb file).
std::string program_argument(const ExportContext& c);

// The header's description of the tensors, in ABI order (inputs, then outputs): per tensor a comment
// (role, type, shape with the declared dimension names, row-major strides, the values ekb checked it
// on or its tolerance) and macros NAME_T_RANK, _ELEMENTS, _BYTES, _SHAPE, _STRIDES (and
// _TOLERANCE for outputs); then NAME_NUM_INPUTS and NAME_NUM_OUTPUTS.
std::string tensor_layout(const ExportContext& c, const std::string& (*storage_type)(DType));

// The example's `ekb_tensor tensors[]` table (example_support.h), in ABI order.
std::string example_tensor_table(const ExportContext& c);

// The launch contract as header text: a comment listing each launch and scratch buffer, and macros
// NAME_NUM_LAUNCHES, NAME_NUM_SCRATCH, NAME_NUM_BUFFERS, NAME_SCRATCH_<S>_BYTES.
std::string launch_contract_block(const ExportContext& c, const gpu::LaunchContract& contract);

// The storage type of a tensor's elements in host C (f16 _Float16, bf16 and bool as uint8/16_t bits).
const std::string& host_c_type(DType t);

// The frame of the files every backend writes (export_frame.cpp).
// The header NAME.h: a block comment (`title`, the provenance, then `usage`), the include guard NAME_H
// around `includes`, the extern "C" block C++ needs (with `cxx_defines` before its opening, and `c_defines`
// for C in its #else when given) and `body`.
struct HeaderText {
  std::string title;  // the comment's first line, "NAME.h: ..."
  std::string usage;  // the comment's lines after the provenance, each starting " * "
  std::string includes;
  std::string cxx_defines, c_defines;
  std::string body;   // the declarations
};
std::string c_header(const ExportContext& c, const HeaderText& h);
// CMakeLists.txt's opening lines: `title` (what the project builds), the provenance, how to build and
// run the example.
std::string cmake_intro(const ExportContext& c, const std::string& title);
// The example's target NAME_example (main.c and example_support.c, C11 with GNU extensions), with
// `extra` lines of CMake before it is linked to the kernel's library NAME.
std::string cmake_example_target(const std::string& name, const std::string& extra = "");
// README.txt: the title, the provenance, the files (`files`: the lines for the kernel's own files,
// then CMakeLists.txt, main.c and example_support.*), how to build the example and check it against
// ekb's reference; then `more`.
struct ReadmeText {
  std::string files;    // lines "  NAME.c             ...\n"
  std::string example;  // what main.c does
  std::string needs;    // what building it needs
  std::string more;     // sections after the check
};
std::string readme_text(const ExportContext& c, const ReadmeText& r);

// example_support.h and example_support.c: tensors in host memory, .npy in and out, generated
// inputs, ekb's comparison rule, timing and the command line (the same in every export).
std::string example_support_header();
std::string example_support_source();

// The backends' files.
void add_cpu_files(const ExportContext& c, KernelExport& e);
void add_gpu_files(const ExportContext& c, KernelExport& e);

}  // namespace ekb::io::detail
