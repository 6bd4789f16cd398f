// Schedule fuzzing of the cpu backend: random schedules (tests/unit/schedule_gen.h) over four small
// kernels with awkward sizes (a matmul + relu, a padded 2-D convolution + bias + relu, a row softmax
// in four stages, a MobileNetV2-style block). Each schedule is checked by ekb; every schedule it
// accepts must compile, run and match the float64 reference. Seeds are fixed, so a failure repeats.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <set>

#include "cpu_test_util.h"
#include "ir/parser.h"
#include "loops/graph.h"
#include "schedule/apply.h"
#include "schedule_gen.h"

namespace ekb::test {
namespace {

using sgen::KernelSpec;

// ---- the kernels ----

KernelSpec matmul_spec() {
  KernelSpec k;
  k.name = "matmul_relu";
  k.text = R"(kernel fz_matmul_relu
  category gemm
  domain general
  dim M = 37, N = 41, K = 29
  in A : f32[M, K]
  in B : f32[K, N]
  out Y : f32[M, N]
  C[m, n] = sum(k) A[m, k] * B[k, n]
  Y[m, n] = max(C[m, n], 0.0)
)";
  k.inputs = {{"A", {37, 29}}, {"B", {29, 41}}};
  k.stages = {{"C", {{"m", 37}, {"n", 41}}, {{"k", 29}}, false, {"A", "B"}},
              {"Y", {{"m", 37}, {"n", 41}}, {}, true, {"C"}}};
  k.packable = {{"B", 1}, {"A", 1}, {"B", 0}};
  return k;
}

KernelSpec conv_spec() {
  KernelSpec k;
  k.name = "conv2d";
  k.text = R"(kernel fz_conv2d
  category conv
  domain vision
  dim N = 1, CI = 3, CO = 5, H = 13, W = 13, KH = 3, KW = 3
  in X : f32[N, CI, H, W]
  in Wt : f32[CO, CI, KH, KW] ~ normal(0, 0.3)
  in B : f32[CO]
  out Y : f32[N, CO, H, W]
  Xp[n, ci, h < H + 2, w < W + 2] = select(h >= 1 && h <= H && w >= 1 && w <= W, X[n, ci, h - 1, w - 1], 0.0)
  C[n, co, oh < H, ow < W] = sum(ci, kh, kw) Xp[n, ci, oh + kh, ow + kw] * Wt[co, ci, kh, kw]
  Y[n, co, oh, ow] = max(C[n, co, oh, ow] + B[co], 0.0)
)";
  k.inputs = {{"X", {1, 3, 13, 13}}, {"Wt", {5, 3, 3, 3}}, {"B", {5}}};
  k.stages = {{"Xp", {{"n", 1}, {"ci", 3}, {"h", 15}, {"w", 15}}, {}, false, {"X"}},
              {"C", {{"n", 1}, {"co", 5}, {"oh", 13}, {"ow", 13}}, {{"ci", 3}, {"kh", 3}, {"kw", 3}}, false, {"Xp", "Wt"}},
              {"Y", {{"n", 1}, {"co", 5}, {"oh", 13}, {"ow", 13}}, {}, true, {"C", "B"}}};
  k.packable = {{"Wt", 0}};
  return k;
}

KernelSpec softmax_spec() {
  KernelSpec k;
  k.name = "softmax";
  k.text = R"(kernel fz_softmax
  category normalization
  domain language
  dim R = 7, C = 50
  in X : f32[R, C] ~ normal(0, 2)
  out Y : f32[R, C]
  M[r] = max(c) X[r, c]
  E[r, c] = exp(X[r, c] - M[r])
  S[r] = sum(c) E[r, c]
  Y[r, c] = E[r, c] / S[r]
)";
  k.inputs = {{"X", {7, 50}}};
  k.stages = {{"M", {{"r", 7}}, {{"c", 50}}, false, {"X"}},
              {"E", {{"r", 7}, {"c", 50}}, {}, false, {"X", "M"}},
              {"S", {{"r", 7}}, {{"c", 50}}, false, {"E"}},
              {"Y", {{"r", 7}, {"c", 50}}, {}, true, {"E", "S"}}};
  k.packable = {{"X", 1}};
  return k;
}

