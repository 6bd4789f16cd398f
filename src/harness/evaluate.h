// One attempt: a candidate kernel (C against the task's ABI) checked and timed against the task's
// baseline, each in its own sandboxed worker (worker_client.h), with every check done here.
//
// Checking. The candidate runs on the reference's input sets (seeds 1..N); before every call its
// outputs are poisoned (0xAB bytes, NaN for floats), so every element must be written; after it the
// inputs must be byte-identical and the outputs must match the float64 reference (compare.h).
// Timing. Baseline and candidate are timed interleaved, round by round, each call preceded by an
// untimed cache flush, and timed here around the request (the kernel cannot reach the clock). Every
// round writes fresh inputs: a reference input set with a few hundred random positions swapped (same
// values, new content), into the slot the previous round did not use, so that results cached by
// pointer or by content are stale. After each timed call the candidate's outputs are compared with
// the baseline's on the same inputs. Any failure there is a wrong result, not a slow one.
// Timing regimes (timing_regime.h). The above is `cold`. `warm` times calls back to back, as a model
// runs its layers: on the CPU each side's round is two requests, with no flush: the round's inputs
// written without evicting them, a request of untimed calls back to back for 10 ms (the data back
// in the caches after the other side's turn), then one of timed calls back to back (about 2 ms of
// them, between 3 and 64, their number drawn anew each round so that no kernel knows which is the
// last), before each of which the worker exchanges a few hundred input elements with a reserve
// input set (drawn from a seed; the harness replays the draws and checks the inputs after the
// turn) and poisons the outputs again. Idle OpenMP threads spin between the calls. The round's time is
// the median of the timed calls, and the last call's outputs, copied the moment it answers, are
// compared with the baseline's. After each turn the harness waits 1.2 ms, until the side's threads
// sleep (so the two sides never run at once), and the CPU the worker used in that time is its work
// after answering. On a GPU, warm is cold without the flush of the device's cache.
// Impossible times. A correct attempt is `invalid` only with a proof: below half the time that the
// bytes every correct kernel must read take at this machine's read bandwidth (time_verdict.h);
// anything else that looks too fast is a note beside the result (attempt_notes.h).
// Budgets. The kernel's own memory is the growth of its worker's resident set from the moment it was
// sandboxed (arguments already mapped), read from /proc; past the profile's budget it is `over
// budget`. CPU its worker uses between answering and the next request is work moved off the timed
// path (`background work`).
// Boards. The same protocol with both workers on a board (a profile file, docs/scale.md): the
// kernels are cross-compiled here, the argument region is mirrored there around every call
// (remote/region_sync.h), and the times, CPU and memory are the board's own, measured there.
// GPUs. The same protocol with ekb-gpu-worker: the buffers are mirrored in device memory (each with
// its guard zone) before each call and copied back after it, so every check above is made the same
// way; the time is the device's (events around the call's launches, the device idle before and
// after), and the flush evicts the device's L2. A launch beyond the profile's limits is `launch
// limits`; a kernel that faults is `device fault`; a profile whose device is not here is
// `unavailable`. The worker's CPU after answering is not judged (the device was idle before the
// answer, and a GPU candidate has no host code), nor its clock (the device's is used). Once per
// attempt, the baseline's worker also times an empty kernel the same way: the launch floor.
// Trust. The speedup carries a 95% interval from a paired bootstrap over the rounds
// (speedup_interval.h); the timing goes on while the interval is wider than asked, up to a cap, and
// an attempt whose interval stays wider is flagged noisy.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "harness/attempt_notes.h"
#include "harness/compare.h"
#include "harness/device_profiles.h"
#include "harness/outcome.h"
#include "harness/timing_regime.h"
#include "ir/program.h"
#include "runtime/cpu_runner.h"

