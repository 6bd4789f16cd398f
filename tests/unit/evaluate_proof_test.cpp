// `invalid` only with proof (harness/time_verdict.h), end to end through evaluate() on suite tasks:
// honest kernels that the old rule (below 3/4 of max(flops / peak GFLOP/s, bytes / peak GB/s))
// called invalid are `ok` with a note saying what their time suggests — an FFT for a task stated as
// a DFT, a filterbank that skips its zero weights, int8 dot products two to a 64-bit multiply, one
// thread streaming faster than a stored bandwidth; the peaks are set low here so that the old rule
// would fire, and each test checks that it would have. Cheats are still caught: work moved after
// the answer, replayed outputs, and a time the must-read bytes prove impossible.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "codegen/c_printer.h"
#include "eval/candidate.h"
#include "lower/schedule_choice.h"
#include "harness/evaluate.h"
#include "suite/figures.h"
#include "suite_sample.h"

namespace ekb {
namespace {

EvalOptions quick() {
  EvalOptions o;
  o.threads = 1;
  o.min_seconds = 0.01;
  o.min_reps = 5;
  o.max_wall_seconds = 3;
  o.call_timeout_ms = 5000;
  return o;
}

Evaluation run(const Task& t, const std::string& source, const EvalOptions& o) {
  return evaluate(*t.program, source, false, baseline_source(*t.program, default_target(Backend::cpu)), o);
}

bool has_note(const Evaluation& e, NoteKind k) {
  return std::any_of(e.notes.begin(), e.notes.end(), [&](const AttemptNote& n) { return n.kind == k; });
}

std::string notes_of(const Evaluation& e) {
  std::string s;
  for (const auto& n : e.notes) s += std::string(note_info(n.kind).name) + ": " + n.text + "\n";
  return s;
}

// What the old rule said: below 3/4 of the larger of the stated flops and bytes at the peaks (cold).
bool old_rule_invalid(const Task& t, const Evaluation& e, const EvalOptions& o) {
  Figures f = compute_figures(*t.program);
  double bound_ms = std::max(f.flops / (o.peak_gflops * 1e6), static_cast<double>(f.bytes) / (o.peak_gbps * 1e6));
  return e.candidate.median < 0.75 * bound_ms;
}

// Peaks low enough that the old rule calls any time impossible through the flops (or the bytes).
EvalOptions low_flops_peak() {
  EvalOptions o = quick();
  o.peak_gflops = 1e-3;
  o.peak_gbps = 1e6;
  return o;
}

// A radix-2 FFT (iterative, in double) of each 256-point frame: N log N work where the task states
// its DFT as sums over N points per bin.
const char* kFft = R"(#include <math.h>
#include <stdint.h>
#define PI 3.14159265358979323846
enum { F = 49, N = 256, LOG2N = 8, NB = N / 2 + 1 };
void ekb_entry(void* const* args, int32_t num_threads) {
  (void)num_threads;
  const float* x = (const float*)args[0];
  float* re = (float*)args[1];
  float* im = (float*)args[2];
  double wr[N / 2], wi[N / 2];
  for (int j = 0; j < N / 2; ++j) { wr[j] = cos(2.0 * PI * j / N); wi[j] = -sin(2.0 * PI * j / N); }
  for (int f = 0; f < F; ++f) {
    double ar[N], ai[N];
    for (int n = 0; n < N; ++n) {
      int r = 0;
      for (int b = 0; b < LOG2N; ++b) r |= ((n >> b) & 1) << (LOG2N - 1 - b);
      ar[r] = x[f * N + n];
      ai[r] = 0.0;
    }
    for (int len = 2; len <= N; len <<= 1) {
      int half = len / 2, step = N / len;
      for (int s = 0; s < N; s += len)
        for (int j = 0; j < half; ++j) {
          double c = wr[j * step], d = wi[j * step], br = ar[s + j + half], bi = ai[s + j + half];
          double tr = c * br - d * bi, ti = c * bi + d * br;
          ar[s + j + half] = ar[s + j] - tr;
          ai[s + j + half] = ai[s + j] - ti;
          ar[s + j] += tr;
          ai[s + j] += ti;
        }
    }
    for (int k = 0; k < NB; ++k) { re[f * NB + k] = (float)ar[k]; im[f * NB + k] = (float)ai[k]; }
  }
}
)";

TEST(EvaluateProof, AnFftForATaskStatedAsADftIsOkWithAFlopsNote) {
  Task t = test::load_suite_task("rdft_kws_49x256");
  EvalOptions o = low_flops_peak();
  Evaluation e = run(t, kFft, o);
  ASSERT_EQ(e.outcome, Outcome::ok) << outcome_name(e.outcome) << ": " << e.message;
  EXPECT_TRUE(old_rule_invalid(t, e, o)) << e.candidate.median << " ms";
  EXPECT_TRUE(has_note(e, NoteKind::fewer_flops_than_stated)) << notes_of(e);
  EXPECT_EQ(compute_figures(*t.program).must_read_bytes, 0) << "each sample is multiplied by a basis value that can be 0";
}

// The Slaney mel filters computed as the task states them, but each band summed over the bins where
// its triangle is nonzero only (a few per band, of 257).
const char* kSparseMel = R"(#include <math.h>
#include <stdint.h>
enum { M = 40, NFFT = 512, T = 49, SR = 16000, NB = NFFT / 2 + 1 };
void ekb_entry(void* const* args, int32_t num_threads) {
  (void)num_threads;
  const float* p = (const float*)args[0];
  float* mel = (float*)args[1];
  const double f_sp = 200.0 / 3, logstep = log(6.4) / 27;
  const double mel_hi = 15.0 + log(SR / 2 / 1000.0) / logstep, dmel = mel_hi / (M + 1), hz_bin = SR * 1.0 / NFFT;
  double hz[M + 2];
  for (int i = 0; i < M + 2; ++i) hz[i] = i * dmel >= 15.0 ? 1000.0 * exp(logstep * (i * dmel - 15.0)) : f_sp * (i * dmel);
  for (int m = 0; m < M; ++m) {
    double acc[T] = {0};
    int lo = (int)floor(hz[m] / hz_bin), hi = (int)ceil(hz[m + 2] / hz_bin);
    if (lo < 0) lo = 0;
    if (hi > NB - 1) hi = NB - 1;
    for (int b = lo; b <= hi; ++b) {
      double up = (b * hz_bin - hz[m]) / (hz[m + 1] - hz[m]), down = (hz[m + 2] - b * hz_bin) / (hz[m + 2] - hz[m + 1]);
      double w = (up < down ? up : down) * (2.0 / (hz[m + 2] - hz[m]));
      if (!(w > 0)) continue;  // a zero weight: skipped
      for (int t = 0; t < T; ++t) acc[t] += w * p[b * T + t];
    }
    for (int t = 0; t < T; ++t) mel[m * T + t] = (float)acc[t];
  }
}
)";

