// The attempt protocol of evaluate.h: start two workers, check the candidate on the reference sets,
// then time both interleaved on fresh inputs, checking the candidate against the baseline each round,
// until the speedup's interval is narrow enough (or the cap is reached: noisy).
#include "harness/evaluate.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <utility>

#include <sched.h>
#include <unistd.h>

#include "harness/clock_check.h"
#include "harness/element_swaps.h"
#include "harness/shared_buffers.h"
#include "harness/speedup_interval.h"
#include "harness/time_verdict.h"
#include "harness/worker_client.h"
#include "harness/worker_start.h"
#include "interp/reference.h"

namespace ekb {

namespace {

using worker::Reply;
using worker::Worker;

constexpr int kWarmupRounds = 3;
// While the interval is too wide, it is computed again every this many rounds.
constexpr int kIntervalEvery = 16;
// Regimes with awake threads (cold, warm) on the CPU: idle OpenMP threads spin idle_spin_us() after
// a call (then sleep: between two sides' turns the harness waits that long and a little more, so
// that the two never compete). A warm side's turn starts with untimed calls for kWarmupMs
// (measured: a depthwise 3x3 over 9.6 MB took about 10 ms of calls after the other side's turn to
// reach the time it keeps back to back, 0.18 ms, from 0.59 ms), then about kWarmTurnMs of timed
// calls, at most kWarmMaxCalls.
constexpr double kWarmupMs = 10.0;
constexpr double kWarmTurnMs = 2.0;
constexpr int kWarmMaxCalls = 64;
// The launch floor (GPU): an empty kernel's calls in the baseline's worker after the timing, the
// first ones untimed; the median of the rest.
constexpr int kFloorWarmupCalls = 1;
constexpr int kFloorCalls = 5;

// The last-level cache as the system reports it (32 MiB when it does not).
uint64_t last_level_cache_bytes() {
  long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  return l3 > 0 ? static_cast<uint64_t>(l3) : 32ull << 20;
}

uint64_t flush_size(const EvalOptions& o) {
  if (o.flush_bytes) return o.flush_bytes;
  // (Virtual machines can report odd cache sizes: 64 MiB at most.)
  return std::clamp<uint64_t>(2 * last_level_cache_bytes(), 8ull << 20, 64ull << 20);
}

// One kernel in its worker, with two argument slots (`buf`, made before the worker starts).
struct Side {
  std::unique_ptr<Worker> w;  // here, or on a board (worker_client.h)
  std::unique_ptr<SharedBuffers> buf;
  Reply failure;  // set when something failed
  double compile_ms = 0;
  bool compile_cached = false;
  std::vector<double> ms;
  bool out_of_bounds = false;
  uint64_t rss_mark = 0;      // resident memory when sandboxed: its growth is the kernel's own
  // Per timed request: the CPU seconds the worker used from the request until its next one (or the
  // end of the quiet spell), the seconds the request took (the worker's own `busy_ms`, checked to lie
  // within the harness's clock around it) and the seconds from its answer to that next request.
  // (Read when the worker is idle, before the request and after the quiet spell: a thread that is
  // running has its CPU time brought up to date only at the scheduler's tick, so a reading as it
  // answers missed up to a tick of each busy thread — a 2.7 ms parallel call showed up to 3.7 ms
  // of CPU "after answering" in a 1.3 ms gap, on 2 CPUs.)
  std::vector<double> request_cpu, request_wall, after_call_gap;
  double cpu_at_request = -1;
  double request_busy_s = -1;  // the worker's own time of the timed request in flight (`busy_ms`), once checked
  double cpu_count = 1;  // the CPUs the worker may run on (it is pinned to them)
  std::chrono::steady_clock::time_point sent_at, answered_at;
  bool timing = false;  // a timed round: record request_cpu and outside_ms
  // CPU: per timed call, the harness's clock around the request minus the worker's around the kernel
  // (the message's way there and back).
  std::vector<double> outside_ms;
  // CPU, warm: per timed turn, the worker's time between its calls per call (Side::warm_turn).
  std::vector<double> between_ms;
  std::vector<TensorData> checked;  // CPU, warm: the last call's outputs of the latest turn, copied as it answered