namespace ekb {

// The spread between worker pairs that identical programs showed on the 2-core Xeon VM (host
// profile, cold): 1.6% over the 32 workloads whose default is empty in the soundness run of commit
// d029880; 1.9% over 60 others (1.1% without a 0.9 us kernel) in bench/results/aa_spread.md.
inline constexpr double kProcessSpread = 0.016;

struct EvalOptions {
  int threads = 1;
  uint64_t memory_budget = 512ull << 20;  // the candidate's own allocations, beyond its arguments
  int input_sets = 3;                     // reference seeds 1..input_sets
  double min_seconds = 0.1;               // measured time per side, at least
  int min_reps = 15, max_reps = 400;
  double max_wall_seconds = 5;            // the timing phase stops here (after 3 reps at least)
  // The speedup's 95% interval (a paired bootstrap over the rounds) must be at most this wide on
  // either side (0.05: +-5%); while it is wider, more rounds, up to noisy_max_reps rounds or
  // noisy_max_wall_seconds of timing; still wider, the attempt is flagged noisy.
  double max_interval_half_width = 0.05;
  int noisy_max_reps = 1200;
  double noisy_max_wall_seconds = 15;
  // The standard deviation of the log speedup of identical programs between pairs of workers
  // (speedup_interval.h: across_processes), joined to the reported interval; the stopping rule and
  // `noisy` judge the rounds' own interval. Measured on the CPU (bench/soundness/aa_spread.sh).
  double process_spread = kProcessSpread;
  // Above 0: the timing stops early once the speedup's interval lies wholly below this (every 16
  // rounds from the 16th): a search's candidate that cannot beat its best needs no narrow interval.
  double hopeless_below = 0;
  uint64_t flush_bytes = 0;               // the buffer a cache flush touches; 0: twice the last-level cache, 8 MiB at least
  int call_timeout_ms = 10000;            // one kernel call
  double cpu_seconds = 120;               // the worker's CPU time limit
  // The device's measured peak rates (peak_rates.h): a correct candidate faster than the task's
  // flops at peak_gflops, or its stated bytes at peak_gbps, gets a note (time_verdict.h).
  double peak_gflops = 0, peak_gbps = 0;
  // The fastest rate this machine reads memory (peak_rates.h): a correct candidate below half the
  // time its must-read bytes take at this rate is `invalid`. 0: no proof is made. On a board its
  // profile's peak_gbps serves (read_gbps_is_copy_bandwidth), as it has no read bandwidth.
  double read_gbps = 0;
  bool read_gbps_is_copy_bandwidth = false;
  // A GPU profile's device: the candidate and the baseline are GPU programs (with their launch
  // contracts), run by ekb-gpu-worker; calls are timed on the device, and the cache flush is the
  // device's. memory_budget then bounds the program's scratch buffers in device memory.
  std::optional<GpuDevice> gpu;
  Backend backend = Backend::cpu;  // with gpu: cuda or opencl
  std::string profile;  // the profile's name, for messages
  Timing timing = Timing::cold;  // how calls are timed (above; timing_regime.h)
  // A board's profile: both workers run on the board (remote/remote_worker.h), their kernels built
  // here for it; the same protocol, the buffers mirrored there around every call.
  std::optional<Board> board;
  // Its times are not meaningful (an emulated board): the checks that compare times (the worker's
  // clock, its work after answering) are not judged, and no time is judged impossible (no peaks).
  bool timing_not_meaningful() const { return board && board->emulated; }
};

// Where an attempt's kernels ran when not on this machine (a board): recorded with the attempt.
struct RemoteRun {
  std::string board;       // the profile's name ("" when the attempt ran here)
  std::string arch, host;  // as the board reports them
  int worker_pid = 0;      // the candidate's worker there
  bool emulated = false;   // declared (the profile) or detected: its times are not meaningful
  bool sandboxed = true;   // its worker's sandbox was in place (an emulated board's is not: qemu-user refuses it)
  std::string sandbox;     // what the worker said about it
  bool remote() const { return !board.empty(); }
};

struct Evaluation {
  Outcome outcome = Outcome::ok;  // outcome.h: ok, or how it failed
  std::string message;
  double compile_ms = 0;
  bool compile_cached = false;                // the candidate was loaded from the compile cache
  std::vector<OutputComparison> comparisons;  // the worst per output over the reference sets
  TimingStats candidate, baseline;            // per call, ms (round i of each was timed side by side)
  double speedup = 0;                         // baseline median / candidate median
  double speedup_lo = 0, speedup_hi = 0;      // its 95% confidence interval (paired bootstrap over the rounds)
  bool noisy = false;                         // the interval stayed wider than asked after the most rounds allowed
  bool cut_short = false;                     // timed until its interval lay below EvalOptions::hopeless_below
  std::vector<AttemptNote> notes;             // what the harness noticed without failing it (attempt_notes.h)
  double must_read_gbps = 0;                  // its must-read bytes from memory per call, per its median (GB/s; not stored)
  // CPU: the median time per timed call outside the kernel (the request's way to the worker and back),
  // by the harness's clock: not counted in the times above.
  double candidate_outside_ms = 0, baseline_outside_ms = 0;
  // GPU: the launch floor, the median time of an empty kernel called as the candidate's calls are
  // (same worker program, events, flush; docs/metrics.md "GPU candidates"): what every call's time
  // includes doing nothing. 0: not measured (a CPU profile, an attempt that failed before its timing).
  double floor_ms = 0;
  uint64_t candidate_peak_rss = 0;           // the candidate's worker, compiler included
  uint64_t candidate_memory = 0;             // the kernel's own peak resident memory beyond its arguments (GPU: scratch)
  std::string compiler, device;              // what compiled and ran it (GPU: from the worker)
  RemoteRun where;                           // a board's attempt: which, and under what conditions
  double seconds = 0;                        // wall time of the whole evaluation: references, compiles, checks, timing
  bool correct() const { return outcome == Outcome::ok; }
  // Correct, and the speedup's interval lies above p: faster than p beyond the timing's noise.
  bool significantly_faster(double p) const { return correct() && speedup_lo > p; }
};

Evaluation evaluate(const Program& p, const std::string& candidate_source, bool cplusplus,
                    const std::string& baseline_source, const EvalOptions& o);

}  // namespace ekb