TEST(EvaluateProof, AFilterbankThatSkipsItsZeroWeightsIsOkWithAFlopsNote) {
  Task t = test::load_suite_task("mel_filterbank_slaney_kws_40x257");
  EvalOptions o = low_flops_peak();
  Evaluation e = run(t, kSparseMel, o);
  ASSERT_EQ(e.outcome, Outcome::ok) << outcome_name(e.outcome) << ": " << e.message;
  EXPECT_TRUE(old_rule_invalid(t, e, o)) << e.candidate.median << " ms";
  EXPECT_TRUE(has_note(e, NoteKind::fewer_flops_than_stated)) << notes_of(e);
}

// int8 GEMM with two output channels' weights packed in one 64-bit word (w[n] + w[n+1] * 2^32):
// one multiply-add computes two products, and the zero point is taken off each activation once.
const char* kPackedInt8 = R"(#include <math.h>
#include <stdint.h>
enum { M = 64, K = 256, N = 256 };
static int64_t packed[N / 2][K];
void ekb_entry(void* const* args, int32_t num_threads) {
  (void)num_threads;
  const int8_t* a = (const int8_t*)args[0];
  const int8_t* w = (const int8_t*)args[1];
  const int32_t* bias = (const int32_t*)args[2];
  const float* scale = (const float*)args[3];
  int8_t* y = (int8_t*)args[4];
  const int za = 3, zo = -5;
  for (int n = 0; n < N; n += 2)
    for (int k = 0; k < K; ++k) packed[n / 2][k] = (int64_t)w[n * K + k] + (int64_t)w[(n + 1) * K + k] * ((int64_t)1 << 32);
  for (int m = 0; m < M; ++m) {
    int64_t am[K];
    for (int k = 0; k < K; ++k) am[k] = (int64_t)a[m * K + k] - za;
    for (int n = 0; n < N; n += 2) {
      int64_t acc = 0;
      for (int k = 0; k < K; ++k) acc += am[k] * packed[n / 2][k];
      int32_t lo = (int32_t)(uint32_t)(uint64_t)acc;  // |the low sum| < 2^31: the low half is it
      int32_t sums[2] = {lo, (int32_t)((acc - lo) / ((int64_t)1 << 32))};
      for (int h = 0; h < 2; ++h) {
        double v = rint((double)(sums[h] + bias[n + h]) * (double)scale[n + h]) + zo;
        y[m * N + n + h] = (int8_t)(v < -128.0 ? -128.0 : v > 127.0 ? 127.0 : v);
      }
    }
  }
}
)";

