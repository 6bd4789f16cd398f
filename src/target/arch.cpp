// The architecture table (arch.h).
#include "target/arch.h"

#include "target/target.h"

#include <array>

namespace ekb {

namespace {
// e_machine values (<elf.h>): EM_X86_64, EM_AARCH64, EM_RISCV.
constexpr int kEmX86_64 = 62, kEmAarch64 = 183, kEmRiscv = 243;

const std::array<ArchInfo, 3>& table() {
  // x86-64-v2 (SSE4.2, POPCNT) runs on every x86-64 board made in the last decade; a profile
  // names its own (e.g. x86-64-v3 with AVX2) when it has more. armv8-a is every 64-bit Arm;
  // rv64gc is the RISC-V Linux baseline (RVV is not used: the profile's ISA is `none`).
  static const std::array<ArchInfo, 3> t = {{
      {Arch::x86_64, "x86_64", "x86_64-linux-gnu", kEmX86_64, Isa::sse, "x86-64-v2"},
      {Arch::aarch64, "aarch64", "aarch64-linux-gnu", kEmAarch64, Isa::neon, "armv8-a"},
      {Arch::riscv64, "riscv64", "riscv64-linux-gnu", kEmRiscv, Isa::none, "rv64gc"},
  }};
  return t;
}
}  // namespace

const ArchInfo& arch_info(Arch a) { return table()[static_cast<size_t>(a)]; }

std::optional<Arch> find_arch(const std::string& name) {
  for (const auto& i : table())
    if (name == i.name) return i.arch;
  if (name == "arm64") return Arch::aarch64;
  if (name == "x86-64" || name == "amd64") return Arch::x86_64;
  return std::nullopt;
}

std::string elf_machine_name(int machine) {
  switch (machine) {
    case kEmX86_64: return "x86-64";
    case kEmAarch64: return "AArch64";
    case kEmRiscv: return "RISC-V";
    case 3: return "i386";
    case 40: return "ARM (32-bit)";
  }
  return "machine " + std::to_string(machine);
}

}  // namespace ekb