// Pointwise expand (+ relu6 folded into the padded copy), depthwise 3x3, pointwise project, residual.
KernelSpec mbv2_spec() {
  KernelSpec k;
  k.name = "mbv2_block";
  k.text = R"(kernel fz_mbv2_block
  category conv
  domain vision
  dim C = 8, CE = 20, H = 6, W = 7
  in X : f32[C, H, W]
  in W1 : f32[CE, C] ~ normal(0, 0.4)
  in Wd : f32[CE, 3, 3] ~ normal(0, 0.4)
  in W2 : f32[C, CE] ~ normal(0, 0.3)
  out Y : f32[C, H, W]
  E[e, h, w] = sum(c) W1[e, c] * X[c, h, w]
  Ep[e, h < H + 2, w < W + 2] = select(h >= 1 && h <= H && w >= 1 && w <= W, clamp(E[e, h - 1, w - 1], 0.0, 6.0), 0.0)
  D[e, h < H, w < W] = sum(kh < 3, kw < 3) Ep[e, h + kh, w + kw] * Wd[e, kh, kw]
  P[o, h, w] = sum(e) W2[o, e] * clamp(D[e, h, w], 0.0, 6.0)
  Y[o, h, w] = P[o, h, w] + X[o, h, w]
)";
  k.inputs = {{"X", {8, 6, 7}}, {"W1", {20, 8}}, {"Wd", {20, 3, 3}}, {"W2", {8, 20}}};
  k.stages = {{"E", {{"e", 20}, {"h", 6}, {"w", 7}}, {{"c", 8}}, false, {"W1", "X"}},
              {"Ep", {{"e", 20}, {"h", 8}, {"w", 9}}, {}, false, {"E"}},
              {"D", {{"e", 20}, {"h", 6}, {"w", 7}}, {{"kh", 3}, {"kw", 3}}, false, {"Ep", "Wd"}},
              {"P", {{"o", 8}, {"h", 6}, {"w", 7}}, {{"e", 20}}, false, {"W2", "D"}},
              {"Y", {{"o", 8}, {"h", 6}, {"w", 7}}, {}, true, {"P", "X"}}};
  k.packable = {{"W1", 0}, {"W2", 1}};
  return k;
}

// ---- checking and running one schedule ----