  // A request; the CPU the worker used since the last timed request was sent is recorded first.
  Reply request(const nlohmann::json& req, int timeout_ms) {
    close_request_cpu();
    const bool timed = timing && req.value("op", "") == "run";
    double cpu = timed ? w->cpu_seconds() : -1;
    sent_at = std::chrono::steady_clock::now();
    Reply r = w->request(req, timeout_ms);
    answered_at = std::chrono::steady_clock::now();
    cpu_at_request = r.ok() ? cpu : -1;
    return r;
  }
  // The CPU the worker used since the last timed request was sent (request_cpu).
  void close_request_cpu() {
    if (cpu_at_request < 0) return;
    auto now = std::chrono::steady_clock::now();
    request_cpu.push_back(std::max(0.0, w->cpu_seconds() - cpu_at_request));
    // (The worker's own time of the request where it reported one: it lies within the harness's
    // clock around the request, which also holds the harness's own waits on a busy machine.)
    request_wall.push_back(request_busy_s >= 0 ? request_busy_s : std::chrono::duration<double>(answered_at - sent_at).count());
    request_busy_s = -1;
    after_call_gap.push_back(std::chrono::duration<double>(now - answered_at).count());
    cpu_at_request = -1;
  }
  // The kernel's own memory: resident growth of its worker (CPU), its scratch buffers (GPU).
  uint64_t memory() const { return gpu ? scratch_bytes : std::max(w->peak_rss(), rss_mark) - rss_mark; }

  bool gpu = false;
  uint64_t scratch_bytes = 0;  // GPU: the program's scratch buffers, its own device memory
  std::string compiler, device;
  nlohmann::json board;        // a board's facts, when the worker runs on one
  bool sandboxed = true;       // the worker says whether its sandbox is in place (an emulated board's is not)
  std::string sandbox_state;

