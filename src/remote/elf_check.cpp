// The kernel object's checks (elf_check.h), on the ELF structures as the dynamic loader reads them:
// program headers and the dynamic section (section headers can be absent and are not trusted).
#include "remote/elf_check.h"

#include <elf.h>

#include <cstring>
#include <optional>
#include <vector>

#include "target/arch.h"

namespace ekb::remote {

namespace {

// R_<machine>_IRELATIVE: a relocation whose value is what a resolver function returns.
constexpr uint32_t kIrelativeX86_64 = 37, kIrelativeAarch64 = 1032, kIrelativeRiscv = 58;

struct Reader {
  const std::string& b;
  template <class T>
  std::optional<T> at(uint64_t off) const {
    if (off > b.size() || sizeof(T) > b.size() - off) return std::nullopt;
    T v;
    std::memcpy(&v, b.data() + off, sizeof(T));
    return v;
  }
};

ElfCheck fail(ElfProblem p, std::string message, int machine = 0) { return ElfCheck{p, std::move(message), machine}; }

}  // namespace

ElfCheck check_kernel_object(const std::string& bytes, int machine) {
  if (bytes.size() > kMaxKernelObjectBytes)
    return fail(ElfProblem::too_large, "the kernel's object is " + std::to_string(bytes.size()) + " bytes; a board loads at most " +
                                           std::to_string(kMaxKernelObjectBytes));
  Reader r{bytes};
  auto eh = r.at<Elf64_Ehdr>(0);
  if (!eh || std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0) return fail(ElfProblem::malformed, "the kernel's object is not an ELF file");
  if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB)
    return fail(ElfProblem::malformed, "the kernel's object is not a 64-bit little-endian ELF file");
  if (eh->e_machine != machine)
    return fail(ElfProblem::wrong_machine,
                "the kernel's object is built for " + elf_machine_name(eh->e_machine) + ", but this board is " + elf_machine_name(machine),
                eh->e_machine);
  if (eh->e_type != ET_DYN) return fail(ElfProblem::malformed, "the kernel's object is not a shared object (ET_DYN)", eh->e_machine);
  if (eh->e_phentsize != sizeof(Elf64_Phdr)) return fail(ElfProblem::malformed, "the kernel's object has malformed program headers", machine);

  // Program headers: the loaded segments (to map addresses to file offsets) and the dynamic section.
  std::vector<Elf64_Phdr> loads;
  std::optional<Elf64_Phdr> dynamic;
  for (uint64_t i = 0; i < eh->e_phnum; ++i) {
    auto ph = r.at<Elf64_Phdr>(eh->e_phoff + i * sizeof(Elf64_Phdr));
    if (!ph) return fail(ElfProblem::malformed, "the kernel's object is cut short (program headers)", machine);
    if (ph->p_type == PT_LOAD) loads.push_back(*ph);
    if (ph->p_type == PT_DYNAMIC) dynamic = *ph;
  }
  if (!dynamic) return fail(ElfProblem::malformed, "the kernel's object has no dynamic section", machine);
  auto offset_of = [&](uint64_t vaddr) -> std::optional<uint64_t> {
    for (const auto& l : loads)
      if (vaddr >= l.p_vaddr && vaddr - l.p_vaddr < l.p_filesz) return l.p_offset + (vaddr - l.p_vaddr);
    return std::nullopt;
  };

  // The dynamic entries the loader acts on.
  uint64_t rela = 0, relasz = 0, jmprel = 0, pltrelsz = 0, symtab = 0, init_arraysz = 0, preinit_arraysz = 0;
  bool init = false, init_array = false, preinit_array = false;
  for (uint64_t off = dynamic->p_offset; off + sizeof(Elf64_Dyn) <= dynamic->p_offset + dynamic->p_filesz; off += sizeof(Elf64_Dyn)) {
    auto d = r.at<Elf64_Dyn>(off);
    if (!d) return fail(ElfProblem::malformed, "the kernel's object is cut short (dynamic section)", machine);
    if (d->d_tag == DT_NULL) break;
    switch (d->d_tag) {
      case DT_INIT: init = true; break;
      case DT_INIT_ARRAY: init_array = true; break;
      case DT_INIT_ARRAYSZ: init_arraysz = d->d_un.d_val; break;
      case DT_PREINIT_ARRAY: preinit_array = true; break;
      case DT_PREINIT_ARRAYSZ: preinit_arraysz = d->d_un.d_val; break;
      case DT_RELA: rela = d->d_un.d_ptr; break;
      case DT_RELASZ: relasz = d->d_un.d_val; break;
      case DT_JMPREL: jmprel = d->d_un.d_ptr; break;
      case DT_PLTRELSZ: pltrelsz = d->d_un.d_val; break;
      case DT_SYMTAB: symtab = d->d_un.d_ptr; break;
      default: break;
    }
  }
  const char* at_load =
      "; code that runs when a kernel is loaded is not allowed on a board (it would run before the sandbox): "
      "no constructors, no ifunc";
  if (init || (init_array && init_arraysz > 0) || (preinit_array && preinit_arraysz > 0))
    return fail(ElfProblem::runs_at_load, std::string("the kernel has initializers (a constructor or .init_array)") + at_load, machine);

  // Relocations: an IRELATIVE one, or one against an IFUNC symbol the object defines, runs a resolver.
  uint32_t irelative = machine == EM_AARCH64 ? kIrelativeAarch64 : machine == EM_RISCV ? kIrelativeRiscv : kIrelativeX86_64;
  std::optional<uint64_t> symtab_off = symtab ? offset_of(symtab) : std::nullopt;
  for (auto [addr, size] : {std::pair{rela, relasz}, std::pair{jmprel, pltrelsz}}) {
    if (!addr || !size) continue;
    auto off = offset_of(addr);
    if (!off) return fail(ElfProblem::malformed, "the kernel's object has relocations outside its segments", machine);
    for (uint64_t k = 0; k + sizeof(Elf64_Rela) <= size; k += sizeof(Elf64_Rela)) {
      auto rel = r.at<Elf64_Rela>(*off + k);
      if (!rel) return fail(ElfProblem::malformed, "the kernel's object is cut short (relocations)", machine);
      if (ELF64_R_TYPE(rel->r_info) == irelative)
        return fail(ElfProblem::runs_at_load, std::string("the kernel has an IFUNC resolver (an IRELATIVE relocation)") + at_load, machine);
      uint64_t sym = ELF64_R_SYM(rel->r_info);
      if (sym == 0 || !symtab_off) continue;
      auto s = r.at<Elf64_Sym>(*symtab_off + sym * sizeof(Elf64_Sym));
      if (!s) return fail(ElfProblem::malformed, "the kernel's object has a relocation against a symbol past its table", machine);
      if (ELF64_ST_TYPE(s->st_info) == STT_GNU_IFUNC && s->st_shndx != SHN_UNDEF)
        return fail(ElfProblem::runs_at_load, std::string("the kernel defines an IFUNC symbol") + at_load, machine);
    }
  }
  return ElfCheck{ElfProblem::none, "", machine};
}

}  // namespace ekb::remote
