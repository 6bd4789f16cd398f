// The CPU architectures ekb builds kernels for: the host's own, and those of edge boards attached as
// remote devices (docs/scale.md, "Remote boards"). One table holds what differs between them: the
// spelling, the GNU triple (and so the cross compiler's name), the ELF machine a kernel built for it
// carries, the vector ISA its kernels are lowered for unless a profile says otherwise, and the
// -march a cross compile uses by default.
#pragma once
#include <optional>
#include <string>


namespace ekb {

enum class Isa;  // target.h

enum class Arch { x86_64, aarch64, riscv64 };

struct ArchInfo {
  Arch arch;
  const char* name;          // "aarch64", as profiles spell it and `uname -m` prints it
  const char* triple;        // "aarch64-linux-gnu": Debian's cross toolchains are TRIPLE-gcc
  int elf_machine;           // e_machine of its ELF files (EM_AARCH64 = 183)
  Isa default_isa;           // what its kernels are lowered for unless a profile names another
  const char* default_march; // -march for a cross compile unless a profile names another
};

const ArchInfo& arch_info(Arch a);
inline const char* arch_name(Arch a) { return arch_info(a).name; }
// The architecture spelled `name` ("aarch64"; also "arm64", "x86-64", "amd64"), or nothing.
std::optional<Arch> find_arch(const std::string& name);
// The architecture this program was built for.
constexpr Arch native_arch() {
#if defined(__aarch64__)
  return Arch::aarch64;
#elif defined(__riscv) && __riscv_xlen == 64
  return Arch::riscv64;
#elif defined(__x86_64__)
  return Arch::x86_64;
#else
#error "ekb builds for x86_64, aarch64 and riscv64"
#endif
}
// Its ELF machine's name for messages ("AArch64"), for any e_machine value.
std::string elf_machine_name(int machine);

}  // namespace ekb
