// The rates a device profile is measured at on this machine (never typed in), stored in the results
// store and this machine's cache, all with ekb kernels run through the harness like any candidate,
// refused on a busy machine (other processes' load, before and after):
//  - arithmetic (GFLOP/s) from a 512^3 SGEMM with a register tile fitted to the CPU's ISA (on a
//    profile of several threads, at least its one-thread rate times the threads: a small SGEMM
//    scales less than linearly, a large one nearly so), and its one-thread rate;
//  - copy bandwidth (GB/s) from a streaming kernel over 32 MiB in and 32 MiB out;
//  - read bandwidth (GB/s) from a sum over 32 MiB, caches flushed, on all threads and on one: the
//    fastest is the bandwidth a proof that a time is impossible may use (evaluate.cpp), an upper
//    bound kept as the best of every measurement made on the machine;
//  - what a parallel region costs in each timing regime (a tiny kernel with and without a parallel
//    loop, side by side): what the default schedule weighs a parallel loop against
//    (target.h's ParallelCost, schedule/default_schedule.h).
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "harness/device_profiles.h"
#include "harness/results_store.h"
#include "harness/timing_regime.h"

namespace ekb {

struct PeakRates {
  double gflops = 0, gbps = 0;
  std::string measured;  // when (UTC)
  double read_gbps = 0;         // reading from memory, caches flushed: all threads or one, the faster
  double thread_read_gbps = 0;  // one thread reading from memory
  double thread_gflops = 0;     // the SGEMM on one thread
  // A parallel region's cost (microseconds, beyond its work) in each regime: cold (threads awake
  // after the flush), warm, cold-asleep (threads woken for each region). 0: one thread, or unmeasured.
  double region_us_cold = 0, region_us_warm = 0, region_us_asleep = 0;
  bool known() const { return gflops > 0 && gbps > 0; }
  // The figures beyond gflops and gbps, as stored (peaks.figures); read back by with_figures.
  nlohmann::json figures() const;
  void with_figures(const nlohmann::json& j);
};

// What the default schedule weighs parallel loops with, in regime `t`: these rates where measured,
// else ParallelCost's defaults (a region asleep costs 150 us by default).
ParallelCost parallel_cost(const PeakRates& r, Timing t);
// `dev` with the parallel cost of regime `t` from the rates known for it (stored or in this
// machine's cache; nothing is measured): what `ekb compile` and other commands that time nothing
// lower the default schedule with.
DeviceProfile with_known_parallel_cost(ResultsStore* store, DeviceProfile dev, Timing t);

// The stored rates for (this machine, `dev`), measuring and storing them first when missing (or
// when `remeasure`: measure on a quiet machine; `ekb devices --measure` does; the read bandwidth
// stays the best ever measured here). Rates measured here are also kept in this machine's cache
// (cache_root()/peaks, not for a board's profile): a new results store on the same machine takes
// them from there instead of measuring again.
PeakRates peak_rates(ResultsStore& store, const DeviceProfile& dev, bool remeasure = false);
// What came of measuring the read bandwidth again (refresh_read_bandwidth).
struct ReadRefresh {
  bool measured = false;      // false: not measured (why_not says why)
  double before = 0;          // the stored read bandwidth before (GB/s)
  double measured_gbps = 0;   // the new measurement: the faster of all threads and one
  double stored = 0;          // the stored rate now: the larger of the two
  double candidate_gbps = 0;  // the rate a candidate's must-read bytes came at (named, never stored)
  std::string why_not;
  std::string text() const;   // one sentence, for the candidate's note
};
// A candidate read its must-read bytes at `at_least` GB/s, faster than the stored read bandwidth:
// measures the read bandwidth again with ekb's own kernels (only on a quiet machine: on a busy one,
// or for a board or a GPU, nothing is measured and it says why), and keeps the larger of the stored
// rate and the new one, in the store and this machine's cache. The candidate's own rate is never
// stored: a kernel that cheats the clock would raise the bound for itself and every later one.
// `probe` measures (default: ekb's own kernels and this machine's load; tests give their own).
struct ReadProbe {
  std::function<std::optional<double>()> busy;  // the CPUs other processes keep busy; nullopt: quiet enough to measure
  std::function<double()> measure;              // the read bandwidth now (GB/s); throws when it cannot
};
ReadRefresh refresh_read_bandwidth(ResultsStore& store, const DeviceProfile& dev, double at_least, const ReadProbe& probe = {});

// Measures them now (nothing stored). For a board's profile, on the board, through its workers:
// what its profile file's peak_gflops and peak_gbps are to hold (`ekb devices --measure --device
// FILE`); refused for an emulated board, whose times are not meaningful.
PeakRates measure_peak_rates(const DeviceProfile& dev);
// The stored rates for (this machine, `dev`), if measured by the current method (else nothing),
// and the device key they are stored under (the profile's name and the method's number).
std::optional<PeakRates> stored_peak_rates(ResultsStore& store, const DeviceProfile& dev);
// The rates in the store, else in this machine's cache (what peak_rates would return without measuring).
std::optional<PeakRates> known_peak_rates(ResultsStore& store, const DeviceProfile& dev);
// Where this machine's cache keeps `dev`'s rates (a JSON file naming the machine and the key).
std::filesystem::path machine_peak_cache_path(const DeviceProfile& dev);
std::string peak_store_key(const DeviceProfile& dev);

// What identifies this machine for its stored peaks: CPU model, CPU count, host name.
std::string machine_id();

// The shortest time (ms) a task with these figures can take at these rates.
double roofline_ms(double flops, double bytes, const PeakRates& r);

}  // namespace ekb
