// Writing a range back to memory and dropping it from every cache, so that a kernel timed cold
// finds its arguments in DRAM whichever CPU wrote them and whichever CPU it runs on (otherwise a
// kernel woken on the CPU that just wrote them finds them in that CPU's cache, and times vary with
// where the scheduler put it). The harness does it after writing a call's inputs; a board does it
// after the host's inputs arrive (remote/board_server.cpp). x86-64: clflush; AArch64: dc civac
// (Linux lets user space clean and invalidate by address); RISC-V has no such instruction in its
// base ISA (Zicbom is optional), so there the bytes stay where the write left them.
#pragma once
#include <cstddef>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ekb {

inline void evict_from_caches(const unsigned char* p, size_t n) {
#if defined(__x86_64__)
  for (size_t i = 0; i < n; i += 64) _mm_clflush(p + i);
  if (n) _mm_clflush(p + n - 1);
  _mm_mfence();
#elif defined(__aarch64__)
  // 64 bytes at a time: at most the smallest data cache line of any AArch64 core in use.
  for (size_t i = 0; i < n; i += 64) asm volatile("dc civac, %0" ::"r"(p + i) : "memory");
  if (n) asm volatile("dc civac, %0" ::"r"(p + n - 1) : "memory");
  asm volatile("dsb ish" ::: "memory");
#else
  (void)p;
  (void)n;
#endif
}

// Whether evict_from_caches does anything on this architecture.
constexpr bool can_evict_from_caches() {
#if defined(__x86_64__) || defined(__aarch64__)
  return true;
#else
  return false;
#endif
}

}  // namespace ekb
