// The CPU backend's C compile layer: C source in, callable native code (or IR / assembly / object
// bytes) out, behind one interface so the harness does not care which toolchain is installed.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

// Turning C source into native code for the host CPU, behind one interface: in process through
// clang/LLVM 19 (libclang-cpp + ORC LLJIT) where it is installed, or through the system C compiler as
// a subprocess where it is not (the GPU machine, real edge boards).
namespace ekb {
enum class EmitKind { ll, asm_text, obj };
struct CompileOptions {
  int opt_level = 3;
  bool openmp = true;                  // #pragma omp parallel for ... num_threads(n) must work
  std::string cpu = "native";          // target CPU: "native" means the host (getHostCPUName + features)
  std::vector<std::string> extra_flags;  // more compiler flags (e.g. "-DFOO=1")
  bool cplusplus = false;                // the source is C++ (gnu++17) instead of C (gnu11)
  // In process only (the subprocess compiler runs its own -O<opt_level>):
  enum class Passes { ekb, clang };
  Passes passes = Passes::ekb;  // above -O0: ekb's LLVM pass list (llvm_passes.cpp), or clang's own -O<opt_level>
  std::string pass_pipeline;    // for measurements: LLVM pass pipeline text to run instead of either
  std::vector<std::string> target_features;  // more LLVM target features than the CPU's, e.g. "+prefer-no-gather"
  bool llvm_default_codegen = false;  // the code generator's passes as LLVM picks them for the CPU (else: clang_frontend.h)
};
struct CompileError : std::runtime_error {  // what() is a one-line summary; log holds the compiler's diagnostics
  std::string log;
  CompileError(const std::string& what, std::string log);
};
class CompiledModule {  // owns the code; symbols stay valid while it lives
 public:
  virtual ~CompiledModule() = default;
  virtual void* lookup(const std::string& symbol) = 0;  // nullptr when missing
};
class CCompiler {
 public:
  virtual ~CCompiler() = default;
  virtual std::string name() const = 0;  // e.g. "clang 19.1.7 (in process)" or "/usr/bin/cc (subprocess)"
  // Compiles C11 (GNU extensions allowed) to native code; throws CompileError with the diagnostics.
  virtual std::unique_ptr<CompiledModule> compile(const std::string& c_source, const CompileOptions& o) = 0;
  // LLVM IR text, assembly text, or object file bytes for the same source.
  virtual std::string emit(const std::string& c_source, EmitKind kind, const CompileOptions& o) = 0;
  // The compiled code as bytes that can be kept and loaded again (by this compiler, on this
  // machine): an object file in process, a shared library from a subprocess compiler. Throws
  // CompileError as compile() does; load_binary throws CompileError for bytes it cannot load.
  virtual std::string compile_binary(const std::string& c_source, const CompileOptions& o) = 0;
  virtual std::unique_ptr<CompiledModule> load_binary(const std::string& binary) = 0;
};
std::unique_ptr<CCompiler> make_default_c_compiler();  // in process when built with EKB_WITH_LLVM, else subprocess
// What identifies the default compiler's binaries without starting it: the compile path, its
// version, and the CPU it targets (binaries are kept per identity, options and source).
std::string default_c_compiler_identity();
std::unique_ptr<CCompiler> make_subprocess_c_compiler(std::string cc = "");  // "" = $CC, else cc
// A shared object's bytes (what a subprocess or cross compiler builds) loaded with the system's
// dynamic loader from a private temporary directory; throws CompileError when it does not load.
std::unique_ptr<CompiledModule> load_shared_object(const std::string& bytes);
#if EKB_WITH_LLVM
std::unique_ptr<CCompiler> make_inprocess_c_compiler();
#endif

// The directories a compile path reads beyond the system's (/usr/include, /usr/lib, /usr/bin...):
// what a worker's compile confinement must also allow. In process: clang's resource dir, clang's
// and libomp's installation. Subprocess: the installation of the compiler ($CC, else cc) when it
// lives outside /usr.
std::vector<std::string> default_c_compiler_dirs();
std::vector<std::string> subprocess_c_compiler_dirs(std::string cc = "");

// The flags both paths share, in the order a compiler driver takes them (without -O, -march, input
// and output): -std=gnu11 (or -x c++ -std=gnu++17) -ffp-contract=fast -fno-math-errno [-fopenmp] and
// the extra flags.
std::vector<std::string> common_c_flags(const CompileOptions& o);
// The first line of a compiler log that says "error" (for CompileError::what()), or `fallback`.
std::string first_error_line(const std::string& log, const std::string& fallback);
}  // namespace ekb
