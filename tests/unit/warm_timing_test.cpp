// The warm timing regime (harness/timing_regime.h, evaluate.h): calls back to back inside the worker,
// each timed call on new inputs (elements exchanged with a reserve input set, replayed by the
// harness) and poisoned outputs. Here: the pieces (element exchanges, the reserve's layout, the
// worker's renewed calls) and what only this regime can get wrong — an honest multi-threaded kernel
// whose threads spin between calls is not background work, a kernel replaying its last outputs
// within a turn or skipping calls is wrong, bytes that fit in the cache are not held against the
// memory bandwidth, and a warm run never resumes a cold one. The cheats of evaluate_test.cpp run in
// both regimes there.
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <string>

#include "eval/evaluator.h"
#include "harness/element_swaps.h"
#include "harness/evaluate.h"
#include "harness/shared_buffers.h"
#include "harness/timing_regime.h"
#include "harness/worker_client.h"
#include "harness/worker_start.h"
#include "scale_add_task.h"

namespace ekb {
namespace {

std::shared_ptr<Program> program() { return test::scale_add_program(); }
std::string baseline() { return test::scale_add_baseline(); }

EvalOptions warm(int threads = 1) {
  EvalOptions o;
  o.timing = Timing::warm;
  o.threads = threads;
  o.min_seconds = 0;
  o.min_reps = 8;
  o.max_wall_seconds = 4;
  o.max_interval_half_width = 1;  // (no more rounds for a narrow interval: not what these tests are about)
  o.call_timeout_ms = 3000;
  return o;
}

std::string kernel(const std::string& body, const std::string& includes = "") { return test::scale_add_kernel(body, includes); }

const char* kCorrect = test::kScaleAddCorrect;

TEST(TimingRegime, NamesRoundTripAndUnknownOnesAreRefusedNamingTheKnown) {
  for (const auto& t : timing_table()) EXPECT_EQ(parse_timing(t.name), t.timing);
  EXPECT_EQ(timing_name(Timing::warm), std::string("warm"));
  try {
    parse_timing("tepid");
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("cold, cold-asleep, warm"), std::string::npos) << e.what();
  }
}

TEST(TimingRegime, EachRegimesKeyDiffersAndAColdAsleepKeyStaysAsColdKeysWereBeforeThreadsWereNamed) {
  nlohmann::json key = {{"command", "eval"}, {"dir", "/x"}};
  EXPECT_EQ(keyed_by_timing(key, Timing::cold_asleep), key) << "a run stored before (threads asleep) resumes as what it is";
  EXPECT_NE(keyed_by_timing(key, Timing::cold), key) << "a cold run with awake threads never resumes one with sleeping threads";
  EXPECT_NE(keyed_by_timing(key, Timing::warm), key);
  EXPECT_NE(keyed_by_timing(key, Timing::warm), keyed_by_timing(key, Timing::cold));
  EXPECT_EQ(keyed_by_timing(key, Timing::warm).value("timing", ""), "warm");
}

TEST(TimingRegime, AStoredRunsEnvironmentNamesItsRegimeAndOldColdRunsAreColdAsleep) {
  for (const auto& t : timing_table()) {
    nlohmann::json env = nlohmann::json::object();
    record_timing(env, t.timing);
    EXPECT_EQ(timing_of_environment(env), t.timing) << t.name;
  }
  EXPECT_EQ(timing_of_environment({{"timing", "cold"}}), Timing::cold_asleep) << "stored before threads were named: they slept";
  EXPECT_EQ(timing_of_environment(nlohmann::json::object()), Timing::cold_asleep) << "stored before regimes existed";
  EXPECT_EQ(timing_of_environment({{"timing", "warm"}}), Timing::warm);
  EXPECT_EQ(idle_spin_us(Timing::cold_asleep), 0);
  EXPECT_GT(idle_spin_us(Timing::cold), 0);
  EXPECT_TRUE(timing_info(Timing::cold).flush);
  EXPECT_FALSE(timing_info(Timing::warm).flush);
}

TEST(ElementSwaps, AnExchangeChangesTheValuesNotJustTheirPlacesAndIsReplayable) {
  std::vector<float> a(1000), b(1000);
  std::iota(a.begin(), a.end(), 0.0f);
  std::iota(b.begin(), b.end(), 5000.0f);
  std::vector<float> a2 = a, b2 = b;
  std::mt19937_64 r1(7), r2(7);
  exchange_some_elements(a.data(), b.data(), a.size() * 4, 4, r1);
  exchange_some_elements(a2.data(), b2.data(), a2.size() * 4, 4, r2);
  EXPECT_EQ(a, a2);  // the same draws, the same result
  EXPECT_EQ(b, b2);
  double sum_a = std::accumulate(a.begin(), a.end(), 0.0), sum_b = std::accumulate(b.begin(), b.end(), 0.0);
  EXPECT_NE(sum_a, 999.0 * 1000 / 2) << "a sum over the input would not see the change";
  EXPECT_DOUBLE_EQ(sum_a + sum_b, 999.0 * 1000 / 2 + (5000.0 * 1000 + 999.0 * 1000 / 2));  // values moved, none made up
}

TEST(SharedBuffers, TheReserveHasItsOwnGuardZone) {
  SharedBuffers buf(*program(), 2, true);
  ASSERT_FALSE(buf.reserve_layout().is_null());
  size_t reserve = buf.reserve_layout()[0].get<size_t>();
  EXPECT_TRUE(buf.guards_intact());
  buf.mapped()[reserve + buf.sizes()[0]] ^= 1;  // the byte after the reserve's input
  EXPECT_FALSE(buf.guards_intact());
  auto kinds = buf.argument_kinds();
  ASSERT_EQ(kinds.size(), 2u);
  EXPECT_FALSE(kinds[0]["output"].get<bool>());
  EXPECT_TRUE(kinds[1]["output"].get<bool>());
  EXPECT_EQ(kinds[1]["element_bytes"].get<int>(), 4);
}

// The worker's side of a warm turn: a request of untimed calls for the warm-up, then one of timed
// calls, each on inputs renewed from the reserve (as the harness replays them), the last call's
// outputs left behind.
TEST(Worker, RenewedCallsRunBackToBackOnInputsTheHarnessCanReplay) {
  const Program& p = *program();
  SharedBuffers buf(p, 2, true);
  HostBuffer x(DType::f32, {8192}), spare(DType::f32, {8192});
  for (int i = 0; i < 8192; ++i) static_cast<float*>(x.data())[i] = static_cast<float>(i), static_cast<float*>(spare.data())[i] = -1.0f - i;
  buf.write_inputs(1, {x}, false);
  buf.write_reserve({spare});
  StartedWorker s = start_worker(p, buf, WorkerStart{kernel(kCorrect), false, 1, worker::worker_cpus(1), 64u << 20, 20, 1u << 20});
  ASSERT_TRUE(s.ok()) << s.failure.message;
  worker::Reply w = s.worker->request({{"op", "run"}, {"set", 1}, {"threads", 1}, {"warmup_ms", 2.0}}, 5000);
  ASSERT_TRUE(w.ok()) << w.message;
  EXPECT_GE(w.body.value("warmup_calls", 0), 2);  // calls of a few microseconds for 2 ms
  EXPECT_GE(w.body.value("kernel_ms", 0.0), 2.0);
  EXPECT_TRUE(buf.inputs_equal(1, {x}));  // the warm-up leaves the inputs as they were
  worker::Reply r = s.worker->request({{"op", "run"}, {"set", 1}, {"threads", 1}, {"calls", 5}, {"renew_seed", 42}, {"poison", 0xAB}}, 5000);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_EQ(r.body["calls_ms"].size(), 5u);
  EXPECT_LE(r.body.value("kernel_ms", 1e9), r.body.value("busy_ms", 0.0));  // the calls, and the renewals between them
  std::mt19937_64 rng(42);
  for (int j = 0; j < 5; ++j) exchange_some_elements(x.data(), spare.data(), x.size_bytes(), 4, rng);
  EXPECT_TRUE(buf.inputs_equal(1, {x}));
  EXPECT_TRUE(buf.reserve_equal({spare}));
  auto out = buf.read_outputs(1);
  for (int i = 0; i < 8192; ++i) ASSERT_EQ(out[0].f[i], static_cast<float*>(x.data())[i] * 2.0f + 1.0f) << i;
}

// A kernel's scratch memory stays in its worker between calls, as a runtime's arena does between
// layers: two buffers of about 1.3 MB allocated, written and freed in every call (an adaptive
// threshold's padded image and row sums) page-faulted in every call in some workers and not in
// others (glibc's heap trimmed, or its mmap threshold not yet raised), and identical programs
// measured 0.18 and 0.67 ms. Here the kernel counts its own page faults into its output.
TEST(Worker, ScratchMemoryFreedInOneCallIsReusedWithoutPageFaultsInTheNext) {
  const Program& p = *program();
  SharedBuffers buf(p, 2, true);
  HostBuffer x(DType::f32, {8192});
  buf.write_inputs(1, {x}, false);
  std::string body = R"(  struct rusage a, b; getrusage(RUSAGE_SELF, &a);
  char* P = malloc(490 * 650 * 4); memset(P, 1, 490 * 650 * 4);
  char* R = malloc(490 * 640 * 4); memset(R, 2, 490 * 640 * 4);
  y[1] = (float)(P[4096] + R[4096]);
  free(P); free(R);
  getrusage(RUSAGE_SELF, &b); y[0] = (float)(b.ru_minflt - a.ru_minflt);)";
  StartedWorker s = start_worker(p, buf, WorkerStart{kernel(body, "#include <stdlib.h>\n#include <string.h>\n#include <sys/resource.h>"), false, 1,
                                                     worker::worker_cpus(1), 64u << 20, 20, 1u << 20});
  ASSERT_TRUE(s.ok()) << s.failure.message;
  std::vector<float> faults;
  for (int call = 0; call < 6; ++call) {
    worker::Reply r = s.worker->request({{"op", "run"}, {"set", 1}, {"threads", 1}, {"calls", 1}}, 5000);
    ASSERT_TRUE(r.ok()) << r.message;
    faults.push_back(buf.read_outputs(1)[0].f[0]);
  }
  // (The first calls may fault the pages in; 2.5 MB is over 600 pages.)
  for (int call = 2; call < 6; ++call) EXPECT_LT(faults[static_cast<size_t>(call)], 64.0f) << "call " << call;
}