  WorkerStart how;
  // Started, compiled and given its buffers (not yet sandboxed: see sandbox()).
  bool prepare(const Program& p, const std::string& src, bool cplusplus, const EvalOptions& o, const std::vector<int>& cpus) {
    cpu_count = cpus.empty() ? std::max(1u, std::thread::hardware_concurrency()) : static_cast<unsigned>(cpus.size());
    gpu = o.gpu.has_value();
    how = WorkerStart{src, cplusplus, o.threads, cpus, o.memory_budget, o.cpu_seconds, flush_size(o), gpu ? &*o.gpu : nullptr,
                      o.backend, o.profile, idle_spin_us(o.timing), o.board ? &*o.board : nullptr,
                      timing_info(o.timing).flush};
    StartedWorker s = prepare_worker(p, *buf, how);
    w = std::move(s.worker);
    compile_ms = s.compiled.value("compile_ms", 0.0);
    compile_cached = s.compiled.value("cached", false);
    compiler = s.compiled.value("compiler", "");
    board = s.compiled.value("board", nlohmann::json());
    if (gpu) {
      scratch_bytes = s.compiled.value("scratch_bytes", uint64_t(0));
      device = s.compiled.value("device", nlohmann::json::object()).value("name", "");
    }
    if (!s.ok()) failure = s.failure;
    return s.ok();
  }
  bool sandbox() {
    Reply r = sandbox_worker(*w, how);
    if (!r.ok()) failure = r;
    else rss_mark = w->reset_peak_rss();
    sandboxed = r.body.is_object() ? r.body.value("sandboxed", true) : true;
    sandbox_state = r.body.is_object() ? r.body.value("sandbox", "") : "";
    return r.ok();
  }
  // One call on `slot`: inputs written and outputs poisoned first; false (and `failure`) when it failed.
  // `locate` (a checking call, untimed): a GPU worker waits for each launch and names the one that fails.
  // `flush_first` (cold on the CPU): after the inputs are written, the worker's own threads flush the
  // caches in a request of their own, just before the timed one, so that the call finds them awake
  // (they spin far longer than the message takes; timing_regime.h). The timed request is then the
  // kernel's alone, as in every regime (the clock check compares the time outside it).
  bool call(int slot, const std::vector<HostBuffer>& inputs, unsigned char poison, const EvalOptions& o, double* wall_ms,
            bool locate = false, bool flush_first = false) {
    buf->write_inputs(slot, inputs);
    buf->poison_outputs(slot, poison);
    if (flush_first) {
      Reply f = request({{"op", "flush"}, {"threads", o.threads}}, o.call_timeout_ms);
      if (!f.ok()) {
        failure = f;
        return false;
      }
    }
    Reply r;
    return run({{"op", "run"}, {"set", slot}, {"threads", o.threads}, {"calls", 1}, {"locate", locate}}, o.call_timeout_ms, wall_ms, r);
  }
  // A warm turn (CPU) on `slot`: the round's inputs written first (not evicted: as a previous layer
  // leaves them) and `reserve` beside them; one request of untimed calls back to back for kWarmupMs
  // (the side's data back in the caches after the other side's turn, its threads awake), then one
  // of `calls` timed calls back to back, before each of which the worker exchanges input elements
  // with the reserve (drawn from `seed`: the same on both sides) and poisons the outputs. `figure`
  // is the median of the timed calls, `seconds` their sum. The outputs left are the last call's.
  bool warm_turn(int slot, const std::vector<HostBuffer>& in, const std::vector<HostBuffer>& reserve, uint64_t seed, int calls,
                 unsigned char poison, int timeout_ms, const EvalOptions& o, double* figure, double* seconds) {
    buf->write_inputs(slot, in, false);
    buf->write_reserve(reserve);
    buf->poison_outputs(slot, poison, false);
    Reply r;
    double total = 0;
    bool timed = timing;
    timing = false;  // (the warm-up's request is not one of the timed ones)
    bool warmed = run({{"op", "run"}, {"set", slot}, {"threads", o.threads}, {"warmup_ms", kWarmupMs}}, timeout_ms, &total, r);
    timing = timed;
    if (!warmed) return false;
    buf->poison_outputs(slot, poison, false);  // (the warm-up's outputs are not the timed calls')
    if (!run({{"op", "run"}, {"set", slot}, {"threads", o.threads}, {"calls", calls}, {"renew_seed", seed}, {"poison", poison}},
             timeout_ms, &total, r, calls))
      return false;
    auto each = r.body.value("calls_ms", nlohmann::json::array());
    std::vector<double> ms;
    for (const auto& t : each) ms.push_back(t.is_number() ? t.get<double>() : -1.0);
    if (static_cast<int>(each.size()) != calls || std::any_of(ms.begin(), ms.end(), [](double t) { return !(t >= 0); })) {
      failure = Reply{Outcome::protocol, fmt::format("the worker answered {} call times for {} calls", each.size(), calls), {}, 0};
      return false;
    }
    *figure = summarize_times(ms).median;
    *seconds = 0;
    for (double t : ms) *seconds += t / 1000.0;
    // The worker's time between the calls (the renewals), per call: the same code over the same
    // sizes in both workers, so a kernel that moved its calls' clock readings shows here.
    if (timing) between_ms.push_back(std::max(0.0, r.body.value("busy_ms", total) - total) / calls);
    // The last call's outputs as they are when it answered (compared with the other side's at the
    // end of the round: anything written after the answer is not in them).
    checked = buf->read_outputs(slot);
    // Then a quiet spell, the same after every turn: its idle threads spin a while yet (they must be
    // asleep before the other side's turn), and the CPU the worker uses meanwhile is what it did
    // after answering (background_work).
    quiet_spell(o);
    return true;
  }
  // After a turn whose threads stay awake: they spin a while yet, and must be asleep before the other
  // side's turn; the CPU the worker uses meanwhile is what it did after answering (background_work).
  void quiet_spell(const EvalOptions& o) {
    std::this_thread::sleep_until(answered_at + std::chrono::microseconds(idle_spin_us(o.timing) + 200));
    close_request_cpu();
  }
  // A run request and the checks every call gets: `kernel_ms` the worker's time of the request's
  // calls, which the harness's clock around the request must contain. The time outside the worker's
  // is recorded per call (a warm turn's `calls` share one request's way there and back).
  bool run(const nlohmann::json& req, int timeout_ms, double* wall_ms, Reply& r, int calls = 1) {
    r = request(req, timeout_ms);
    if (!r.ok()) {
      failure = r;
      return false;
    }
    if (!buf->guards_intact()) {
      failure = Reply{Outcome::out_of_bounds, "the kernel wrote outside its buffers (a guard zone beside them changed)", {}, 0};
      out_of_bounds = true;
      return false;
    }
    // The worker's own time of the call (GPU: its device timer; CPU: its clock around the kernel),
    // which the harness's clock around the whole request must contain.
    // (A warm turn's request also holds untimed calls and the renewals between calls: the worker's
    // time of all of it, `busy_ms`, lies between the calls' and the harness's.)
    double kernel_ms = r.body.value("kernel_ms", -1.0), busy_ms = r.body.value("busy_ms", kernel_ms);
    if (!(kernel_ms >= 0) || (!gpu && (kernel_ms > busy_ms || busy_ms > r.wall_ms))) {
      failure = Reply{Outcome::clock_mismatch,
                      fmt::format("the worker reported {:.4f} ms for a call the harness timed at {:.4f} ms", busy_ms, r.wall_ms),
                      {}, 0};
      return false;
    }
    if (!gpu && timing) outside_ms.push_back((r.wall_ms - busy_ms) / calls);
    if (!gpu && timing) request_busy_s = busy_ms / 1000;
    if (wall_ms) *wall_ms = kernel_ms;
    return true;
  }
  // Warm: the calls per side and round at most (about kWarmTurnMs of them, at least 4), from the
  // candidate's checking calls (their shortest); each round draws a number between half of it
  // (plus one) and all of it, so that no kernel can know which call of a turn is the last, checked one.
  static int warm_calls(const std::vector<double>& check_ms) {
    double t = check_ms.empty() ? 1.0 : *std::min_element(check_ms.begin(), check_ms.end());
    double n = t > 0 ? std::ceil(kWarmTurnMs / t) + 1 : kWarmMaxCalls;
    return static_cast<int>(std::clamp<double>(n, 4, kWarmMaxCalls));
  }
  bool flush(const EvalOptions& o) {
    Reply r = request({{"op", "flush"}}, o.call_timeout_ms);
    if (!r.ok()) failure = r;
    return r.ok();
  }
};

// The launch floor of a GPU device (EvalOptions::gpu): an empty kernel (no arguments, one thread),
// built by the worker apart from the program, called as the timing rounds call a kernel: after the
// device cache's flush unless warm, the device idle before and after, the same events around the
// launch. Measured in the baseline's worker (the same program as the candidate's, running only ekb's
// code) once per attempt; 0 when the worker could not build or run it (the attempt stands).
double launch_floor(Worker& w, const EvalOptions& o) {
  std::vector<double> ms;
  for (int i = 0; i < kFloorWarmupCalls + kFloorCalls; ++i) {
    if (o.timing != Timing::warm && !w.request({{"op", "flush"}}, o.call_timeout_ms).ok()) return 0;
    Reply r = w.request({{"op", "floor"}}, o.call_timeout_ms);
    double t = r.ok() ? r.body.value("floor_ms", -1.0) : -1.0;
    if (!(t >= 0)) return 0;
    if (i >= kFloorWarmupCalls) ms.push_back(t);
  }
  return summarize_times(ms).median;
}

// The same values at a few hundred swapped positions: new content, same distribution (an index input
// stays in range). Elements are swapped whole, whatever their type.
std::vector<HostBuffer> shuffled(const std::vector<HostBuffer>& in, std::mt19937_64& rng) {
  std::vector<HostBuffer> out = in;
  for (auto& b : out) swap_some_elements(b.data(), b.size_bytes(), static_cast<size_t>(dtype_bytes(b.type)), rng);
  return out;
}

// The inputs a warm turn of `calls` calls leaves in its slot (and in the reserve): the worker's
// exchanges (worker_main.cpp, renew) replayed here on copies.
std::pair<std::vector<HostBuffer>, std::vector<HostBuffer>> after_renewals(std::vector<HostBuffer> in, std::vector<HostBuffer> reserve,
                                                                           uint64_t seed, int calls) {
  std::mt19937_64 rng(seed);
  for (int j = 0; j < calls; ++j)
    for (size_t i = 0; i < in.size(); ++i)
      exchange_some_elements(in[i].data(), reserve[i].data(), in[i].size_bytes(), static_cast<size_t>(dtype_bytes(in[i].type)), rng);
  return {std::move(in), std::move(reserve)};
}

std::string first_failing(const std::vector<OutputComparison>& cs) {
  for (const auto& c : cs)
    if (!c.pass)
      return fmt::format("`{}`: max rel error {:.3g} (tolerance {:.0e}){} at element {}: got {} want {}", c.name, c.max_rel_error,
                         c.tolerance, c.nonfinite ? ", non-finite values" : "", c.worst_index, c.worst_got, c.worst_want);
  return "";
}

Evaluation fail(Evaluation e, Outcome outcome, const std::string& message) {
  e.outcome = outcome;
  e.message = message;
  return e;
}

std::string mib(uint64_t bytes) { return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20)); }

