// What a board checks before it loads a kernel the host built for it: an ELF shared object for this
// board's machine, of a bounded size, in which nothing runs when it is loaded. A board loads the
// object with the system's dynamic loader, before its worker locks itself in (sandbox.h), so code
// that the loader would run — initializers (DT_INIT, DT_INIT_ARRAY, DT_PREINIT_ARRAY, a C
// `__attribute__((constructor))`) and IFUNC resolvers (`__attribute__((ifunc))`, IRELATIVE
// relocations) — would run unsandboxed; the host builds kernels without start files
// (-nostartfiles), so that a kernel has none of them unless its source asks for them. (On the host,
// ekb's in-process compile path never runs initializers: its JIT has no platform for them.)
#pragma once
#include <cstdint>
#include <string>

namespace ekb::remote {

constexpr uint64_t kMaxKernelObjectBytes = 64ull << 20;

enum class ElfProblem {
  none,
  malformed,     // not a 64-bit little-endian ELF shared object, or cut short
  wrong_machine, // built for another machine than this board's
  too_large,     // larger than kMaxKernelObjectBytes
  runs_at_load,  // an initializer or an IFUNC resolver: the candidate's code would run before the sandbox
};

struct ElfCheck {
  ElfProblem problem = ElfProblem::none;
  std::string message;  // what is wrong, for people
  int machine = 0;      // the object's e_machine (when it could be read)
  bool ok() const { return problem == ElfProblem::none; }
};

// Checks `bytes` as a kernel for a board whose ELF machine is `machine` (target/arch.h).
ElfCheck check_kernel_object(const std::string& bytes, int machine);

}  // namespace ekb::remote