TEST(EvaluateWarm, AParallelKernelsSpinningThreadsAreNotBackgroundWork) {
  // Two OpenMP threads that spin after every turn by design (the regime keeps them awake), against a
  // serial baseline whose process does not: correct, timed, and not charged for the spinning.
  Evaluation e = evaluate(*program(), kernel("  #pragma omp parallel for num_threads(num_threads)\n" + std::string(kCorrect)),
                          false, kernel(kCorrect), warm(2));
  ASSERT_EQ(e.outcome, Outcome::ok) << e.message;
  EXPECT_GE(e.candidate.ms.size(), 8u);
  EXPECT_GT(e.speedup_hi, e.speedup_lo);
}

TEST(EvaluateWarm, AKernelReplayingItsLastOutputsWithinATurnIsWrong) {
  // Past the checks, computes when its last call was long ago (the first call of a turn), else hands
  // back what it computed then: every timed call of a turn has new inputs, so the replay is stale.
  Evaluation e = evaluate(*program(),
                          kernel("  static double last; static float keep[8192]; static unsigned k; double t = now_ms();\n"
                                 "  if (++k > 20 && t - last < 1.0) { memcpy(y, keep, sizeof keep); last = t; return; }\n" +
                                     std::string(kCorrect) + "\n  memcpy(keep, y, sizeof keep); last = t;",
                                 "#include <string.h>\n#include <time.h>\n"
                                 "static double now_ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); "
                                 "return t.tv_sec * 1e3 + t.tv_nsec * 1e-6; }"),
                          false, baseline(), warm());
  EXPECT_EQ(e.outcome, Outcome::wrong) << outcome_name(e.outcome) << ": " << e.message;
}