// `ekb check` of the sections alone: the rendered errors, empty when the schedule is accepted.
std::string check_schedule(const Program& p, const std::string& text) {
  auto src = std::make_shared<SourceFile>("schedule.ekb", text);
  DiagnosticList d;
  Module m = parse_module(src, d);
  if (!d.has_errors()) {
    const Section *l1 = nullptr, *l2 = nullptr;
    for (const auto& s : m.sections)
      if (s.backend == "cpu") (s.layer == Layer::schedule ? l1 : l2) = &s;
    lower::Graph g = lower::build_graph(p);
    apply_schedule(p, g, default_target(Backend::cpu), l1, l2, d, src);
  }
  return d.has_errors() ? d.render_all() : std::string();
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// Runs `fn` in a child process, so that a crash or a hang (in lowering or in the generated kernel)
// is reported for its schedule instead of taking the whole test down. Returns what `fn` returned,
// or "CRASH ..." / "HANG ...".
std::string run_in_child(const std::function<std::string()>& fn, double timeout_s) {
  int fds[2];
  if (pipe(fds) != 0) return "ERROR\npipe failed";
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) return "ERROR\nfork failed";
  if (pid == 0) {
    close(fds[0]);
    std::string s;
    try {
      s = fn();
    } catch (const std::exception& e) {
      s = std::string("ERROR\n") + e.what();
    } catch (...) {
      s = "ERROR\nan unknown exception";
    }
    for (size_t done = 0; done < s.size();) {
      ssize_t n = write(fds[1], s.data() + done, s.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  bool timed_out = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    int r = poll(&pfd, 1, static_cast<int>(left));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) {
      timed_out = true;
      break;
    }
    char buf[4096];
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (timed_out) return fmt::format("HANG\nno result after {:.0f} s", timeout_s);
  if (WIFSIGNALED(status)) return fmt::format("CRASH\nsignal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  if (out.empty()) return fmt::format("CRASH\nthe child exited with status {} and no result", WEXITSTATUS(status));
  return out;
}

enum class Outcome { rejected, rejected_at_lowering, passed, failed };

struct Result {
  Outcome outcome;
  std::string detail;  // the errors, the comparison report, or what went wrong
  double seconds = 0;
};

// Checks `text`; when ekb accepts it, compiles, runs and compares it (in a child process).
Result run_schedule(const Program& p, const std::string& text, double timeout_s = 60) {
  auto t0 = std::chrono::steady_clock::now();
  Result r{Outcome::rejected, check_schedule(p, text)};
  if (r.detail.empty()) {
    std::string out = run_in_child(
        [&] {
          try {
            CpuCheck c = check_on_cpu(p, text, 2);
            return std::string(c.pass ? "PASS\n" : "WRONG\n") + c.report;
          } catch (const DiagnosticError& e) {
            // Checked sections that lowering still rejects (a pad split of an output, a local
            // buffer too big).
            return "LOWERREJECT\n" + e.diagnostics().render_all();
          }
        },
        timeout_s);
    std::string kind = first_line(out);
    r.detail = out.substr(std::min(out.size(), kind.size() + 1));
    r.outcome = kind == "PASS" ? Outcome::passed : kind == "LOWERREJECT" ? Outcome::rejected_at_lowering : Outcome::failed;
    if (r.outcome == Outcome::failed && kind != "WRONG") r.detail = kind + ": " + r.detail;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

struct KernelCounts {
  int accepted = 0, rejected = 0, rejected_at_lowering = 0, passed = 0, failed = 0;
  int mutations = 0, mutations_rejected = 0;
  double seconds = 0;
};

// Schedules per kernel in CI; EKB_SFUZZ_COUNT=N (and EKB_SFUZZ_SEED=S for other seeds) runs a longer
// or different sweep by hand.
int schedules_per_kernel() {
  const char* n = std::getenv("EKB_SFUZZ_COUNT");
  return n ? std::max(1, std::atoi(n)) : 75;
}
uint64_t seed_base() {
  const char* s = std::getenv("EKB_SFUZZ_SEED");
  return s ? std::strtoull(s, nullptr, 10) : 1000;
}

TEST(ScheduleFuzz, RandomLegalSchedulesMatchReference) {
  auto t0 = std::chrono::steady_clock::now();
  shared_compiler();  // made once here, inherited by every child
  std::vector<KernelSpec> kernels = {matmul_spec(), conv_spec(), softmax_spec(), mbv2_spec()};
  std::map<std::string, KernelCounts> counts;
  sgen::GenStats stats;
  int total_accepted = 0, total_rejected = 0, total_failed = 0;
  std::vector<std::pair<double, std::string>> slowest;
  for (size_t ki = 0; ki < kernels.size(); ++ki) {
    const KernelSpec& k = kernels[ki];
    std::shared_ptr<Program> p = valid(k.text);
    ASSERT_TRUE(p) << k.name;
    KernelCounts& kc = counts[k.name];
    int logged = 0;
    for (int i = 0, n = schedules_per_kernel(); i < n; ++i) {
      uint64_t seed = seed_base() * (ki + 1) + i;
      sgen::Generated g = sgen::Generator(k, seed).generate(&stats);
      if (g.text.empty()) continue;
      if (std::getenv("EKB_SFUZZ_VERBOSE"))
        std::printf("---- %s seed %llu\n%s", k.name.c_str(), static_cast<unsigned long long>(seed), g.text.c_str());
      Result r = run_schedule(*p, g.text);
      slowest.push_back({r.seconds, fmt::format("{} seed {}", k.name, seed)});
      kc.seconds += r.seconds;
      if (!g.mutation.empty()) ++kc.mutations;
      bool rejected = r.outcome == Outcome::rejected || r.outcome == Outcome::rejected_at_lowering;
      if (rejected) {
        ++kc.rejected;
        kc.rejected_at_lowering += r.outcome == Outcome::rejected_at_lowering;
        kc.mutations_rejected += !g.mutation.empty();
        if (logged < 3 && g.mutation.empty()) {
          ++logged;
          std::printf("[%s seed %llu] rejected%s: %s\n", k.name.c_str(), static_cast<unsigned long long>(seed),
                      r.outcome == Outcome::rejected_at_lowering ? " at lowering" : "", first_line(r.detail).c_str());
        }
      } else {
        ++kc.accepted;
        if (r.outcome == Outcome::passed) ++kc.passed;
        else ++kc.failed;
        EXPECT_TRUE(r.outcome == Outcome::passed) << "kernel " << k.name << " (seed " << seed
                                              << "): an accepted schedule fails\n"
                                              << g.text << "result: " << r.detail;
        if (!g.mutation.empty())
          std::printf("[%s seed %llu] note: the deliberately illegal `%s` was accepted\n", k.name.c_str(),
                      static_cast<unsigned long long>(seed), g.mutation.c_str());
      }
    }
    total_accepted += kc.accepted;
    total_rejected += kc.rejected;
    total_failed += kc.failed;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::sort(slowest.rbegin(), slowest.rend());
  std::printf("schedule fuzz: %.1f s; slowest:", secs);
  for (size_t i = 0; i < std::min<size_t>(3, slowest.size()); ++i)
    std::printf(" %s (%.2f s)%s", slowest[i].second.c_str(), slowest[i].first, i < 2 ? "," : "\n");
  for (const auto& [name, c] : counts)
    std::printf("  %-12s accepted %3d (passed %3d, failed %d)  rejected %3d (at lowering %d; deliberate mutations %d of %d)  %.1f s\n",
                name.c_str(), c.accepted, c.passed, c.failed, c.rejected, c.rejected_at_lowering, c.mutations_rejected,
                c.mutations, c.seconds);
  std::printf("  directives in the schedules:");
  for (const auto& [d, n] : stats.directives) std::printf(" %s=%d", d.c_str(), n);
  std::printf("\n");

  EXPECT_GE(total_accepted, 200);
  for (const auto& [name, c] : counts) EXPECT_GE(c.accepted, 40) << name;
  EXPECT_EQ(total_failed, 0) << "accepted schedules that failed (see the failures above)";
  EXPECT_LE(total_rejected, 0.4 * (total_accepted + total_rejected)) << "the generator makes too many illegal schedules";
}


// ---- the bugs the fuzzer found, minimised: each must be rejected by the checker or run correctly ----

void expect_rejected_or_correct(const std::string& kernel_text, const std::string& schedule, double timeout_s = 60) {
  std::shared_ptr<Program> p = valid(kernel_text);
  ASSERT_TRUE(p);
  Result r = run_schedule(*p, schedule, timeout_s);
  EXPECT_TRUE(r.outcome != Outcome::failed) << "an accepted schedule fails\n" << schedule << "result: " << r.detail;
}

// A schedule that would change results: the checker must reject it, saying why.
void expect_rejected_with(const std::string& kernel_text, const std::string& schedule, const std::string& reason) {
  std::shared_ptr<Program> p = valid(kernel_text);
  ASSERT_TRUE(p);
  std::string errors = check_schedule(*p, schedule);
  EXPECT_NE(errors.find(reason), std::string::npos) << "expected a rejection saying \"" << reason << "\" for\n"
                                                    << schedule << "got: " << (errors.empty() ? "accepted" : errors);
  EXPECT_NE(errors.find("fix:"), std::string::npos) << errors;
}

const char* kSmallMatmul = R"(kernel r_matmul
  category gemm
  domain general
  dim M = 6, N = 5, K = 7
  in A : f32[M, K]
  in B : f32[K, N]
  out C : f32[M, N]
  C[m, n] = sum(k) A[m, k] * B[k, n]
)";

// Bug 1: the shifted last piece of `m` is recomputed inside the reduction loop `k`, so its terms are
// added twice (C comes out doubled in the overlap rows).
TEST(ScheduleFuzzRepro, ShiftInsideReductionLoop) {
  expect_rejected_with(kSmallMatmul, "schedule cpu\n  C: reorder k m; split m 4 shift -> mo mi\n",
                       "its reduction loop `k` runs outside `mo`");
}

// Bug 1, with the initialisation moved out by decompose_reduction instead of a reorder.
TEST(ScheduleFuzzRepro, ShiftInsideDecomposedInit) {
  expect_rejected_with(kSmallMatmul, "schedule cpu\n  C: split n 2 shift -> no ni\n\nmemory cpu\n  C: decompose_reduction m\n",
                       "the reduction is initialised at `m`, outside `no`");
}

// Bug 2: rfactor keeps the fuse of the other reduction variables in the stage it leaves (whose
// reduction is now only `a`); lowering dereferences their missing extents (segfault).
TEST(ScheduleFuzzRepro, RfactorWithOtherReductionAxesFused) {
  expect_rejected_or_correct(R"(kernel r_sum3
  category reduction
  domain general
  dim R = 4
  in X : f32[R, 3, 4, 5]
  out Y : f32[R]
  Y[r] = sum(a < 3, b < 4, c < 5) X[r, a, b, c]
)",
                             "schedule cpu\n  Y: fuse b c -> f\n\nmemory cpu\n  Y: rfactor a -> Yf\n");
}

const char* kRowSum = R"(kernel r_rowsum
  category reduction
  domain general
  dim R = 3, C = 10
  in X : f32[R, C]
  out Y : f32[R]
  S[r] = sum(c) X[r, c]
  Y[r] = S[r] * 2.0
)";

// Bug 3: cache_write keeps the relation `split ci -> a b` (none of whose names is still a loop) in
// the stage that becomes the copy; lowering dereferences the missing extent of `ci` (segfault).
TEST(ScheduleFuzzRepro, CacheWriteAfterSplitOfReductionPieces) {
  expect_rejected_or_correct(kRowSum,
                             "schedule cpu\n  S: split c 8 -> co ci; split ci 4 -> a b; fuse a b -> f\n\n"
                             "memory cpu\n  S: cache_write global -> Sw\n");
}

// Bug 4: P is computed at Y's loop j over a region whose extent varies (min(1, j)); the pad piece
// `ii` fused with `j` makes the padded stores unboundable, the buffer gets P's region size 1x1 and
// the 16 padded rows are written past it (stack overflow, wrong results).
TEST(ScheduleFuzzRepro, FusedPadPieceOverflowsComputeAtBuffer) {
  expect_rejected_or_correct(R"(kernel r_pad_fuse
  category elementwise
  domain general
  dim I = 20, J = 6
  in X : f32[I, J]
  out Y : f32[I, J]
  P[i, j] = X[i, j] * 2.0
  Y[i, j] = select(j >= 1, P[i, j - 1], 0.0)
)",
                             "schedule cpu\n  P: split i 16 pad -> io ii; fuse ii j -> f\n\nmemory cpu\n  P: compute_at Y j\n");
}

// Bug 6: S is computed inside Y's parallel loop `c` but stored at `r`, outside it: the threads
// initialise and accumulate one shared S at once. (A race: failed in most runs; now rejected.)
TEST(ScheduleFuzzRepro, StoreAtOutsideParallelLoopRaces) {
  expect_rejected_with(R"(kernel r_store_race
  category normalization
  domain general
  dim R = 2, C = 8, J = 20000
  in X : f32[R, C, J]
  out Y : f32[R, C, J]
  S[r, j] = sum(c) X[r, c, j]
  Y[r, c, j] = X[r, c, j] / (S[r, j] * S[r, j] + 1.0)
)",
                                    "schedule cpu\n  Y: parallel c\n\nmemory cpu\n  S: compute_at Y c\n  S: store_at Y r\n",
                       "computed inside its parallel loop `c`");
}

// Bug 7: the shifted pieces of `e` and `w` overlap (w = 3 is in both iterations of the parallel
// loop `wo`): two threads initialise and accumulate the same elements of D at once. (A race: fails
// in most runs.)
TEST(ScheduleFuzzRepro, ParallelShiftedReductionRaces) {
  expect_rejected_with(R"(kernel r_shift_race
  category conv
  domain general
  dim E = 400, H = 6, W = 7
  in X : f32[E, H + 2, W + 2]
  in Wd : f32[E, 3, 3]
  out D : f32[E, H, W]
  D[e, h, w] = sum(kh < 3, kw < 3) X[e, h + kh, w + kw] * Wd[e, kh, kw]
)",
                                    "schedule cpu\n  D: tile e w 16 4 shift -> eo wo ei wi; parallel wo; vectorize wi\n",
                       "`wo` is parallel, so two threads would initialise and accumulate");
}