TEST(EvaluateProof, PackedInt8DotProductsAreOkWithAFlopsNote) {
  Task t = test::load_suite_task("qgemm_int8_64x256x256");
  EvalOptions o = low_flops_peak();
  Evaluation e = run(t, kPackedInt8, o);
  ASSERT_EQ(e.outcome, Outcome::ok) << outcome_name(e.outcome) << ": " << e.message;
  EXPECT_TRUE(old_rule_invalid(t, e, o)) << e.candidate.median << " ms";
  EXPECT_TRUE(has_note(e, NoteKind::fewer_flops_than_stated)) << notes_of(e);
}

// add_relu over a ResNet-18 layer-1 map (2 x 784 KiB in, 784 KiB out) on one thread, plainly.
const char* kSerialAddRelu = R"(#include <stdint.h>
void ekb_entry(void* const* args, int32_t num_threads) {
  (void)num_threads;
  const float* x = (const float*)args[0];
  const float* r = (const float*)args[1];
  float* y = (float*)args[2];
  for (int i = 0; i < 64 * 56 * 56; ++i) { float v = x[i] + r[i]; y[i] = v > 0.0f ? v : 0.0f; }
}
)";
constexpr int64_t kAddReluMustRead = 2 * 64 * 56 * 56 * 4;

TEST(EvaluateProof, OneThreadStreamingFasterThanTheStoredBandwidthsIsOkWithNotes) {
  Task t = test::load_suite_task("add_relu_resnet18_layer1_64x56x56");
  ASSERT_EQ(compute_figures(*t.program).must_read_bytes, kAddReluMustRead);
  // The copy bandwidth far too low: the old rule's bytes bound fires; now a note.
  EvalOptions o = quick();
  o.peak_gflops = 1e6;
  o.peak_gbps = 0.01;
  o.read_gbps = 1e4;
  Evaluation e = run(t, kSerialAddRelu, o);
  ASSERT_EQ(e.outcome, Outcome::ok) << outcome_name(e.outcome) << ": " << e.message;
  EXPECT_TRUE(old_rule_invalid(t, e, o)) << e.candidate.median << " ms";
  EXPECT_TRUE(has_note(e, NoteKind::beyond_copy_bandwidth)) << notes_of(e);
  EXPECT_FALSE(has_note(e, NoteKind::beyond_read_bandwidth)) << notes_of(e);
  // A stored read bandwidth the kernel beats, but within the proof's margin: the must-read bytes
  // take 1.6 times the fastest round seen at it (the proof needs under 0.8 of that round).
  double fastest = *std::min_element(e.candidate.ms.begin(), e.candidate.ms.end());
  o.peak_gbps = 1e6;
  o.read_gbps = static_cast<double>(kAddReluMustRead) / (1.6 * fastest * 1e6);
  Evaluation within = run(t, kSerialAddRelu, o);
  ASSERT_EQ(within.outcome, Outcome::ok) << outcome_name(within.outcome) << ": " << within.message;
  EXPECT_TRUE(has_note(within, NoteKind::beyond_read_bandwidth)) << within.candidate.median << " ms against " << fastest << "\n"
                                                                 << notes_of(within);
  EXPECT_GT(within.must_read_gbps, o.read_gbps);
}