TEST(EvaluateWarm, AKernelSkippingEveryOtherCallIsWrong) {
  // Past the checks, half the calls do nothing (the outputs keep their poison): the last call of a
  // turn is one of them in some round, as the number of calls per turn changes from round to round.
  Evaluation e = evaluate(*program(), kernel("  static unsigned k; if (++k > 20 && k % 2) return;\n" + std::string(kCorrect)), false,
                          baseline(), warm());
  EXPECT_EQ(e.outcome, Outcome::wrong) << outcome_name(e.outcome) << ": " << e.message;
}

TEST(EvaluateWarm, AKernelThatMovesItsOwnCallsStartTimeIsCaught) {
  // Correct, 0.3 ms slow, but before returning it moves the latest clock reading on its stack (its
  // call's start time, or the request's) on by 0.25 ms: each call would look 0.05 ms long. What
  // the worker then reports between its calls, or the harness's clock around the request, gives it
  // away (clock_check.h). (x86-64, as in evaluate_test.cpp.)
#if !defined(__x86_64__)
  GTEST_SKIP() << "the kernel's trick is x86-64 assembly";
#endif
  Evaluation e = evaluate(
      *program(),
      kernel(std::string("  int64_t entry = now_ns();\n") + kCorrect +
                 "\n  while (now_ns() - entry < 300000) {}\n"
                 "  __asm__ volatile(\"\" ::: \"rbx\", \"r12\", \"r13\", \"r14\", \"r15\");\n"
                 "  int64_t* volatile p = (int64_t*)__builtin_frame_address(0) - 8; volatile int64_t* latest = 0;\n"
                 "  for (int k = 0; k < 512; ++k) { volatile int64_t* q = p + k;\n"
                 "    if (*q <= entry && *q > entry - 1000000 && (!latest || *q > *latest)) latest = q; }\n"
                 "  if (latest) *latest += 250000;",
             "#include <time.h>\n#include <stdint.h>\n"
             "static int64_t now_ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); "
             "return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec; }"),
      false, baseline(), warm());
  EXPECT_EQ(e.outcome, Outcome::clock_mismatch) << outcome_name(e.outcome) << ": " << e.message << " (" << e.candidate.median << " ms)";
}

TEST(EvaluateWarm, BytesThatFitInTheCacheAreNotHeldAgainstTheMemoryBandwidth) {
  // 32 KiB to read at an absurdly low read bandwidth: impossible when every byte must come from
  // memory (cold), possible when they may all be in the cache (warm).
  EvalOptions w = warm(), c = warm();
  c.timing = Timing::cold;
  for (EvalOptions* o : {&w, &c}) o->read_gbps = 1e-3;
  EXPECT_EQ(evaluate(*program(), kernel(kCorrect), false, baseline(), c).outcome, Outcome::invalid);
  Evaluation e = evaluate(*program(), kernel(kCorrect), false, baseline(), w);
  EXPECT_EQ(e.outcome, Outcome::ok) << e.message;
  w.peak_gflops = 1e-3;  // faster than the stated flops allow: a note in every regime, never a failure
  Evaluation f = evaluate(*program(), kernel(kCorrect), false, baseline(), w);
  EXPECT_EQ(f.outcome, Outcome::ok) << f.message;
  ASSERT_FALSE(f.notes.empty());
  EXPECT_EQ(f.notes[0].kind, NoteKind::fewer_flops_than_stated);
}

}  // namespace
}  // namespace ekb
