// Targets from this machine's CPU facts and from GPU limits (target.h).
#include "target/target.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <set>
#include <thread>

namespace ekb {

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::none: return "none";
    case Isa::sse: return "sse";
    case Isa::avx2: return "avx2";
    case Isa::avx512: return "avx512";
    case Isa::neon: return "neon";
  }
  return "?";
}

std::optional<Isa> isa_from_name(const std::string& name) {
  for (Isa isa : {Isa::none, Isa::sse, Isa::avx2, Isa::avx512, Isa::neon})
    if (name == isa_name(isa)) return isa;
  return std::nullopt;
}

int Target::lanes(DType t) const {
  if (vector_bytes <= 0) return 1;
  DType c = t == DType::f16 || t == DType::bf16 ? DType::f32 : t;
  int bytes = std::max(1, dtype_bytes(c));
  return std::clamp(vector_bytes / bytes, 1, 64);
}

std::string Target::describe() const {
  if (gpu())
    return fmt::format("{} (at most {} threads and {} KiB of shared memory per block)", backend_name(backend),
                       max_threads_per_block, shared_memory_per_block >> 10);
  // (The architecture is named only when it is not this machine's: a board's.)
  std::string where = arch == native_arch() ? "" : fmt::format(" on {}", arch_name(arch));
  if (isa == Isa::none) return fmt::format("cpu{} without a vector unit, {} thread{}", where, threads, threads == 1 ? "" : "s");
  return fmt::format("cpu{} {} ({}-byte vectors, {} registers{}), {} thread{}", where, isa_name(isa), vector_bytes, vector_registers,
                     fma ? ", FMA" : "", threads, threads == 1 ? "" : "s");
}

Isa isa_from_cpu_flags(const std::string& flags) {
  std::set<std::string> f;
  std::istringstream in(flags);
  for (std::string w; in >> w;) f.insert(w);
  if (f.count("avx512f") && f.count("avx512vl") && f.count("avx512bw")) return Isa::avx512;
  if (f.count("avx2") && f.count("fma")) return Isa::avx2;
  if (f.count("sse2")) return Isa::sse;
  if (f.count("asimd") || f.count("neon")) return Isa::neon;
  return Isa::none;
}

void set_isa(Target& t, Isa isa) {
  t.isa = isa;
  switch (isa) {
    case Isa::avx512: t.vector_bytes = 64, t.vector_registers = 32, t.fma = true; break;
    case Isa::avx2: t.vector_bytes = 32, t.vector_registers = 16, t.fma = true; break;
    case Isa::sse: t.vector_bytes = 16, t.vector_registers = 16, t.fma = false; break;
    case Isa::neon: t.vector_bytes = 16, t.vector_registers = 32, t.fma = true; break;
    case Isa::none: t.vector_bytes = 0, t.vector_registers = 0, t.fma = false; break;
  }
}

namespace {

// The first `flags` (x86) or `Features` (Arm) line of /proc/cpuinfo.
std::string cpu_flags() {
  std::ifstream f("/proc/cpuinfo");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("flags", 0) == 0 || line.rfind("Features", 0) == 0) return line.substr(line.find(':') + 1);
  return "";
}

int64_t cache_bytes(int name, int64_t fallback) {
  long v = sysconf(name);
  return v > 0 ? v : fallback;
}

}  // namespace

Target host_cpu_target(int threads) {
  static const Isa isa = isa_from_cpu_flags(cpu_flags());
  Target t;
  t.backend = Backend::cpu;
  set_isa(t, isa);
  t.threads = std::max(1, threads);
  t.l1_bytes = cache_bytes(_SC_LEVEL1_DCACHE_SIZE, 32 << 10);
  t.l2_bytes = cache_bytes(_SC_LEVEL2_CACHE_SIZE, 512 << 10);
  t.l3_bytes = cache_bytes(_SC_LEVEL3_CACHE_SIZE, 8 << 20);
  return t;
}

Target gpu_target(Backend b, int64_t max_threads_per_block, int64_t shared_memory_per_block) {
  Target t;
  t.backend = b;
  if (max_threads_per_block > 0) t.max_threads_per_block = std::min<int64_t>(t.max_threads_per_block, max_threads_per_block);
  if (shared_memory_per_block > 0)
    t.shared_memory_per_block = std::min<int64_t>(t.shared_memory_per_block, shared_memory_per_block);
  return t;
}

Target default_target(Backend b) {
  if (b == Backend::cpu) return host_cpu_target(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  return gpu_target(b);
}

}  // namespace ekb
