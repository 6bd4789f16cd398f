// Measuring peak rates with two tuned ekb kernels (the schedules of bench/sgemm and
// bench/elementwise, at sizes whose float64 references stay quick), through evaluate() itself.
#include "harness/peak_rates.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "codegen/c_printer.h"
#include "codegen/dialect.h"
#include "harness/evaluate.h"
#include "harness/machine_load.h"
#include "harness/sqlite_stmt.h"
#include "interp/reference.h"
#include "ir/check.h"
#include "lower/schedule_choice.h"
#include "suite/figures.h"
#include "util/source.h"
#include "util/text_hash.h"
#include "util/write_file.h"

namespace ekb {

namespace {

// A 512^3 SGEMM with a register tile fitted to the target's ISA (4 rows of 2 vector registers on
// AVX2, 4 on AVX-512 and NEON) and B packed in panels of the tile's width: what ekb's own tuned code
// reaches on this CPU, so that no honest kernel comes near the bound.
std::string sgemm_text(const Target& t) {
  int lanes = t.lanes(DType::f32);
  int vecs = t.vector_registers >= 32 ? 4 : 2;
  int ni = lanes > 1 ? vecs * lanes : 4;
  std::string inner = lanes > 1 ? fmt::format("split ni {} -> nio niv; unroll nio; vectorize niv", lanes) : "unroll ni";
  return fmt::format(R"(kernel peak_sgemm_512
  dim M = 512, N = 512, K = 512
  in A : f32[M, K]
  in B : f32[K, N]
  out C : f32[M, N]
  C[m, n] = sum(k) A[m, k] * B[k, n]

schedule cpu
  C: tile m n 4 {0} -> mo no mi ni; reorder no mo mi ni; parallel no
  Cl: reorder k mi; unroll mi; {1}
{2}
memory cpu
  C: pack B 1 {0} -> Bp; cache_write local at mo -> Cl
  Bp: compute_at C no
)",
                     ni, inner, lanes > 1 ? fmt::format("  Bp: vectorize ax2 {}\n", lanes) : "");
}

std::string stream_text(const Target& t) {
  int lanes = t.lanes(DType::f32);
  return fmt::format(R"(kernel peak_stream_8m
  dim N = 8388608
  const a = 1.5, b = 0.25
  in X : f32[N]
  out Y : f32[N]
  Y[i] = X[i] * a + b

schedule cpu
  Y: split i 65536 -> io ii; {}parallel io
)",
                     lanes > 1 ? fmt::format("vectorize ii {}; unroll ii_o 4; ", lanes) : "unroll ii 8; ");
}

// A sum over 32 MiB (rows of 16 KiB, each reduced in vector partial sums): memory read at the rate
// the machine allows, the output negligible.
std::string read_text(const Target& t) {
  int lanes = t.lanes(DType::f32);
  std::string partial = lanes > 1 ? fmt::format("  Yf: vectorize ci {}; unroll ci_o\n", lanes) : "  Yf: unroll ci\n";
  return fmt::format(R"(kernel peak_read_32m
  dim R = 2048, C = 4096
  in X : f32[R, C]
  out Y : f32[R]
  Y[r] = sum(c) X[r, c]

schedule cpu
  Y: split c {} -> co ci; parallel r
{}
memory cpu
  Y: rfactor ci -> Yf
  Yf: compute_at Y r
)",
                     std::max(4, 4 * lanes), partial);
}

// A tiny kernel, 64 elements per thread, with its loop over the threads' pieces parallel or not:
// the difference is what starting the region costs.
std::string region_text(int threads, bool parallel) {
  return fmt::format(R"(kernel peak_region
  dim N = {}
  in X : f32[N]
  out Y : f32[N]
  Y[i] = X[i] * 2.0

schedule cpu
  Y: split i 64 -> io ii{}
)",
                     64 * std::max(1, threads), parallel ? "; parallel io" : "");
}

// Other work on the machine beyond this (in CPUs) makes a measurement of peaks worthless.
constexpr double kMaxBusyCpus = 0.3;

// The CPUs other processes keep busy when that is too many to measure (sampled a few times, a
// short burst passes); nothing when the machine is quiet.
std::optional<double> machine_busy() {
  double busy = 0;
  for (int attempt = 0; attempt < 4; ++attempt) {
    busy = busy_cpus(0.4);
    if (busy < 0 || busy <= kMaxBusyCpus) return std::nullopt;
  }
  return busy;
}