std::string budget_note(const Reply& r, const EvalOptions& o) {
  return r.outcome == Outcome::over_budget ? fmt::format("{} ({})", r.message, mib(o.memory_budget)) : r.message;
}

// How a side's failed call is classified: a write beside its buffers, else the worker's outcome.
Outcome call_outcome(const Side& s) { return s.out_of_bounds ? Outcome::out_of_bounds : s.failure.outcome; }

// Over budget: the kernel's own resident memory (beyond its arguments) grew past the profile's budget.
bool over_budget(Evaluation& e, const Side& cand, const EvalOptions& o) {
  e.candidate_memory = std::max(e.candidate_memory, cand.memory());
  e.candidate_peak_rss = cand.w->peak_rss();
  if (!o.memory_budget || e.candidate_memory <= o.memory_budget) return false;
  e.outcome = Outcome::over_budget;
  e.message = fmt::format("the kernel's own memory reached {} beyond its arguments; the device profile allows {}",
                          mib(e.candidate_memory), mib(o.memory_budget));
  if (cand.gpu) e.message = fmt::format("the program's scratch buffers take {}; the device profile allows {}", mib(e.candidate_memory), mib(o.memory_budget));
  return true;
}

// Work moved off the timed path: the candidate's worker kept using CPU after answering a call (a
// thread finishing the job after the call "returned"). What it used beyond its call is bounded from
// below by what it used from the request until its next one (or the end of the quiet spell), less
// the most the call itself could use (its CPUs, which it is pinned to, for the worker's own time of
// the request, which the harness checks lies within its clock around the request). Answering itself costs some CPU (tens of microseconds on a virtual
// machine); the baseline's worker, the same program, measures that. The medians per call are
// compared: the candidate's may exceed the baseline's by 20 us or half the baseline's call time,
// whichever is more.
// In a regime with awake threads (cold, warm), idle OpenMP threads spin after a turn by design: each
// is charged only what exceeds what they may spin (every thread but the one that answers, for the
// gap until the next request or the spin time, whichever is shorter), the candidate's as the
// baseline's.
// GPU profiles (CUDA, OpenCL, PoCL included) are not judged here: a GPU candidate is device code
// only (no host code compiles through NVRTC or an OpenCL compiler), and the GPU worker waits for the
// device (cuCtxSynchronize, clFinish) before it answers, so nothing of the candidate runs after the
// answer; the CPU its worker uses then is the driver's, and compared with a device-timed call of
// ~20 us it flagged default schedules on the H200 (bench/results/suite_verify_h200_cuda.md).
// On an emulated board neither this nor the clock check below is judged: the emulator's own work
// (translating code, emulating futexes) is in every figure they compare, unequally for code that
// differs (a parallel candidate against a serial baseline measured 25 us more outside its calls
// under qemu-riscv64), and those times are not meaningful anyway.
bool background_work(Evaluation& e, Side& cand, Side& base, const EvalOptions& o) {
  if (cand.gpu || o.timing_not_meaningful()) return false;
  // (libomp's threads spin a little past their block time: measured up to 3% more on the 2-core VM,
  // and a parallel kernel's spin starts after a serial one's, whose threads the flush woke.)
  double spin_s = idle_spin_us(o.timing) * 1e-6 * 1.1;
  auto beyond_spin = [&](const Side& s) {
    std::vector<double> v;
    for (size_t i = 0; i < s.request_cpu.size(); ++i)
      v.push_back(std::max(0.0, s.request_cpu[i] - s.cpu_count * s.request_wall[i] - (o.threads - 1) * std::min(s.after_call_gap[i], spin_s)));
    return v.empty() ? 0.0 : summarize_times(v).median;
  };
  double c = beyond_spin(cand) * 1e3, b = beyond_spin(base) * 1e3;  // ms
  double allowed = b + std::max(0.02, 0.5 * e.baseline.median);
  if (c <= allowed) return false;
  e.outcome = Outcome::background_work;
  e.message = fmt::format("after answering a call, the kernel's process went on using {:.3f} ms of CPU (median per call; the "
                          "baseline's {:.3f} ms; timed call {:.3f} ms): work outside the timed calls",
                          c, b, e.candidate.median);
  return true;
}

