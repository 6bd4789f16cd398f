// The peak rates a device profile is held to, measured on this machine (never typed in) and stored
// in the results store: arithmetic (GFLOP/s) from a 512^3 SGEMM with a register tile fitted to the
// CPU's ISA (on a profile of several threads, at least its one-thread rate times the threads: a
// small SGEMM scales less than linearly, a large one nearly so), memory bandwidth (GB/s) from a streaming kernel over 32 MiB in and 32 MiB out, both
// ekb kernels run through the harness like any candidate; refused on a busy machine (other
// processes' load, before and after).
// With them every task has a roofline bound, max(flops / peak, bytes / bandwidth): a candidate
// measured well below it cannot be real, and its result is marked invalid rather than fast.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include "harness/device_profiles.h"
#include "harness/results_store.h"

namespace ekb {

struct PeakRates {
  double gflops = 0, gbps = 0;
  std::string measured;  // when (UTC)
  bool known() const { return gflops > 0 && gbps > 0; }
};

// The stored rates for (this machine, `dev`), measuring and storing them first when missing (or
// when `remeasure`: measure on a quiet machine; `ekb devices --measure` does). Rates measured here
// are also kept in this machine's cache (cache_root()/peaks, not for a board's profile): a new
// results store on the same machine takes them from there instead of measuring again.
PeakRates peak_rates(ResultsStore& store, const DeviceProfile& dev, bool remeasure = false);
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
