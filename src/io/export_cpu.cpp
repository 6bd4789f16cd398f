// The files of a CPU export (export.h): the kernel's C translation unit as ekb compiles it, its header,
// a CMake project (a static library and the example), the example's main.c, and a README.txt.
#include <fmt/format.h>

#include "codegen/c_printer.h"
#include "codegen/dialect.h"
#include "io/export_parts.h"

namespace ekb::io::detail {

namespace {

// The instruction-set flags the export's CMakeLists.txt gives the kernel by default, and the
// processors they are for (a CMAKE_SYSTEM_PROCESSOR pattern): the vector widths ekb chose follow the
// ISA, and these let the compiler use its registers. Isa::none: no vector code, any processor.
struct IsaBuild {
  const char* flags;
  const char* processors;  // "" = any
  const char* processor_name;
};
IsaBuild isa_build(Isa isa) {
  switch (isa) {
    case Isa::none: return {"", "", ""};
    case Isa::sse: return {"", "^(x86_64|AMD64|amd64|i[3-6]86)$", "x86-64"};
    case Isa::avx2: return {"-mavx2 -mfma", "^(x86_64|AMD64|amd64)$", "x86-64"};
    case Isa::avx512: return {"-mavx2 -mfma -mavx512f -mavx512vl -mavx512bw", "^(x86_64|AMD64|amd64)$", "x86-64"};
    case Isa::neon: return {"", "^(aarch64|arm64|ARM64)$", "aarch64"};
  }
  return {"", "", ""};
}

std::string header(const ExportContext& c) {
  const std::string& n = c.name;
  std::string signature = codegen::c_signature(c.kernel, codegen::c_dialect());
  for (size_t at; (at = signature.find("* restrict ")) != std::string::npos;)
    signature.replace(at, 11, "* " + n + "_RESTRICT ");
  HeaderText h;
  h.title = fmt::format("{0}.h: the entry point of the kernel in {0}.c and the layout of its tensors.", n);
  h.usage = fmt::format(
      " * Call it as\n"
      " *   ekb_kernel(inputs..., outputs..., num_threads);\n"
      " * with a pointer to the first element of each tensor (64-byte aligned, as ekb passes them), and\n"
      " * num_threads >= 1: the kernel runs its parallel loops on at most that many threads (OpenMP) and returns\n"
      " * when all its work is done. It allocates its intermediate buffers itself (and frees them). Several\n"
      " * calls may run at once on different outputs. Types: f64 double, f32 float, f16 _Float16, bf16\n"
      " * uint16_t (bfloat16 bits), i64/i32/i16/i8 int64_t/int32_t/int16_t/int8_t, u8 uint8_t, bool uint8_t\n"
      " * (0 or 1). {0}_THREADS is the thread count of the target it was lowered for. To link two exports\n"
      " * into one program, give each its own symbol: cmake -D{0}_SYMBOL=name (see CMakeLists.txt).\n",
      n);
  h.includes = "#include <stdint.h>\n\n";
  h.cxx_defines = fmt::format("#define {}_RESTRICT __restrict__\n", n);
  h.c_defines = fmt::format("#define {}_RESTRICT restrict\n", n);
  h.body = tensor_layout(c, host_c_type);
  h.body += fmt::format("\n#define {}_THREADS {}\n\n", n, c.kernel.target.threads);
  h.body += signature + ";\n";
  h.body += "/* The same call with the tensors as an array of pointers (inputs, then outputs): how ekb calls it. */\n"
            "void ekb_entry(void* const* args, int32_t num_threads);\n";
  return c_header(c, h);
}

std::string main_c(const ExportContext& c) {
  const auto& k = c.kernel;
  std::vector<std::string> args;
  size_t i = 0;
  for (const auto& t : k.inputs) args.push_back(fmt::format("(const {}*)t[{}].data", host_c_type(t.type), i++));
  for (const auto& t : k.outputs) args.push_back(fmt::format("({}*)t[{}].data", host_c_type(t.type), i++));
  args.push_back("threads");
  return fmt::format(
      "/* main.c: an example that runs kernel {0} (ekb export) on its inputs, prints its outputs' checksums and\n"
      " * the time of a call, and checks the outputs against ekb's reference: `{0}_example --help`. */\n"
      "#include \"example_support.h\"\n#include \"{0}.h\"\n\n{1}\n"
      "static int run(void* ctx, ekb_tensor* t, int count, int threads) {{\n"
      "  (void)ctx;\n  (void)count;\n  ekb_kernel({2});\n  return 0;\n}}\n\n"
      "int main(int argc, char** argv) {{\n"
      "  static const ekb_example_ops ops = {{\"\", NULL, NULL, run, NULL}};\n"
      "  return ekb_example_main(argc, argv, \"{0}\", tensors, (int)(sizeof tensors / sizeof tensors[0]), {0}_THREADS, &ops, NULL);\n"
      "}}\n",
      c.name, example_tensor_table(c), fmt::join(args, ", "));
}

std::string cmake_lists(const ExportContext& c, bool openmp) {
  const std::string& n = c.name;
  Isa isa = c.kernel.target.isa;
  IsaBuild b = isa_build(isa);
  std::string out =
      cmake_intro(c, fmt::format("kernel {0} (ekb export) as a static library `{0}`, and `{0}_example`, which runs it.", n));
  out += fmt::format(
      "# Standalone: the C compiler (GCC or Clang: the kernel uses GNU C vector extensions), the C library{1}.\n"
      "cmake_minimum_required(VERSION 3.16)\n"
      "project({0} LANGUAGES C)\n\n"
      "if(NOT CMAKE_C_COMPILER_ID MATCHES \"GNU|Clang\")\n"
      "  message(FATAL_ERROR \"{0}: the generated C uses GNU C (vector extensions, statement expressions): build it with GCC or Clang\")\n"
      "endif()\n\n",
      n, openmp ? " and OpenMP" : "");
  out += fmt::format(
      "# The ISA the kernel was lowered for is {0}: its vector widths follow it, and these flags let the compiler\n"
      "# use its registers. Set {1}_ARCH_FLAGS to tune for another CPU of the same architecture (e.g. -march=native).\n"
      "set({1}_ARCH_FLAGS \"{2}\" CACHE STRING \"instruction-set flags of kernel {1}\")\n"
      "set(_{1}_arch_flags ${{{1}_ARCH_FLAGS}})\n",
      isa_name(isa), n, b.flags);
  if (b.processors[0])
    out += fmt::format(
        "if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES \"{0}\")\n"
        "  message(WARNING \"{1} was exported for {2} ({3}) but this build targets ${{CMAKE_SYSTEM_PROCESSOR}}: it builds \"\n"
        "    \"and computes the same, but its vector widths were chosen for another CPU; export it again with ekb export --isa \"\n"
        "    \"for this one\")\n"
        "{4}"
        "endif()\n",
        b.processors, n, b.processor_name, isa_name(isa),
        b.flags[0] ? fmt::format("  if({0}_ARCH_FLAGS STREQUAL \"{1}\")\n    set(_{0}_arch_flags \"\")\n  endif()\n", n, b.flags) : "");
  out += fmt::format(
      "separate_arguments(_{0}_arch_flags)\n\n"
      "# The kernel's C symbol: ekb_kernel (and ekb_entry). Two exports linked into one program need their own.\n"
      "set({0}_SYMBOL \"ekb_kernel\" CACHE STRING \"the C symbol of kernel {0}\")\n\n"
      "add_library({0} STATIC {0}.c)\n"
      "set_target_properties({0} PROPERTIES C_STANDARD 11 C_EXTENSIONS ON POSITION_INDEPENDENT_CODE ON)\n"
      "target_include_directories({0} PUBLIC ${{CMAKE_CURRENT_SOURCE_DIR}})\n"
      "# As ekb compiles it: optimized, contracted multiply-adds, no errno from math functions.\n"
      "target_compile_options({0} PRIVATE -O3 -ffp-contract=fast -fno-math-errno ${{_{0}_arch_flags}})\n"
      "if(NOT {0}_SYMBOL STREQUAL \"ekb_kernel\")\n"
      "  target_compile_definitions({0} PUBLIC ekb_kernel=${{{0}_SYMBOL}} ekb_entry=${{{0}_SYMBOL}}_entry)\n"
      "endif()\n"
      "if(UNIX)  # the C math library (by name: a cross build links the target's)\n"
      "  target_link_libraries({0} PUBLIC m)\nendif()\n",
      n);
  if (openmp)
    out += fmt::format(
        "\n# The kernel runs its parallel loops with OpenMP (#pragma omp parallel for).\n"
        "option({0}_OPENMP \"run the parallel loops of kernel {0} on OpenMP threads\" ON)\n"
        "if({0}_OPENMP)\n"
        "  find_package(OpenMP COMPONENTS C)\n"
        "  if(NOT OpenMP_C_FOUND)\n"
        "    message(FATAL_ERROR \"kernel {0} runs its parallel loops with OpenMP, which this C compiler lacks (GCC: libgomp, \"\n"
        "      \"Clang: libomp); install it, or configure with -D{0}_OPENMP=OFF to run them on one thread\")\n"
        "  endif()\n"
        "  target_link_libraries({0} PUBLIC OpenMP::OpenMP_C)\n"
        "else()\n"
        "  target_compile_options({0} PRIVATE -Wno-unknown-pragmas)\n"
        "endif()\n",
        n);
  return out + "\n" + cmake_example_target(n);
}

std::string readme(const ExportContext& c, bool openmp) {
  const std::string& n = c.name;
  ReadmeText r;
  r.files = fmt::format(
      "  {0}.c              the kernel: ekb's generated C, exactly as ekb compiled and checked it\n"
      "  {0}.h              its entry point (ekb_kernel) and every tensor's name, type, shape and layout\n",
      n);
  r.example = "runs the kernel, prints checksums and the time, checks the outputs";
  r.needs = openmp ? "GCC or Clang with OpenMP" : "GCC or Clang";
  r.more = fmt::format(
      "\nCross-build (for example for a 64-bit Arm board, with Debian's gcc-aarch64-linux-gnu)\n"
      "  cat > aarch64.cmake <<EOF\n"
      "  set(CMAKE_SYSTEM_NAME Linux)\n  set(CMAKE_SYSTEM_PROCESSOR aarch64)\n  set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)\n"
      "  EOF\n"
      "  cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=aarch64.cmake && cmake --build build-arm64\n"
      "  qemu-aarch64 -L /usr/aarch64-linux-gnu build-arm64/{0}_example     # or run it on the board\n"
      "The kernel was lowered for ISA {1}; for another CPU, export it again for that CPU's ISA\n"
      "(ekb export ... --isa neon for 64-bit Arm, --isa avx2, avx512, sse or none).\n",
      n, isa_name(c.kernel.target.isa));
  return readme_text(c, r);
}

}  // namespace

void add_cpu_files(const ExportContext& c, KernelExport& e) {
  std::string source = codegen::print_c(c.kernel, codegen::c_dialect());
  e.uses_openmp = source.find("#pragma omp") != std::string::npos;
  std::string notice = fmt::format("/* {}.c: kernel {} as ekb generated and compiled it (see {}.h for its interface).\n{} */\n",
                                   c.name, c.program.name, c.name, provenance(c, " * "));
  e.files.push_back({c.name + ".c", notice + source});
  e.files.push_back({c.name + ".h", header(c)});
  e.files.push_back({"main.c", main_c(c)});
  e.files.push_back({"CMakeLists.txt", cmake_lists(c, e.uses_openmp)});
  e.files.push_back({"README.txt", readme(c, e.uses_openmp)});
}

}  // namespace ekb::io::detail
