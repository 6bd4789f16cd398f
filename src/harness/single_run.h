// One kernel run the way `ekb run FILE` needs it: compiled and called in a sandboxed worker (never in
// the calling process), on given inputs, with its outputs poisoned first and read back here; then
// timed warm, each call measured here around its request.
#pragma once
#include <string>
#include <vector>

#include "harness/device_profiles.h"
#include "harness/outcome.h"
#include "interp/tensor_data.h"
#include "ir/program.h"
#include "runtime/cpu_runner.h"

namespace ekb {

struct SingleRun {
  Outcome outcome = Outcome::ok;  // or how it failed (compile, crash, timeout, denied, out of bounds, input mutated...)
  std::string message, compile_log, compiler, device;
  std::string confinement;  // how the worker's compile was confined ("Landlock ABI 7"), or "none: WHY"
  std::string board;        // a board's run: "NAME (ARCH, HOST)", with ", emulated: times not meaningful" where it is
  double compile_ms = 0;
  bool compile_cached = false;  // loaded from the compile cache (compile_cache.h), not compiled
  std::vector<TensorData> outputs;
  TimingStats timing;  // empty when not timed or when the call failed
};

// With `device` a GPU profile, `c_source` is a GPU program run by ekb-gpu-worker, and the times are
// the device's; with a board's profile, the kernel is cross-compiled here and runs (and is timed) on
// the board (`board` then says which, and whether it is emulated); otherwise a worker here runs it.
SingleRun run_isolated(const Program& p, const std::string& c_source, bool cplusplus, const std::vector<TensorData>& inputs,
                       int threads, bool time_it, double min_seconds = 0.2, int min_reps = 5, const DeviceProfile* device = nullptr);

// The same kernel on several input sets, one after the other in one worker (one compile; a GPU
// worker's device is set up once): each set's inputs written and its outputs poisoned before its
// call, the guards and the inputs checked after it. Untimed. `outputs` holds one entry per set run;
// on a failure the run stops there, `outcome` and `message` (naming the set) say why.
struct SingleRunSets {
  Outcome outcome = Outcome::ok;
  std::string message, compile_log, compiler, device;
  std::vector<std::vector<TensorData>> outputs;
};
SingleRunSets run_isolated_sets(const Program& p, const std::string& c_source, bool cplusplus,
                                const std::vector<std::vector<TensorData>>& input_sets, int threads,
                                const DeviceProfile* gpu = nullptr);

}  // namespace ekb