// Found after the fixes above: E is padded (split e 16 pad) and computed inside Epcw over a region
// whose size varies; the buffer fell back to E's domain, and the padded rows were written past it
// (segfault). The fallback now adds the padding.
TEST(ScheduleFuzzRepro, PaddedStageInVaryingRegionFallsBackToPaddedDomain) {
  expect_rejected_or_correct(mbv2_spec().text,
                             "schedule cpu\n"
                             "  E: unroll h 2; split e 16 pad -> eo1 ei2; parallel eo1; fuse ei2 h_o -> f3; tile c w 5 5 guard -> co4 wo5 ci6 wi7\n"
                             "  D: fuse h w -> f8\n"
                             "  Y: vectorize w 4\n\n"
                             "memory cpu\n"
                             "  P: inline\n"
                             "  Ep: cache_write global at w -> Epcw\n"
                             "  E: compute_at Epcw h\n");
}

// Found after the fixes above: `pad` on `mi4`, an inner piece of `m`, ran its overhang into the next
// `mo2` iteration; with the reduction loops outside, those rows were accumulated twice. Now rejected.
TEST(ScheduleFuzzRepro, PadOfInnerPieceRejected) {
  expect_rejected_with(kSmallMatmul, "schedule cpu\n  C: tile k m 5 4 -> ko mo ki mi; split mi 3 pad -> mio mii\n",
                       "`pad` would run `mi`, an inner piece of a split, into the next iteration");
}

