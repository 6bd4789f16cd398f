// The target a kernel is lowered and printed for: the backend, and what the device offers a
// schedule — the CPU's vector ISA (its width in bytes and its vector registers), threads and caches,
// or a GPU profile's per-block limits. It is derived from a device profile (harness/device_profiles.h)
// and travels through lowering (the default schedule's vector widths, located limit errors) and code
// generation (no vector code for a CPU without a vector unit), and the agent reads its factor sets
// from it (vector widths, thread counts, register budgets).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "ir/dtype.h"
#include "target/arch.h"
#include "target/backend.h"

namespace ekb {

// The CPU's vector instruction set, as far as a schedule cares: how wide a vector register is.
enum class Isa { none, sse, avx2, avx512, neon };
const char* isa_name(Isa isa);
// The ISA named `name` (isa_name's spellings); nullopt for another name.
std::optional<Isa> isa_from_name(const std::string& name);

// What the default schedule weighs a parallel loop nest with (schedule/default_schedule.h): what
// starting a parallel region costs in the timing regime the kernel is measured in, and how fast one
// thread streams and computes. Measured on the machine with its peak rates (harness/peak_rates.h,
// `ekb devices`); without a measurement, these defaults (a region with awake threads on a 2-core VM
// measured 4 us cold and 1.5 us warm; asleep threads cost 0.15 ms).
struct ParallelCost {
  double region_us = 5;       // one parallel region started and joined, beyond its work
  double thread_gbps = 10;    // one thread reading from memory
  double thread_gflops = 25;  // one thread's arithmetic in vectorized loop code (not a tuned SGEMM's peak)
  bool measured = false;      // from this machine's measurement (else the defaults above)
};

struct Target {
  Backend backend = Backend::cpu;
  std::string profile;  // the device profile it comes from, for messages ("" when none)
  Arch arch = native_arch();  // CPU: the machine its code runs on (a board's, for a remote device)

  // CPU
  Isa isa = Isa::none;
  int vector_bytes = 0;      // one vector register (0: no vector unit)
  int vector_registers = 0;  // architectural vector registers
  bool fma = false;
  int threads = 1;
  int64_t l1_bytes = 32 << 10, l2_bytes = 512 << 10, l3_bytes = 8 << 20;  // per core (L1, L2) and shared (L3)
  ParallelCost parallel_cost;

  // GPU: what one block (work-group) may use, the profile's limit or the API's guarantee.
  int64_t max_threads_per_block = 1024;
  int64_t shared_memory_per_block = 48 << 10;
  int warp_size = 32;
  // GPU throughput, for the agent's cost model (only ratios between candidates matter): streaming
  // multiprocessors, shared memory per multiprocessor, memory bandwidth. Defaults: a small GPU.
  int multiprocessors = 16;
  int64_t shared_memory_per_multiprocessor = 64 << 10;
  double bandwidth_gbs = 200;

  // SIMD lanes of one vector register for values of type `t` (f16/bf16 compute in f32): 1 without a
  // vector unit, at most 64.
  int lanes(DType t) const;
  bool gpu() const { return is_gpu(backend); }
  // One line for people: "cpu avx2 (32-byte vectors, 16 registers, FMA), 2 threads".
  std::string describe() const;
};

// The vector ISA named by a CPU's feature flags (x86 /proc/cpuinfo `flags`, Arm `Features`).
Isa isa_from_cpu_flags(const std::string& flags);
// This machine's CPU: its ISA (from /proc/cpuinfo), caches (sysconf) and `threads`.
Target host_cpu_target(int threads);
// The ISA's register facts (width in bytes, register count).
void set_isa(Target& t, Isa isa);
// A GPU target with the API's guarantees (1024 threads, 48 KiB of shared memory per block) lowered to
// the profile's limits where it gives them (0: the API's).
Target gpu_target(Backend b, int64_t max_threads_per_block = 0, int64_t shared_memory_per_block = 0);
// The target of a backend without a profile (`ekb compile --backend B`): the host CPU with all its
// cores, or the GPU API's guarantees.
Target default_target(Backend b);

}  // namespace ekb