// Throws when other processes keep the machine busy.
void require_quiet_machine(const DeviceProfile& dev, const char* when) {
  std::optional<double> busy = machine_busy();
  if (!busy) return;
  throw std::runtime_error(fmt::format(
      "cannot measure the peak rates of device `{}` {}: other processes keep {:.1f} of this machine's CPUs busy, and peaks "
      "measured on a busy machine would be too low (honest kernels would then look impossible and be marked invalid); stop "
      "the other work and run again (or `ekb devices --measure`)",
      dev.name, when, *busy));
}

EvalOptions measuring_options(const DeviceProfile& dev, Timing timing) {
  EvalOptions o;
  o.threads = dev.threads;
  o.memory_budget = dev.memory_budget;
  o.board = dev.board;  // a board's kernels run (and are timed) there
  o.timing = timing;
  o.min_seconds = 0.3;
  o.max_wall_seconds = 3;
  o.max_interval_half_width = 1;  // the ratio is not what counts here
  o.input_sets = 1;               // ekb's own kernels, checked once
  return o;
}

std::string c_of(const Program& p, const DeviceProfile& dev) {
  Target target = dev.target();
  return codegen::print_c(lower_with(p, target, choose_schedule(p, target, "")), codegen::c_dialect());
}

// The median times (ms) of `text` (candidate side) and `other` (baseline side), each with its own
// schedule, timed side by side in regime `timing`; the best of two attempts of each: a busy moment
// slows a kernel, and a rate measured too low would make honest kernels look impossible.
std::pair<double, double> time_side_by_side(const std::string& text, const std::string& other, const DeviceProfile& dev,
                                            Timing timing, Figures* f) {
  auto p = load_program(std::make_shared<SourceFile>("peak.ekb", text));
  auto q = load_program(std::make_shared<SourceFile>("peak.ekb", other));
  std::string c = c_of(*p, dev), d = c_of(*q, dev);
  EvalOptions o = measuring_options(dev, timing);
  std::pair<double, double> best{0, 0};
  for (int attempt = 0; attempt < 2; ++attempt) {
    Evaluation e = evaluate(*p, c, false, d, o);
    if (!e.correct())
      throw std::runtime_error(fmt::format("measuring peak rates: `{}` failed: {} {}", p->name, outcome_name(e.outcome), e.message));
    best.first = attempt == 0 ? e.candidate.median : std::min(best.first, e.candidate.median);
    best.second = attempt == 0 ? e.baseline.median : std::min(best.second, e.baseline.median);
  }
  if (f) *f = compute_figures(*p);
  return best;
}

// The median time (ms) of `text`'s own schedule (on both sides: the faster side's), and its figures.
double time_kernel(const std::string& text, const DeviceProfile& dev, Figures* f) {
  auto [a, b] = time_side_by_side(text, text, dev, Timing::cold, f);
  return std::min(a, b);
}

// Reading from memory: on one thread, and on all of them (the faster of the two is the proof's rate).
void measure_read(const DeviceProfile& dev, PeakRates& r) {
  Figures f;
  DeviceProfile one = dev;
  one.threads = 1;
  double ms = time_kernel(read_text(one.target()), one, &f);
  r.thread_read_gbps = static_cast<double>(f.bytes) / (ms * 1e6);
  r.read_gbps = r.thread_read_gbps;
  if (dev.threads > 1) {
    ms = time_kernel(read_text(dev.target()), dev, &f);
    r.read_gbps = std::max(r.read_gbps, static_cast<double>(f.bytes) / (ms * 1e6));
  }
}

// What a parallel region costs (us) in regime `timing`: the tiny kernel with and without it.
double region_cost_us(const DeviceProfile& dev, Timing timing) {
  if (dev.threads < 2) return 0;
  auto [par, ser] = time_side_by_side(region_text(dev.threads, true), region_text(dev.threads, false), dev, timing, nullptr);
  return std::max(0.0, (par - ser) * 1e3);
}

std::optional<PeakRates> machine_cached_peak_rates(const DeviceProfile& dev) {
  if (dev.board) return std::nullopt;  // a board's rates are the board's, measured there
  std::ifstream in(machine_peak_cache_path(dev));
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  auto j = nlohmann::json::parse(text.str(), nullptr, false);
  // (A file from another machine or method, or damaged: as if absent; measuring writes it anew.)
  if (!j.is_object() || j.value("machine", "") != machine_id() || j.value("key", "") != peak_store_key(dev)) return std::nullopt;
  PeakRates r{j.value("gflops", 0.0), j.value("gbps", 0.0), j.value("measured", "")};
  r.with_figures(j.value("figures", nlohmann::json::object()));
  if (!r.known()) return std::nullopt;
  return r;
}

void cache_machine_peak_rates(const DeviceProfile& dev, const PeakRates& r);

