// What the benchmark programs share: compiling an .ekb file with ekb's library (the calls `ekb run`
// makes: choose_schedule, lower_with, print_c, compile_cpu_kernel), aligned buffers, statistics, and
// the interleaved measurement of a peer against ekb in one process.
//
// Interleaving: the machines are shared and noisy, so a peer and ekb are never timed in separate
// runs. Each round times a batch of the peer and a batch of ekb (alternating which goes first), each
// batch after an untimed warm-up long enough for the other side's idle worker threads to stop
// spinning; a round's figure is the median of its batch. The ratio is peer time / ekb time (above 1:
// ekb is faster), reported as the ratio of the medians and as the spread of the per-round ratios.
#pragma once
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "codegen/c_printer.h"
#include "codegen/dialect.h"
#include "ir/check.h"
#include "runtime/cpu_runner.h"
#include "lower/schedule_choice.h"
#include "util/diagnostics.h"
#include "util/source.h"

namespace bench {

// `o` compiled as ekb compiled before its own pass list: clang's -O<opt_level> pipeline, the code
// generator as LLVM has it (the peer of compile_latency_bench --beside-clang and pass_pipeline_bench).
inline ekb::CompileOptions clang_pipeline(ekb::CompileOptions o) {
  o.passes = ekb::CompileOptions::Passes::clang;
  o.pass_pipeline.clear();
  o.llvm_default_codegen = true;
  return o;
}

inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// ---- an .ekb file compiled with ekb's library ----
struct EkbBuild {
  std::shared_ptr<ekb::Program> program;
  std::string schedule;  // "own", "default", ...
  std::string c_source;
  ekb::CpuKernel kernel;
  double lower_ms = 0, compile_ms = 0;
  std::string compiler;
};

// `spec`: "" (the file's own sections, else the default schedule), "default", "none", or a file
// holding schedule/memory sections.
inline EkbBuild build_ekb(const std::string& path, const std::string& spec, ekb::CCompiler& cc) {
  EkbBuild b;
  b.program = ekb::load_program(ekb::read_source_file(path));
  auto t0 = std::chrono::steady_clock::now();
  ekb::ScheduleChoice sc = ekb::choose_schedule(*b.program, ekb::default_target(ekb::Backend::cpu), spec);
  ekb::lower::LoweredKernel k = ekb::lower_with(*b.program, ekb::default_target(ekb::Backend::cpu), sc);
  b.c_source = ekb::codegen::print_c(k, ekb::codegen::c_dialect());
  b.lower_ms = ms_since(t0);
  b.schedule = sc.description;
  t0 = std::chrono::steady_clock::now();
  b.kernel = ekb::compile_cpu_kernel(cc, b.c_source);
  b.compile_ms = ms_since(t0);
  b.compiler = cc.name();
  return b;
}

// The dims of a program by name (throws when missing).
inline int64_t dim_of(const ekb::Program& p, const std::string& name) {
  for (const auto& [n, v] : p.dims)
    if (n == name) return v;
  throw std::runtime_error(fmt::format("kernel `{}` has no dim `{}`", p.name, name));
}

// ---- buffers ----
struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
template <class T>
using Buf = std::unique_ptr<T[], FreeDeleter>;

template <class T>
Buf<T> alloc(size_t n) {
  size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, bytes == 0 ? 64 : bytes);
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, bytes);  // touch every page before timing
  return Buf<T>(static_cast<T*>(p));
}

inline void fill_uniform(float* x, size_t n, uint64_t seed, float lo = -1, float hi = 1) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  for (size_t i = 0; i < n; ++i) x[i] = d(g);
}

// ekb's error measure (docs/ir.md, "Checking"): |got - ref| / (|ref| + rms(ref)), its largest value.
// A NaN or infinity where ref is finite counts as infinity.
inline double max_rel_error(const float* got, const float* ref, size_t n) {
  double ss = 0;
  for (size_t i = 0; i < n; ++i) ss += double(ref[i]) * ref[i];
  double rms = n ? std::sqrt(ss / double(n)) : 0;
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    double g = got[i], r = ref[i];
    if (!std::isfinite(g) && std::isfinite(r)) return INFINITY;
    double den = std::fabs(r) + rms;
    double e = den > 0 ? std::fabs(g - r) / den : std::fabs(g - r);
    worst = std::max(worst, e);
  }
  return worst;
}

// ---- statistics ----
inline double quantile(std::vector<double> v, double q) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  double pos = q * double(v.size() - 1);
  size_t i = static_cast<size_t>(pos);
  double f = pos - double(i);
  return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}
inline double median(const std::vector<double>& v) { return quantile(v, 0.5); }

// ---- interleaved timing ----
struct Side {
  std::string name;
  std::function<void()> call;
};
struct InterleaveOptions {
  int rounds = 15;       // batches of each side
  int reps = 3;          // timed calls per batch
  double warm_ms = 5;    // untimed calls before each batch, at least this long (and at least one call)
};
struct Interleaved {
  std::vector<double> peer_ms, ekb_ms, ratio;  // per round: batch medians, peer / ekb
};