// Bug 5: lowering did not finish (minutes in simplify) for a fused pad piece in a chain of
// compute_at stages; every directive is needed.
TEST(ScheduleFuzzRepro, LoweringHangsOnNestedFusedPadPiece) {
  expect_rejected_or_correct(mbv2_spec().text,
                             "schedule cpu\n"
                             "  E: split w 3 guard -> wo2 wi3\n"
                             "  Ep: split w 8 pad -> wo4 wi5; split wi5 3 shift -> wi5o6 wi5i7; reorder wi5i7 e; fuse wi5i7 h -> f8\n"
                             "  Ecr: split ax0 8 shift -> ax0o11 ax0i12; vectorize ax0o11 8\n\n"
                             "memory cpu\n"
                             "  Ep: cache_read E global at f8 -> Ecr\n"
                             "  Ep: compute_at D kw\n"
                             "  E: compute_at Ecr ax0o11\n",
                             10);
}

// ---- recurrences (docs/ir.md "Recurrences") ----

// An exponential smoothing per (b, c), each an independent sequence along t; a recurrent layer whose
// step reads every k of the step before (k is not local) and a reduction over c; an element-wise
// reader of both.
const char* kRecurrences = R"(kernel fz_recurrences
  category recurrent
  domain sensors
  dim B = 3, T = 23, C = 13, K = 5
  in X : f32[B, T, C]
  in W : f32[C, K] ~ normal(0, 0.3)
  in A : f32[C] ~ uniform(0.2, 0.9)
  out Y : f32[B, T, C]
  E[b, t, c] = scan(t) select(t >= 1, A[c] * E[b, t - 1, c], 0.0) + (1.0 - A[c]) * X[b, t, c]
  Z[b, t, k] = scan(t) tanh((sum(c) W[c, k] * E[b, t, c]) + select(t >= 1, 0.2 * sum(k2 < K) Z[b, t - 1, k2], 0.0))
  Y[b, t, c] = E[b, t, c] * 2.0 + Z[b, t, c % K]
)";