// The worker's clock against the harness's (CPU; clock_check.h).
bool clock_disagrees(Evaluation& e, const Side& cand, const Side& base, const EvalOptions& o) {
  if (cand.gpu || o.timing_not_meaningful()) return false;
  OutsideTimes t = outside_medians(cand.outside_ms, base.outside_ms);
  e.candidate_outside_ms = t.candidate_ms;
  e.baseline_outside_ms = t.baseline_ms;
  auto problem = clock_disagreement(t, e.candidate.median);
  if (!problem) problem = between_calls_disagreement(outside_medians(cand.between_ms, base.between_ms), e.candidate.median);
  if (!problem) return false;
  e.outcome = Outcome::clock_mismatch;
  e.message = *problem;
  return true;
}

// Where the candidate ran, when not in a worker of this machine: the board, its worker, whether the
// board is emulated and whether the worker was sandboxed (the worker says; an emulated board's is not).
RemoteRun where_it_ran(const Side& s, const EvalOptions& o) {
  RemoteRun r;
  if (!s.board.is_object()) return r;
  r.board = o.board ? o.board->name : s.board.value("host", "");
  r.arch = s.board.value("arch", "");
  r.host = s.board.value("host", "");
  r.worker_pid = s.board.value("worker_pid", 0);
  r.emulated = (o.board && o.board->emulated) || !s.board.value("emulation_signs", std::string()).empty();
  r.sandboxed = s.sandboxed;
  r.sandbox = s.sandbox_state;
  return r;
}