// `r` as this machine's rates for `dev`: in the store and this machine's cache.
void keep_peak_rates(ResultsStore& store, const DeviceProfile& dev, const PeakRates& r) {
  store.set_peaks(machine_id(), peak_store_key(dev), StoredPeaks{r.gflops, r.gbps, r.measured, r.figures().dump()});
  cache_machine_peak_rates(dev, r);
}

void cache_machine_peak_rates(const DeviceProfile& dev, const PeakRates& r) {
  if (dev.board) return;
  nlohmann::json j{{"machine", machine_id()}, {"key", peak_store_key(dev)}, {"gflops", r.gflops}, {"gbps", r.gbps},
                   {"measured", r.measured}, {"figures", r.figures()}};
  try {
    std::filesystem::create_directories(machine_peak_cache_path(dev).parent_path());
    write_atomically(machine_peak_cache_path(dev), j.dump(2) + "\n");
  } catch (const std::exception&) {
    // (A cache that cannot be written only means measuring again next time.)
  }
}

}  // namespace

std::string machine_id() {
  HostFacts h = host_facts();
  return fmt::format("{} | {} CPUs | {}", h.cpu_model, h.cpus, h.host_name);
}

// The method's number is in the key: peaks measured before the arithmetic rate counted the
// one-thread rate times the threads (method 2) were too low on a profile of several threads (94.6
// GFLOP/s on the 2-core VM, where an honest 1024^3 SGEMM runs at 111) and are measured again;
// method 3 adds the read bandwidth, the one-thread rates and the parallel regions' costs.
std::string peak_store_key(const DeviceProfile& dev) { return dev.name + "#3"; }

std::optional<PeakRates> stored_peak_rates(ResultsStore& store, const DeviceProfile& dev) {
  auto p = store.peaks(machine_id(), peak_store_key(dev));
  if (!p) return std::nullopt;
  PeakRates r{p->gflops, p->gbps, p->measured};
  r.with_figures(nlohmann::json::parse(p->figures, nullptr, false));
  return r;
}

PeakRates measure_peak_rates(const DeviceProfile& dev) {
  if (dev.board && dev.board->emulated)
    throw std::runtime_error(fmt::format("device profile `{}`: the board is emulated, and times under emulation are not meaningful: no "
                                         "peak rates are measured for it",
                                         dev.name));
  Figures f;
  PeakRates r;
  // (A board's load is its own; this machine's does not matter to it.)
  if (!dev.board) require_quiet_machine(dev, "(before measuring)");
  double ms = time_kernel(sgemm_text(dev.target()), dev, &f);
  r.gflops = f.flops / (ms * 1e6);
  r.thread_gflops = r.gflops;
  DeviceProfile one = dev;
  one.threads = 1;
  if (dev.threads > 1) {
    // Each thread at most as fast as one alone: the rate of all of them is at most that times the
    // threads (a 512^3 SGEMM on 2 threads reached 94.6 GFLOP/s where one thread reaches 79.5 and a
    // 1024^3 one on 2 threads 111: the bound must not be the small SGEMM's scaling).
    double one_ms = time_kernel(sgemm_text(one.target()), one, &f);
    r.thread_gflops = f.flops / (one_ms * 1e6);
    r.gflops = std::max(r.gflops, dev.threads * r.thread_gflops);
  }
  ms = time_kernel(stream_text(dev.target()), dev, &f);
  r.gbps = static_cast<double>(f.bytes) / (ms * 1e6);
  measure_read(dev, r);
  r.region_us_cold = region_cost_us(dev, Timing::cold);
  r.region_us_warm = region_cost_us(dev, Timing::warm);
  r.region_us_asleep = region_cost_us(dev, Timing::cold_asleep);
  if (!dev.board) require_quiet_machine(dev, "(the machine became busy while measuring)");
  r.measured = "now";
  return r;
}

// This machine's copy of the rates it measured: one small JSON file per (machine, profile key).
std::filesystem::path machine_peak_cache_path(const DeviceProfile& dev) {
  return cache_root() / "peaks" / (text_hash_hex(machine_id() + "\n" + peak_store_key(dev)) + ".json");
}

std::optional<PeakRates> known_peak_rates(ResultsStore& store, const DeviceProfile& dev) {
  if (auto p = stored_peak_rates(store, dev)) return p;
  return machine_cached_peak_rates(dev);
}

PeakRates peak_rates(ResultsStore& store, const DeviceProfile& dev, bool remeasure) {
  if (!remeasure) {
    if (auto p = stored_peak_rates(store, dev)) return *p;
    if (auto c = machine_cached_peak_rates(dev)) {
      store.set_peaks(machine_id(), peak_store_key(dev), StoredPeaks{c->gflops, c->gbps, c->measured, c->figures().dump()});
      return *c;
    }
  }
  PeakRates r = measure_peak_rates(dev);
  r.measured = now_utc();
  // (The read bandwidth is an upper bound: the best of every measurement on this machine is kept.)
  if (std::optional<PeakRates> before = known_peak_rates(store, dev)) r.read_gbps = std::max(r.read_gbps, before->read_gbps);
  keep_peak_rates(store, dev, r);
  return r;
}