TEST(EvaluateProof, ATimeTheMustReadBytesProveImpossibleIsInvalid) {
  // An honest add_relu, with the read bandwidth set absurdly low: reading 1.6 MB at 0.1 GB/s takes
  // 16 ms, and the kernel takes far less than half of that.
  Task t = test::load_suite_task("add_relu_resnet18_layer1_64x56x56");
  EvalOptions o = quick();
  o.read_gbps = 0.1;
  Evaluation e = run(t, kSerialAddRelu, o);
  ASSERT_EQ(e.outcome, Outcome::invalid) << outcome_name(e.outcome) << ": " << e.message;
  for (const char* part : {"1605632 bytes", "(X, R:", "0.1 GB/s", "cannot be real"})
    EXPECT_NE(e.message.find(part), std::string::npos) << part << " in: " << e.message;
  o.read_gbps = 1e4;  // at a real machine's rate, the same kernel is fine
  EXPECT_EQ(run(t, kSerialAddRelu, o).outcome, Outcome::ok);
}

TEST(EvaluateProof, WorkMovedAfterTheAnswerIsStillCaught) {
  // Correct, but a helper thread burns 2 ms of CPU after each call has returned.
  Task t = test::load_suite_task("add_relu_resnet18_layer1_64x56x56");
  std::string src = R"(#include <stdint.h>
#include <pthread.h>
#include <time.h>
static volatile int go;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static void* helper(void* u) {
  (void)u; struct timespec nap = {0, 20000};
  for (;;) { while (!go) nanosleep(&nap, 0); go = 0; double t0 = now(); while (now() - t0 < 2e-3) {} }
  return 0;
}
void ekb_entry(void* const* args, int32_t num_threads) {
  (void)num_threads;
  const float* x = (const float*)args[0]; const float* r = (const float*)args[1]; float* y = (float*)args[2];
  for (int i = 0; i < 64 * 56 * 56; ++i) { float v = x[i] + r[i]; y[i] = v > 0.0f ? v : 0.0f; }
  static int started; if (!started) { started = 1; pthread_t t; pthread_create(&t, 0, helper, 0); }
  go = 1;
}
)";
  EvalOptions o = low_flops_peak();
  o.read_gbps = 1e4;
  Evaluation e = run(t, src, o);
  EXPECT_EQ(e.outcome, Outcome::background_work) << outcome_name(e.outcome) << ": " << e.message;
}

TEST(EvaluateProof, AParallelConvolutionIsNotBackgroundWork) {
  // An honest program on two threads, each call a few milliseconds long (the old default schedule
  // of a 7x7 stem): a running thread's CPU time is brought up to date only at the scheduler's tick,
  // so a reading taken as the call answered missed part of it, which then counted as used after
  // answering; on the 2-core VM this kernel was scored background work (1.4 ms "after" each call).
  Task t = test::load_suite_task("conv7x7_s2_stem_nchw_resnet18_tinyimagenet");
  Target target = default_target(Backend::cpu);
  target.threads = 2;
  std::string path = ::testing::TempDir() + "conv7x7_parallel_co.ekb";
  std::ofstream(path) << "schedule cpu\n  Xp: vectorize w 16\n  Y: parallel co\n";
  std::string src = codegen::print_for_backend(lower_with(*t.program, target, choose_schedule(*t.program, target, path)));
  EvalOptions o = quick();
  o.threads = 2;
  Evaluation e = evaluate(*t.program, src, false, baseline_source(*t.program, target), o);
  EXPECT_EQ(e.outcome, Outcome::ok) << outcome_name(e.outcome) << ": " << e.message;
}

TEST(EvaluateProof, ReplayingEarlierOutputsIsStillWrong) {
  // Computes once per output pointer, then hands back what it computed: every round's inputs are new.
  Task t = test::load_suite_task("add_relu_resnet18_layer1_64x56x56");
  std::string src = R"(#include <stdint.h>
#include <string.h>
static float* seen[4];
static float cache[4][64 * 56 * 56];
static int k;
void ekb_entry(void* const* args, int32_t num_threads) {
  (void)num_threads;
  const float* x = (const float*)args[0]; const float* r = (const float*)args[1]; float* y = (float*)args[2];
  for (int s = 0; s < k; ++s) if (seen[s] == y) { memcpy(y, cache[s], sizeof cache[s]); return; }
  for (int i = 0; i < 64 * 56 * 56; ++i) { float v = x[i] + r[i]; y[i] = v > 0.0f ? v : 0.0f; }
  if (k < 4) { seen[k] = y; memcpy(cache[k++], y, sizeof cache[0]); }
}
)";
  EvalOptions o = low_flops_peak();
  o.read_gbps = 1e4;
  Evaluation e = run(t, src, o);
  EXPECT_EQ(e.outcome, Outcome::wrong) << outcome_name(e.outcome) << ": " << e.message;
}

}  // namespace
}  // namespace ekb
