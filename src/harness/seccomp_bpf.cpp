// The filter table compiled to BPF (seccomp_bpf.h) and loaded with seccomp(2).
#include "harness/seccomp_bpf.h"

#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <stdexcept>

namespace ekb::worker {

namespace {

#if defined(__x86_64__)
constexpr uint32_t kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr uint32_t kAuditArch = AUDIT_ARCH_AARCH64;
#elif defined(__riscv) && __riscv_xlen == 64
constexpr uint32_t kAuditArch = AUDIT_ARCH_RISCV64;
#else
#error "no seccomp architecture for this build"
#endif

uint32_t ret_of(FilterAction a) {
  switch (a) {
    case FilterAction::allow: return SECCOMP_RET_ALLOW;
    case FilterAction::trap: return SECCOMP_RET_TRAP;
    case FilterAction::errno_eacces: return SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA);
    case FilterAction::errno_enosys: return SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA);
    case FilterAction::kill: return SECCOMP_RET_KILL_PROCESS;
  }
  return SECCOMP_RET_KILL_PROCESS;
}

constexpr uint32_t kNr = offsetof(seccomp_data, nr), kArch = offsetof(seccomp_data, arch);
// The low and high 32-bit halves of argument i (every architecture here is little-endian).
uint32_t arg_lo(int i) { return static_cast<uint32_t>(offsetof(seccomp_data, args) + 8 * i); }
uint32_t arg_hi(int i) { return arg_lo(i) + 4; }

sock_filter stmt(uint16_t code, uint32_t k) { return BPF_STMT(code, k); }
sock_filter jump(uint16_t code, uint32_t k, uint8_t jt, uint8_t jf) { return BPF_JUMP(code, k, jt, jf); }

// The instructions that decide a rule whose call matched: they end in the rule's action (`act`)
// or the default (`def`); the caller appends those two returns right after them. A jump's offset
// counts the instructions between it and its target.
std::vector<sock_filter> condition_block(const ArgCondition& c) {
  uint32_t vlo = static_cast<uint32_t>(c.value), vhi = static_cast<uint32_t>(c.value >> 32);
  uint32_t mlo = static_cast<uint32_t>(c.mask), mhi = static_cast<uint32_t>(c.mask >> 32);
  std::vector<sock_filter> b;
  // Each sequence below is followed by `ret act` then `ret def`: from instruction i (0-based) of a
  // sequence of n, the jump to act is n-1-i, to def n-i.
  switch (c.cmp) {
    case ArgCmp::eq:  // hi == vhi && lo == vlo
      b = {stmt(BPF_LD | BPF_W | BPF_ABS, arg_hi(c.arg)), jump(BPF_JMP | BPF_JEQ | BPF_K, vhi, 0, 0),
           stmt(BPF_LD | BPF_W | BPF_ABS, arg_lo(c.arg)), jump(BPF_JMP | BPF_JEQ | BPF_K, vlo, 0, 0)};
      b[1].jt = 0, b[1].jf = static_cast<uint8_t>(4 - 1);  // mismatch: def
      b[3].jt = 0, b[3].jf = 1;
      break;
    case ArgCmp::ne:  // !(hi == vhi && lo == vlo)
      b = {stmt(BPF_LD | BPF_W | BPF_ABS, arg_hi(c.arg)), jump(BPF_JMP | BPF_JEQ | BPF_K, vhi, 0, 0),
           stmt(BPF_LD | BPF_W | BPF_ABS, arg_lo(c.arg)), jump(BPF_JMP | BPF_JEQ | BPF_K, vlo, 0, 0)};
      b[1].jt = 0, b[1].jf = static_cast<uint8_t>(4 - 1 - 1);  // hi differs: act
      b[3].jt = 1, b[3].jf = 0;                                // equal: def
      break;
    case ArgCmp::le:  // hi < vhi || (hi == vhi && lo <= vlo), unsigned
      b = {stmt(BPF_LD | BPF_W | BPF_ABS, arg_hi(c.arg)), jump(BPF_JMP | BPF_JGT | BPF_K, vhi, 0, 0),
           jump(BPF_JMP | BPF_JEQ | BPF_K, vhi, 0, 0), stmt(BPF_LD | BPF_W | BPF_ABS, arg_lo(c.arg)),
           jump(BPF_JMP | BPF_JGT | BPF_K, vlo, 0, 0)};
      b[1].jt = static_cast<uint8_t>(5 - 1), b[1].jf = 0;  // hi > vhi: def
      b[2].jt = 0, b[2].jf = static_cast<uint8_t>(5 - 1 - 2);  // hi < vhi: act
      b[4].jt = 1, b[4].jf = 0;                                 // lo > vlo: def, else act
      break;
    case ArgCmp::masked_eq:  // (hi & mhi) == vhi && (lo & mlo) == vlo
      b = {stmt(BPF_LD | BPF_W | BPF_ABS, arg_hi(c.arg)), stmt(BPF_ALU | BPF_AND | BPF_K, mhi),
           jump(BPF_JMP | BPF_JEQ | BPF_K, vhi & mhi, 0, 0), stmt(BPF_LD | BPF_W | BPF_ABS, arg_lo(c.arg)),
           stmt(BPF_ALU | BPF_AND | BPF_K, mlo), jump(BPF_JMP | BPF_JEQ | BPF_K, vlo & mlo, 0, 0)};
      b[2].jt = 0, b[2].jf = static_cast<uint8_t>(6 - 2);
      b[5].jt = 0, b[5].jf = 1;
      break;
  }
  return b;
}

}  // namespace

std::vector<sock_filter> compile_policy_bpf(const FilterPolicy& p) {
  std::vector<sock_filter> f;
  const uint32_t def = ret_of(p.default_action);
  // Another ABI than this build's: killed (its call numbers mean other calls).
  f.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, kArch));
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, kAuditArch, 1, 0));
  f.push_back(stmt(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  f.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, kNr));
#if defined(__x86_64__)
  // x32's calls share the architecture's token and carry this bit.
  f.push_back(jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));
  f.push_back(stmt(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
#endif
  for (const FilterRule& r : p.rules) {
    if (r.nr < 0) continue;
    std::vector<sock_filter> block;
    if (r.condition) {
      block = condition_block(*r.condition);
      block.push_back(stmt(BPF_RET | BPF_K, ret_of(r.action)));
      block.push_back(stmt(BPF_RET | BPF_K, def));
    } else {
      block.push_back(stmt(BPF_RET | BPF_K, ret_of(r.action)));
    }
    // Not this call: over the block, the accumulator still holding the call's number.
    if (block.size() > 255) throw std::logic_error("seccomp filter: a rule's block is too long");
    f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(r.nr), 0, static_cast<uint8_t>(block.size())));
    f.insert(f.end(), block.begin(), block.end());
  }
  f.push_back(stmt(BPF_RET | BPF_K, def));
  if (f.size() > BPF_MAXINSNS) throw std::logic_error("seccomp filter: too many instructions");
  return f;
}

std::string load_policy_with_bpf(const FilterPolicy& p) {
  std::vector<sock_filter> f;
  try {
    f = compile_policy_bpf(p);
  } catch (const std::exception& e) {
    return e.what();
  }
  sock_fprog prog{static_cast<unsigned short>(f.size()), f.data()};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return std::string("prctl(PR_SET_NO_NEW_PRIVS): ") + std::strerror(errno);
  long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
  if (r < 0) return std::string("seccomp(SECCOMP_SET_MODE_FILTER): ") + std::strerror(errno);
  if (r > 0) return "seccomp: thread " + std::to_string(r) + " could not be synchronized";
  return "";
}

}  // namespace ekb::worker
