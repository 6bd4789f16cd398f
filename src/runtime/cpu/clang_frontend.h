// The in-process compiler's front half: C source to an optimized llvm::Module through clang 19's
// CompilerInstance, for the host CPU. Internal to src/runtime/cpu (only built with EKB_WITH_LLVM).
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/cpu/c_compiler.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm
namespace clang {
class CompilerInvocation;
}  // namespace clang

namespace ekb {

// What LLVM reports about the machine we run on, asked once per process.
struct HostTarget {
  std::string triple;                 // e.g. x86_64-pc-linux-gnu
  std::string cpu;                    // llvm::sys::getHostCPUName(), e.g. znver5
  std::vector<std::string> features;  // from llvm::sys::getHostCPUFeatures(): "+avx512f", "-amx-tile", ...
};
const HostTarget& host_target();

// The target CPU and features that CompileOptions::cpu names ("native" = the host's).
struct TargetCpu {
  std::string cpu;
  std::vector<std::string> features;
};
TargetCpu target_cpu_for(const CompileOptions& o);

// Registers the native target with LLVM and loads libomp and libm with RTLD_GLOBAL so JIT'd code
// can call them. Idempotent and thread-safe. Returns what failed to load ("" when all is well).
const std::string& init_llvm_native_once();

// Where clang's own files are: its resource dir (stddef.h, omp.h), its installation (the driver
// looks for gcc's headers from there) and libomp's directory.
std::vector<std::string> inprocess_compiler_dirs();

class ClangFrontend {
 public:
  ClangFrontend();
  ~ClangFrontend();
  // C source to an optimized module owned by ctx; throws CompileError with clang's diagnostics
  // (file name "kernel.c", with line:col). Thread-safe.
  std::unique_ptr<llvm::Module> compile(const std::string& c_source, const CompileOptions& o,
                                        llvm::LLVMContext& ctx);

 private:
  // The driver's work (flags to a CompilerInvocation) is done once per distinct option set.
  std::shared_ptr<const clang::CompilerInvocation> base_invocation(const CompileOptions& o, std::string& log);

  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const clang::CompilerInvocation>> invocations_;
};

}  // namespace ekb
