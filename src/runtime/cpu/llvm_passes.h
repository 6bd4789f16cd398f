// The LLVM passes the in-process compile runs on the module clang made from ekb's C.
#pragma once
#include <string>

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace ekb {

// ekb's pass list for its own C (llvm_passes.cpp says what it leaves out of -O3, and why), as
// LLVM's textual pipeline.
const std::string& ekb_pass_pipeline();

// Runs `pipeline` (LLVM's textual pass pipeline, e.g. "default<O3>") over m, with the target's cost
// model (tm) and the C library as clang knows it. Throws CompileError when the text does not parse.
void run_llvm_passes(llvm::Module& m, llvm::TargetMachine& tm, const std::string& pipeline);

}  // namespace ekb