struct RecurrenceStage {
  std::string name;
  std::vector<std::pair<std::string, int64_t>> vars;  // pure, in order
  std::vector<std::pair<std::string, int64_t>> rvars;
  std::string scan;                                   // empty: not a recurrence
  std::set<std::string> inner;                        // pure variables that read each other's steps
};

// One random schedule for the recurrences' stages: legal by construction (steps in order, serial or
// unrolled; points that read each other and reductions inside the steps), unless `mutation` asks
// for one illegal directive, which ekb must reject.
struct RecurrenceSchedule {
  std::string text, mutation;
};

RecurrenceSchedule recurrence_schedule(uint64_t seed) {
  sgen::Rng r(seed);
  std::vector<RecurrenceStage> stages = {
      {"E", {{"b", 3}, {"t", 23}, {"c", 13}}, {}, "t", {}},
      {"Z", {{"b", 3}, {"t", 23}, {"k", 5}}, {}, "t", {"k"}},  // (its sums are inside its expression)
      {"Y", {{"b", 3}, {"t", 23}, {"c", 13}}, {}, "", {}},
  };
  int mutate = r.chance(0.3) ? r.below(4) : -1;
  int mutate_stage = r.below(2);  // E or Z
  RecurrenceSchedule out;
  std::vector<std::string> l1, l2;
  for (size_t si = 0; si < stages.size(); ++si) {
    const RecurrenceStage& st = stages[si];
    enum Role { step, local, inner };
    struct Loop {
      std::string name;
      Role role;
      int64_t ext;
      bool red;
    };
    std::vector<std::string> dirs;
    std::vector<Loop> steps, others;
    for (const auto& [v, e] : st.vars) {
      Role role = v == st.scan ? step : st.inner.count(v) ? inner : local;
      if (role == step && r.chance(0.5)) {
        int64_t f = 3 + r.below(3);
        const char* tail = r.pick(std::vector<const char*>{"guard", "guard", "shift"});
        dirs.push_back(fmt::format("split {} {} {} -> {}o {}i", v, f, tail, v, v));
        steps.push_back({v + "o", step, (e + f - 1) / f, false});
        steps.push_back({v + "i", step, f, false});
      } else if (role == step) {
        steps.push_back({v, step, e, false});
      } else if (e >= 8 && r.chance(0.4)) {
        dirs.push_back(fmt::format("split {} 4 -> {}o {}i", v, v, v));
        others.push_back({v + "o", role, (e + 3) / 4, false});
        others.push_back({v + "i", role, 4, false});
      } else {
        others.push_back({v, role, e, false});
      }
    }
    for (const auto& [v, e] : st.rvars) others.push_back({v, inner, e, true});
    // An order: the steps in sequence, local loops anywhere, the others after the last step.
    std::vector<Loop> order = steps;
    r.shuffle(others);
    for (const Loop& l : others) {
      size_t lo = 0;
      if (l.role == inner && !st.scan.empty())
        for (size_t i = 0; i < order.size(); ++i)
          if (order[i].role == step) lo = i + 1;
      size_t at = lo + static_cast<size_t>(r.below(order.size() - lo + 1));
      order.insert(order.begin() + static_cast<std::ptrdiff_t>(at), l);
    }
    bool mutating = !st.scan.empty() && static_cast<int>(si) == mutate_stage && mutate >= 0;
    if (mutating && mutate == 1) {  // a loop over points that read each other, outside the steps
      for (size_t i = 0; i < order.size(); ++i)
        if (order[i].role == inner) {
          Loop l = order[i];
          order.erase(order.begin() + static_cast<std::ptrdiff_t>(i));
          order.insert(order.begin(), l);
          out.mutation = fmt::format("{}: {} outside the steps", st.name, l.name);
          break;
        }
    }
    if (mutating && mutate == 2 && steps.size() == 2) {  // the pieces of the steps swapped
      auto a = std::find_if(order.begin(), order.end(), [&](const Loop& l) { return l.name == steps[0].name; });
      auto b = std::find_if(order.begin(), order.end(), [&](const Loop& l) { return l.name == steps[1].name; });
      std::iter_swap(a, b);
      out.mutation = fmt::format("{}: {} outside {}", st.name, steps[1].name, steps[0].name);
    }
    std::vector<std::string> names;
    for (const Loop& l : order) names.push_back(l.name);
    if (names.size() >= 2) dirs.push_back(fmt::format("reorder {}", fmt::join(names, " ")));
    // parallel: a pure loop that is not a step, outside every reduction loop
    std::vector<std::string> par;
    for (const Loop& l : order) {
      if (l.red) break;
      if (l.role != step) par.push_back(l.name);
    }
    std::string parallel = !par.empty() && r.chance(0.5) ? r.pick(par) : "";
    if (!parallel.empty()) dirs.push_back("parallel " + parallel);
    if (!order.back().red && order.back().role != step && order.back().name != parallel && r.chance(0.5))
      dirs.push_back(fmt::format("vectorize {} 4", order.back().name));
    if (steps.size() == 2 && r.chance(0.4)) dirs.push_back("unroll " + steps[1].name);
    if (mutating && mutate == 0) {
      dirs.push_back("parallel " + steps[0].name);
      out.mutation = fmt::format("{}: parallel {}", st.name, steps[0].name);
    }
    if (mutating && mutate == 3) {
      l2.push_back(fmt::format("  {}: compute_at Y b", st.name));
      out.mutation = fmt::format("{}: compute_at", st.name);
    }
    if (!dirs.empty()) l1.push_back(fmt::format("  {}: {}", st.name, fmt::join(dirs, "; ")));
  }
  if (!l1.empty()) out.text += fmt::format("schedule cpu\n{}\n", fmt::join(l1, "\n"));
  if (!l2.empty()) out.text += fmt::format("\nmemory cpu\n{}\n", fmt::join(l2, "\n"));
  if (out.text.empty()) out.mutation.clear();
  return out;
}