ReadRefresh refresh_read_bandwidth(ResultsStore& store, const DeviceProfile& dev, double at_least, const ReadProbe& probe) {
  auto busy_now = [&] { return probe.busy ? probe.busy() : machine_busy(); };
  auto measure_now = [&] {
    if (probe.measure) return probe.measure();
    PeakRates now;
    measure_read(dev, now);
    return now.read_gbps;
  };
  ReadRefresh out;
  out.candidate_gbps = at_least;
  std::optional<PeakRates> known = known_peak_rates(store, dev);
  out.before = out.stored = known ? known->read_gbps : 0;
  if (dev.board || dev.is_gpu() || !known) {
    out.why_not = dev.board ? "a board's rates are its profile's (ekb devices --measure --device FILE)" : "no rates are stored for this device";
    return out;
  }
  std::optional<double> busy = busy_now();
  double now = 0;
  try {
    if (!busy) now = measure_now();
    if (!busy) busy = busy_now();
  } catch (const std::exception& e) {
    out.why_not = std::string("measuring failed: ") + e.what();
    return out;
  }
  if (busy) {
    out.why_not = fmt::format("other processes keep {:.1f} of this machine's CPUs busy, and a rate measured then would be too low", *busy);
    return out;
  }
  out.measured = true;
  out.measured_gbps = now;
  if (now > known->read_gbps) {
    PeakRates kept = *known;
    kept.read_gbps = now;
    kept.measured = now_utc();  // (the latest measurement: a merge of stores keeps the newer row)
    keep_peak_rates(store, dev, kept);
  }
  out.stored = std::max(known->read_gbps, now);
  return out;
}

std::string ReadRefresh::text() const {
  if (!measured) return fmt::format("the read bandwidth was not measured again: {}", why_not);
  std::string s = fmt::format("ekb measured this machine's read bandwidth again: {:.1f} GB/s; ", measured_gbps);
  s += stored > before ? fmt::format("the stored rate rose from {:.1f} to {:.1f} GB/s", before, stored)
                       : fmt::format("the stored {:.1f} GB/s stays", stored);
  if (candidate_gbps > stored) s += fmt::format(" (the kernel's {:.1f} GB/s is still above it, within the margin)", candidate_gbps);
  return s;
}

nlohmann::json PeakRates::figures() const {
  return {{"read_gbps", read_gbps},           {"thread_read_gbps", thread_read_gbps}, {"thread_gflops", thread_gflops},
          {"region_us_cold", region_us_cold}, {"region_us_warm", region_us_warm},     {"region_us_asleep", region_us_asleep}};
}

void PeakRates::with_figures(const nlohmann::json& j) {
  if (!j.is_object()) return;
  auto get = [&](const char* k, double& v) {
    if (j.contains(k) && j[k].is_number()) v = j[k].get<double>();
  };
  get("read_gbps", read_gbps);
  get("thread_read_gbps", thread_read_gbps);
  get("thread_gflops", thread_gflops);
  get("region_us_cold", region_us_cold);
  get("region_us_warm", region_us_warm);
  get("region_us_asleep", region_us_asleep);
}

ParallelCost parallel_cost(const PeakRates& r, Timing t) {
  ParallelCost c;
  if (t == Timing::cold_asleep) c.region_us = 150;
  if (r.thread_read_gbps <= 0 || r.thread_gflops <= 0) return c;
  c.measured = true;
  c.region_us = t == Timing::cold ? r.region_us_cold : t == Timing::warm ? r.region_us_warm : r.region_us_asleep;
  c.thread_gbps = r.thread_read_gbps;
  // (Loop code runs at a fraction of a tuned SGEMM's rate: a quarter, as the default schedule's
  // vectorized element-wise loops reach on the development VMs.)
  c.thread_gflops = r.thread_gflops / 4;
  return c;
}

DeviceProfile with_known_parallel_cost(ResultsStore* store, DeviceProfile dev, Timing t) {
  if (dev.is_gpu()) return dev;
  std::optional<PeakRates> r = store ? known_peak_rates(*store, dev) : machine_cached_peak_rates(dev);
  dev.parallel_cost = parallel_cost(r.value_or(PeakRates{}), t);
  return dev;
}

double roofline_ms(double flops, double bytes, const PeakRates& r) {
  if (!r.known()) return 0;
  return std::max(flops / (r.gflops * 1e6), bytes / (r.gbps * 1e6));
}

}  // namespace ekb
