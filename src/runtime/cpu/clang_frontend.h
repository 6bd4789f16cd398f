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

// The LLVM pass pipeline the compile runs after clang's front end (which then runs none of its own),
// or "" when clang runs its own -O<opt_level> pipeline.
std::string passes_after_frontend(const CompileOptions& o);

// Code generation with LLVM's process-wide switches set as `o` asks: on x86, without the post-RA
// list scheduler unless o.llvm_default_codegen (it took 4% of a compile and changed no suite kernel's
// time: bench/results/pass_pipeline.md; out-of-order x86 cores reorder for themselves). Hold the
// lock while the code generator runs: one compile at a time sets and uses the switches.
std::unique_lock<std::mutex> codegen_switches(const CompileOptions& o);
// What, beyond clang's version and the CPU, decides the code a default compile makes: ekb's pass
// list and the code generator's switches (part of the compile cache's key).
std::string inprocess_code_identity();

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
  // C source to a module owned by ctx, optimized by clang unless passes_after_frontend(o) names
  // passes for the caller to run; throws CompileError with clang's diagnostics
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