TEST(ScheduleFuzz, RandomRecurrenceSchedulesMatchReferenceAndIllegalOnesAreRejected) {
  shared_compiler();
  std::shared_ptr<Program> p = valid(kRecurrences);
  ASSERT_TRUE(p);
  int accepted = 0, rejected = 0, mutations = 0;
  for (int i = 0, n = schedules_per_kernel() / 2; i < n; ++i) {
    uint64_t seed = seed_base() * 7 + i;
    RecurrenceSchedule g = recurrence_schedule(seed);
    if (g.text.empty()) continue;
    Result res = run_schedule(*p, g.text);
    bool was_rejected = res.outcome == Outcome::rejected || res.outcome == Outcome::rejected_at_lowering;
    if (!g.mutation.empty()) {
      ++mutations;
      EXPECT_EQ(res.outcome, Outcome::rejected) << "seed " << seed << ": the illegal `" << g.mutation << "` was accepted\n"
                                                << g.text << "result: " << res.detail;
      continue;
    }
    if (was_rejected) {
      ++rejected;
      std::printf("[recurrences seed %llu] rejected: %s\n", static_cast<unsigned long long>(seed), first_line(res.detail).c_str());
      continue;
    }
    ++accepted;
    EXPECT_EQ(res.outcome, Outcome::passed) << "seed " << seed << ": an accepted schedule fails\n" << g.text << "result: "
                                            << res.detail;
  }
  std::printf("recurrence schedules: accepted %d, rejected %d, deliberate mutations %d (all must be rejected)\n", accepted,
              rejected, mutations);
  EXPECT_GE(accepted, 15);
  EXPECT_GE(mutations, 5);
  EXPECT_LE(rejected, accepted / 4) << "the generator makes too many schedules ekb rejects for other reasons";
}

// The default schedules of the recurrences (parallel local points, vectorized inner points) and
// plain loops.
TEST(ScheduleFuzz, RecurrencesMatchReferenceWithDefaultAndPlainSchedules) {
  std::shared_ptr<Program> p = valid(kRecurrences);
  ASSERT_TRUE(p);
  for (const char* schedule : {"default", "none"}) {
    CpuCheck c = check_on_cpu(*p, schedule, 2);
    EXPECT_TRUE(c.pass) << schedule << ": " << c.report;
  }
}

}  // namespace
}  // namespace ekb::test