// The protocol itself (evaluate() adds its wall time).
Evaluation run_attempt(const Program& p, const std::string& candidate_source, bool cplusplus, const std::string& baseline_source,
                       const EvalOptions& o) {
  Evaluation e;
  // The reference sets (cached on disk by the interpreter), as the kernel's bytes.
  std::vector<ReferenceResult> refs;
  std::vector<std::vector<HostBuffer>> host_inputs;
  for (int s = 1; s <= o.input_sets; ++s) {
    refs.push_back(reference_outputs(p, static_cast<uint64_t>(s)));
    std::vector<HostBuffer> hb;
    for (const auto& t : refs.back().inputs) hb.push_back(to_host(t));
    host_inputs.push_back(std::move(hb));
  }

  // The harness thread runs on the workers' first CPU while it waits for them: a request then wakes
  // the worker on the CPU it was sent from (no cross-CPU wake-up inside the timed interval, which on
  // a virtual machine cost tens of microseconds, more or less depending on where each side slept).
  // (The workers' CPUs are chosen before this thread is pinned: they inherit nothing from it.)
  std::vector<int> cpus = worker::worker_cpus(o.threads);
  cpu_set_t saved;
  bool pinned = !cpus.empty() && sched_getaffinity(0, sizeof saved, &saved) == 0;
  if (pinned) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpus[0], &one);
    pinned = sched_setaffinity(0, sizeof one, &one) == 0;
  }
  struct Restore {
    bool on;
    cpu_set_t set;
    ~Restore() {
      if (on) sched_setaffinity(0, sizeof set, &set);
    }
  } restore{pinned, saved};

  // Warm on the CPU: calls back to back in the worker, each on new inputs from a reserve (Side::warm_turn).
  // Warm on a GPU: one call per round as cold, without the flush of the device's cache (a call's time
  // is the device's alone, whatever the host did before it).
  const bool warm = o.timing == Timing::warm, bursts = warm && !o.gpu;
  // Cold with awake threads on the CPU: the flush is the timed request's first part, done by the
  // kernel's own threads (they are awake when the call starts), then a quiet spell after the turn.
  const bool flush_in_call = !o.gpu && timing_info(o.timing).flush && timing_info(o.timing).threads == IdleThreads::awake;
  Side cand, base;
  cand.buf = std::make_unique<SharedBuffers>(p, 2, bursts);
  base.buf = std::make_unique<SharedBuffers>(p, 2, bursts);
  SharedBuffers::fault_in_alternately(*cand.buf, *base.buf);
  // Both workers are set up before either is sandboxed, and the candidate is checked only then (a
  // worker that set up and ran alone before the other existed was measured slower than its twin).
  // (A device that is gone — a board that stopped answering — is not the baseline's failure either.)
  auto baseline_failed = [&] {
    if (base.failure.outcome == Outcome::unavailable) return fail(e, Outcome::unavailable, base.failure.message);
    return fail(e, Outcome::baseline, std::string("the baseline failed: ") + base.failure.message);
  };
  if (!cand.prepare(p, candidate_source, cplusplus, o, cpus)) return fail(e, cand.failure.outcome, cand.failure.message);
  e.where = where_it_ran(cand, o);
  if (!base.prepare(p, baseline_source, false, o, cpus)) return baseline_failed();
  bool sandboxed = cand.sandbox();
  e.where = where_it_ran(cand, o);
  if (!sandboxed) return fail(e, cand.failure.outcome, cand.failure.message);
  if (!base.sandbox()) return baseline_failed();
  e.compile_ms = cand.compile_ms;
  e.compile_cached = cand.compile_cached;
  e.compiler = cand.compiler;
  e.device = cand.device;

  // 1. Correctness on every reference set.
  std::vector<double> check_ms;
  for (size_t s = 0; s < refs.size(); ++s) {
    int slot = static_cast<int>(s % 2);
    double ms = 0;
    if (!cand.call(slot, host_inputs[s], 0xAB, o, &ms, true)) return fail(e, call_outcome(cand), budget_note(cand.failure, o));
    check_ms.push_back(ms);
    if (!cand.buf->inputs_equal(slot, host_inputs[s]))
      return fail(e, Outcome::input_mutated, fmt::format("input set {}: the kernel changed its inputs", s + 1));
    auto cs = compare_outputs(p, cand.buf->read_outputs(slot), refs[s].outputs);
    if (e.comparisons.empty()) e.comparisons = cs;
    for (size_t k = 0; k < cs.size(); ++k)
      if (cs[k].max_rel_error > e.comparisons[k].max_rel_error || !cs[k].pass) e.comparisons[k] = cs[k];
    std::string bad = first_failing(cs);
    if (!bad.empty()) return fail(e, Outcome::wrong, fmt::format("input set {} (seed {}): {}", s + 1, s + 1, bad));
  }

  if (over_budget(e, cand, o)) return e;

  // 2. Interleaved timing on fresh inputs, the candidate checked against the baseline each round,
  //    until enough time is measured and the speedup's interval is narrow enough (or the cap). Cold:
  //    one call per side and round, after a cache flush. Warm on the CPU: a turn of calls per side
  //    and round (Side::warm_turn), as many for both, the last one's outputs checked.
  std::mt19937_64 rng(0x9e3779b97f4a7c15ull);
  const int most_calls = bursts ? Side::warm_calls(check_ms) : 1;
  // (A turn's deadline: a call's, and room for its warm-up and its calls at several times the slowest check.)
  const double slowest_check_ms = check_ms.empty() ? 0.0 : *std::max_element(check_ms.begin(), check_ms.end());
  const int turn_timeout_ms = o.call_timeout_ms + static_cast<int>(kWarmupMs + (most_calls + 1) * 4 * slowest_check_ms);
  auto t_start = std::chrono::steady_clock::now();
  double cand_total = 0, base_total = 0;
  SpeedupInterval interval;
  bool measured_enough = false;
  for (int r = 0;; ++r) {
    int slot = r % 2;
    size_t sets = host_inputs.size();
    std::vector<HostBuffer> in = shuffled(host_inputs[static_cast<size_t>(r) % sets], rng);
    unsigned char poison = r % 2 ? 0x5C : 0xAB;
    // Warm: the reserve (another input set), the turn's calls and the draws of its renewals.
    std::vector<HostBuffer> reserve;
    std::pair<std::vector<HostBuffer>, std::vector<HostBuffer>> after;
    uint64_t seed = 0;
    int calls = 1;
    if (bursts) {
      reserve = shuffled(host_inputs[static_cast<size_t>(r + 1) % sets], rng);
      seed = rng();
      calls = most_calls / 2 + 1 + static_cast<int>(rng() % static_cast<uint64_t>(most_calls - most_calls / 2));
      after = after_renewals(in, reserve, seed, calls);
    }
    for (int k = 0; k < 2; ++k) {
      bool cand_turn = (k == 0) == (r % 2 == 0);
      Side& s = cand_turn ? cand : base;
      double ms = 0, seconds = 0;
      s.timing = r >= kWarmupRounds;
      bool ok = bursts          ? s.warm_turn(slot, in, reserve, seed, calls, poison, turn_timeout_ms, o, &ms, &seconds)
                : flush_in_call ? s.call(slot, in, poison, o, &ms, false, true)
                                : (warm || s.flush(o)) && s.call(slot, in, poison, o, &ms);
      if (ok && flush_in_call) s.quiet_spell(o);
      if (!bursts) seconds = ms / 1000.0;
      if (!ok) {
        if (!cand_turn && base.failure.outcome == Outcome::unavailable) return fail(e, Outcome::unavailable, base.failure.message);
        if (!cand_turn) return fail(e, Outcome::baseline, std::string("the baseline failed while timing: ") + base.failure.message);
        return fail(e, call_outcome(cand), fmt::format("timing round {}: {}", r + 1, budget_note(cand.failure, o)));
      }
      if (cand_turn && !(bursts ? cand.buf->inputs_equal(slot, after.first) && cand.buf->reserve_equal(after.second)
                                : cand.buf->inputs_equal(slot, in)))
        return fail(e, Outcome::input_mutated, fmt::format("timing round {}: the kernel changed its inputs", r + 1));
      if (r >= kWarmupRounds) {  // the first rounds warm both workers up (a fresh worker starts slow)
        s.ms.push_back(ms);
        (cand_turn ? cand_total : base_total) += seconds;
      }
    }
    // (Outputs bit for bit the baseline's pass whatever the rule; only others need the comparison.)
    auto identical = [&] {
      if (!bursts) return cand.buf->outputs_identical(slot, *base.buf);
      for (size_t k = 0; k < cand.checked.size(); ++k)
        if (!cand.checked[k].same_values(base.checked[k])) return false;
      return true;
    };
    std::string bad = identical() ? ""
                      : bursts    ? first_failing(compare_outputs(p, cand.checked, base.checked, 2.0))
                                  : first_failing(compare_outputs(p, cand.buf->read_outputs(slot), base.buf->read_outputs(slot), 2.0));
    if (!bad.empty())
      return fail(e, Outcome::wrong, fmt::format("timing round {} (fresh inputs, compared with the baseline): {}", r + 1, bad));
    int reps = static_cast<int>(cand.ms.size());
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    // The interval of this round's times, computed at most once per round.
    bool fresh = false;
    auto interval_now = [&]() -> const SpeedupInterval& {
      if (!fresh) interval = bootstrap_speedup(base.ms, cand.ms);
      fresh = true;
      return interval;
    };
    if (o.hopeless_below > 0 && reps >= kIntervalEvery && reps % kIntervalEvery == 0) {
      // Surely slower than what it must beat: no more rounds (its figure stands, with its interval).
      if (interval_now().hi < o.hopeless_below) {
        e.cut_short = true;
        break;
      }
    }
    if (!measured_enough) {
      bool enough = reps >= o.min_reps && cand_total >= o.min_seconds && base_total >= o.min_seconds;
      measured_enough = enough || reps >= o.max_reps || (wall >= o.max_wall_seconds && reps >= 3);
      if (!measured_enough) continue;
      if (interval_now().relative_half_width() <= o.max_interval_half_width) break;
      if (reps >= o.noisy_max_reps || wall >= o.noisy_max_wall_seconds) {  // no rounds left for a wide interval
        e.noisy = true;
        break;
      }
      continue;
    }
    // Measured enough, but the interval was too wide: more rounds, up to the cap.
    bool capped = reps >= o.noisy_max_reps || wall >= o.noisy_max_wall_seconds;
    if (!capped && reps % kIntervalEvery != 0) continue;
    if (interval_now().relative_half_width() <= o.max_interval_half_width) break;
    if (capped) {
      e.noisy = true;
      break;
    }
  }
  if (o.gpu) e.floor_ms = launch_floor(*base.w, o);
  e.candidate = summarize_times(cand.ms);
  e.baseline = summarize_times(base.ms);
  // (The reported interval also holds what the pair of workers did: across_processes.)
  SpeedupInterval reported = across_processes(interval, o.process_spread);
  e.speedup = reported.speedup;
  e.speedup_lo = reported.lo;
  e.speedup_hi = reported.hi;
  // (The clock first: background_work's allowance is the worker's own time of each request, to be
  // trusted only once the harness's clock agrees with it; a kernel that moved its worker's clock
  // back would otherwise show its own time as work after answering.)
  if (over_budget(e, cand, o) || clock_disagrees(e, cand, base, o) || background_work(e, cand, base, o)) return e;
  // Too fast: `invalid` only with a proof; anything else it suggests is a note (time_verdict.h).
  TimeVerdict verdict = judge_time(p, e.candidate.median, o);
  e.notes = verdict.notes;
  e.must_read_gbps = verdict.must_read_gbps;
  if (verdict.impossible) return fail(e, Outcome::invalid, *verdict.impossible);
  return e;
}

}  // namespace

Evaluation evaluate(const Program& p, const std::string& candidate_source, bool cplusplus, const std::string& baseline_source,
                    const EvalOptions& o) {
  auto t0 = std::chrono::steady_clock::now();
  Evaluation e = run_attempt(p, candidate_source, cplusplus, baseline_source, o);
  e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return e;
}

}  // namespace ekb
