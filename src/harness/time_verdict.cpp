// The time verdict (time_verdict.h): the proof from the must-read bytes, and the notes.
#include "harness/time_verdict.h"

#include <fmt/format.h>

#include <algorithm>

#include <unistd.h>

#include "suite/figures.h"
#include "suite/must_read.h"

namespace ekb {
namespace {

// What the caches of this machine can hold at most: the shared last level and every CPU's private
// levels (a non-inclusive last level keeps other lines than the private ones). 0 when the system
// does not say how large the last level is: then nothing is known to come from memory when warm.
uint64_t host_cache_capacity() {
  long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE), l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (l3 <= 0) return 0;
  uint64_t per_cpu = static_cast<uint64_t>(std::max(0L, l1) + std::max(0L, l2));
  return static_cast<uint64_t>(l3) + per_cpu * static_cast<uint64_t>(std::max(1L, cpus));
}

// The bytes of `m` that must come from memory in each call under `o`, and where the rest may be;
// nullopt when nothing is known to (warm without known caches; a board whose inputs stay cached).
struct FromMemory {
  double bytes = 0;
  std::string where;  // why these bytes come from memory, for the proof's message
};
std::optional<FromMemory> from_memory(double must_read, const EvalOptions& o) {
  bool flushed = timing_info(o.timing).flush;
  if (o.board) {
    // A board evicts the inputs it receives (clflush, dc civac) except on RISC-V, whose base ISA has
    // no such instruction; its caches' sizes are not known here.
    if (!flushed || o.board->arch == Arch::riscv64) return std::nullopt;
    return FromMemory{must_read, "all of them from memory, as the board evicts the inputs from its caches before each call"};
  }
  if (flushed) return FromMemory{must_read, "all of them from memory, as the inputs are flushed from every cache before each call"};
  uint64_t caches = host_cache_capacity();
  if (!caches) return std::nullopt;
  return FromMemory{std::max(0.0, must_read - static_cast<double>(caches)),
                    fmt::format("timed warm, the {} bytes beyond what this machine's caches hold ({} bytes) from memory",
                                static_cast<int64_t>(std::max(0.0, must_read - static_cast<double>(caches))), caches)};
}

std::string input_names(const Program& p, const MustRead& m) {
  std::string s;
  for (int t : m.inputs) s += (s.empty() ? "" : ", ") + p.tensors[static_cast<size_t>(t)].name;
  return s;
}

}  // namespace

TimeVerdict judge_time(const Program& p, double median_ms, const EvalOptions& o) {
  TimeVerdict v;
  if (o.gpu || o.timing_not_meaningful() || median_ms <= 0) return v;
  Figures f = compute_figures(p);
  MustRead m = must_read(p);
  // The proof: the must-read bytes that come from memory, at the fastest rate this machine reads it.
  if (o.read_gbps > 0 && m.bytes > 0) {
    if (auto mem = from_memory(static_cast<double>(m.bytes), o); mem && mem->bytes > 0) {
      double need_ms = mem->bytes / (o.read_gbps * 1e6);
      v.must_read_gbps = mem->bytes / (median_ms * 1e6);
      std::string rate = o.read_gbps_is_copy_bandwidth
                             ? fmt::format("{:.1f} GB/s (the board profile's peak_gbps, a copy bandwidth, serving as its read "
                                           "bandwidth: it has none)",
                                           o.read_gbps)
                             : fmt::format("{:.1f} GB/s (the faster of all threads and one thread reading memory, measured by ekb on "
                                           "this machine, kept as the best of its measurements)",
                                           o.read_gbps);
      if (median_ms < kProofMargin * need_ms) {
        v.impossible = fmt::format(
            "measured {:.4f} ms, but every correct kernel must read {} bytes of its inputs ({}: each of their elements can change "
            "the result), {}; at this machine's read bandwidth, {}, that takes {:.4f} ms, and the time is below {:g} of it "
            "({:.4f} ms): the timing cannot be real",
            median_ms, m.bytes, input_names(p, m), mem->where, rate, need_ms, kProofMargin, kProofMargin * need_ms);
        return v;
      }
      if (median_ms < need_ms)
        v.notes.push_back(make_note(NoteKind::beyond_read_bandwidth,
                                    fmt::format("{:.0f} bytes of {} from memory in {:.4f} ms is {:.1f} GB/s; the stored read bandwidth "
                                                "is {:.1f} GB/s",
                                                mem->bytes, input_names(p, m), median_ms, v.must_read_gbps, o.read_gbps)));
    }
  }
  if (o.peak_gflops > 0 && f.flops > 0 && median_ms < f.flops / (o.peak_gflops * 1e6))
    v.notes.push_back(make_note(NoteKind::fewer_flops_than_stated,
                                fmt::format("{:.3g} stated flops in {:.4f} ms is {:.1f} GFLOP/s; the measured peak is {:.1f} GFLOP/s",
                                            f.flops, median_ms, f.flops / (median_ms * 1e6), o.peak_gflops)));
  // (Timed warm, the stated bytes beyond what the caches hold; nothing where their size is unknown.)
  bool warm = !timing_info(o.timing).flush;
  uint64_t caches = warm && !o.board ? host_cache_capacity() : 0;
  if (o.peak_gbps > 0 && (!warm || caches > 0)) {
    double stated = static_cast<double>(f.bytes) - static_cast<double>(caches);
    if (stated > 0 && median_ms < stated / (o.peak_gbps * 1e6))
      v.notes.push_back(make_note(NoteKind::beyond_copy_bandwidth,
                                  fmt::format("{:.0f} stated bytes{} in {:.4f} ms is {:.1f} GB/s; the measured copy bandwidth is "
                                              "{:.1f} GB/s",
                                              stated, warm ? " beyond the caches" : "", median_ms, stated / (median_ms * 1e6),
                                              o.peak_gbps)));
  }
  return v;
}

}  // namespace ekb