inline double run_batch(const Side& s, const InterleaveOptions& o) {
  auto w0 = std::chrono::steady_clock::now();
  do s.call();
  while (ms_since(w0) < o.warm_ms);
  std::vector<double> t;
  for (int r = 0; r < o.reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    s.call();
    t.push_back(ms_since(t0));
  }
  return median(t);
}

inline Interleaved interleave(const Side& peer, const Side& ekb_side, const InterleaveOptions& o) {
  Interleaved r;
  for (int i = 0; i < o.rounds; ++i) {
    double p, e;
    if (i % 2 == 0) {
      p = run_batch(peer, o);
      e = run_batch(ekb_side, o);
    } else {
      e = run_batch(ekb_side, o);
      p = run_batch(peer, o);
    }
    r.peer_ms.push_back(p);
    r.ekb_ms.push_back(e);
    r.ratio.push_back(p / e);
  }
  return r;
}

// One line per side (median and IQR of the round figures, a rate from `work` units per call divided
// by the median, e.g. GFLOP or GB) and the ratio line.
inline void print_interleaved(const std::string& peer, const std::string& ekb_name, const Interleaved& r, double work,
                              const char* unit, const InterleaveOptions& o) {
  auto line = [&](const std::string& n, const std::vector<double>& v) {
    double m = median(v);
    fmt::print("  {:<28} median {:9.4f} ms  (IQR {:.4f}-{:.4f}, min {:.4f}, max {:.4f})  {:8.2f} {}\n", n, m,
               quantile(v, 0.25), quantile(v, 0.75), *std::min_element(v.begin(), v.end()),
               *std::max_element(v.begin(), v.end()), work / (m * 1e-3), unit);
  };
  line(peer, r.peer_ms);
  line(ekb_name, r.ekb_ms);
  fmt::print("  RATIO {} time / {} time = {:.3f} (ratio of medians); per-round ratios median {:.3f}, IQR {:.3f}-{:.3f}, "
             "min {:.3f}, max {:.3f}  ({} rounds x {} timed calls, interleaved)\n",
             peer, ekb_name, median(r.peer_ms) / median(r.ekb_ms), median(r.ratio), quantile(r.ratio, 0.25),
             quantile(r.ratio, 0.75), *std::min_element(r.ratio.begin(), r.ratio.end()),
             *std::max_element(r.ratio.begin(), r.ratio.end()), o.rounds, o.reps);
}

// Idle worker threads of one library spin for a while after a parallel call and would take a core
// from the other library's next call. The benchmarks shorten that spin (libomp: KMP_BLOCKTIME in ms;
// OpenBLAS: OPENBLAS_THREAD_TIMEOUT, 2^N cycles) unless the caller set the variables; the libraries
// read them when loaded, so the program re-executes itself once with them set.
inline void ensure_env(char** argv, const std::vector<std::pair<const char*, const char*>>& vars) {
  bool changed = false;
  for (const auto& [k, v] : vars)
    if (!std::getenv(k)) {
      setenv(k, v, 1);
      changed = true;
    }
  if (changed && !std::getenv("EKB_BENCH_REEXEC")) {
    setenv("EKB_BENCH_REEXEC", "1", 1);
    execv("/proc/self/exe", argv);  // on failure, continue without
  }
}

inline std::string env_or(const char* k, const char* dflt = "(unset)") {
  const char* v = std::getenv(k);
  return v ? v : dflt;
}

// The options every interleaved benchmark takes: --threads, --rounds, --reps, --warm-ms (defaults:
// what `o` and `threads` hold when called).
inline void add_interleave_options(CLI::App& app, InterleaveOptions& o, std::string& threads) {
  app.add_option("--threads", threads, "thread counts to measure, comma-separated")->capture_default_str();
  app.add_option("--rounds", o.rounds, "interleaved rounds (batches of each side)")->capture_default_str()->check(CLI::Range(1, 1 << 20));
  app.add_option("--reps", o.reps, "timed calls per batch")->capture_default_str()->check(CLI::Range(1, 1 << 20));
  app.add_option("--warm-ms", o.warm_ms, "untimed calls before each batch, at least this long (ms)")->capture_default_str();
}

inline std::vector<int> parse_int_list(const std::string& s) {
  std::vector<int> r;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find(',', i);
    if (j == std::string::npos) j = s.size();
    r.push_back(std::stoi(s.substr(i, j - i)));
    i = j + 1;
  }
  return r;
}

// Prints an exception the way `ekb` does (diagnostics rendered, a compiler's log).
inline void print_error(const std::exception& e) {
  std::fflush(stdout);
  if (auto* d = dynamic_cast<const ekb::DiagnosticError*>(&e)) {
    std::fputs(d->diagnostics().render_all().c_str(), stderr);
    return;
  }
  std::fprintf(stderr, "error: %s\n", e.what());
  if (auto* ce = dynamic_cast<const ekb::CompileError*>(&e)) std::fprintf(stderr, "%s\n", ce->log.c_str());
}

inline std::string machine_note() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) < 0) load[0] = load[1] = load[2] = -1;
  return fmt::format("{} online CPUs, load average {:.2f} {:.2f} {:.2f}", n, load[0], load[1], load[2]);
}

}  // namespace bench
