// Suite loading (workload instantiation), figures from L0, and the degeneracy rules.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "suite/degenerate.h"
#include "suite/figures.h"
#include "suite/suite.h"
#include "test_util.h"

namespace ekb::test {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("ekb-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  static int& counter() {
    static int c = 0;
    return c;
  }
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories((path / rel).parent_path());
    std::ofstream(path / rel) << text;
  }
};

const char* kScale =
    "# scale and bias\nkernel scale_bias\n  category broadcast\n  domain general\n  dim N = 4, C = 8\n  in X : f32[N, C]\n"
    "  in S : f32[C] ~ positive(0.5, 2)\n  out Y : f32[N, C]\n  Y[n, c] = X[n, c] * S[c]\n\nworkloads\n"
    "  sb_small: N = 16, C = 32\n  sb_kws: N = 49, C = 64, domain = audio\n";

TEST(Suite, WorkloadsBecomeTasksWithTheirDimsAndDomain) {
  TempDir d;
  d.write("suite/broadcast/scale_bias.ekb", kScale);
  Suite s = Suite::load(d.path / "suite");
  ASSERT_EQ(s.tasks().size(), 2u);
  const Task* t = s.find("sb_kws");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->pattern, "scale_bias");
  EXPECT_EQ(t->domain, "audio");
  EXPECT_EQ(t->category, "broadcast");
  EXPECT_EQ(t->program->tensors[0].shape, (std::vector<int64_t>{49, 64}));
  EXPECT_NE(t->text.find("kernel sb_kws\n  pattern scale_bias\n"), std::string::npos) << t->text;
  EXPECT_NE(t->text.find("dim N = 49, C = 64"), std::string::npos) << t->text;
  EXPECT_EQ(t->text.find("workloads"), std::string::npos);
}

TEST(Suite, RejectsBadTasksNamingTheWorkload) {
  TempDir d;
  // A workload whose dims make a read go out of range.
  d.write("suite/x/window.ekb",
          "kernel window\n  category signal\n  domain sensors\n  dim N = 8, K = 3\n  in X : f32[N]\n  out Y : f32[N - K + 1]\n"
          "  Y[i] = sum(k < 3) X[i + k]\n\nworkloads\n  ok: N = 8, K = 3\n  bad: N = 8, K = 2\n");
  d.write("suite/x/nometa.ekb", "kernel nometa\n  in X : f32[4]\n  out Y : f32[4]\n  Y[i] = X[i]\n");
  try {
    Suite::load(d.path / "suite");
    FAIL() << "expected errors";
  } catch (const DiagnosticError& e) {
    std::string r = e.what();
    EXPECT_NE(r.find("bad (workload of suite/x/window.ekb):8:21: error: `X[i + k]` can read index 8"), std::string::npos) << r;
    EXPECT_NE(r.find("suite task `nometa` has no category"), std::string::npos) << r;
  }
}

TEST(Suite, RejectsDuplicateTaskNames) {
  TempDir d;
  d.write("suite/a.ekb", kScale);
  d.write("suite/b.ekb", kScale);
  try {
    Suite::load(d.path / "suite");
    FAIL() << "expected errors";
  } catch (const DiagnosticError& e) {
    EXPECT_NE(std::string(e.what()).find("is used twice"), std::string::npos) << e.what();
  }
}

TEST(Figures, MatmulFlopsAndBytes) {
  auto p = valid("kernel mm\n  dim M = 8, N = 4, K = 16\n  in A : f32[M, K]\n  in B : f16[K, N]\n  out C : f32[M, N]\n"
                 "  C[m, n] = sum(k) A[m, k] * B[k, n]\n");
  ASSERT_TRUE(p);
  Figures f = compute_figures(*p);
  EXPECT_EQ(f.flops, 2.0 * 8 * 4 * 16);
  EXPECT_EQ(f.bytes, 8 * 16 * 4 + 16 * 4 * 2 + 8 * 4 * 4);
  EXPECT_EQ(f.stages, 1);
}

TEST(Figures, AGatheredInputCountsNothingAndADirectlyReadOneCountsWhole) {
  // Y reads 8 rows of the 1000-row table through the indices: the table need not be read whole (the
  // indices may all name one row), so the stated bytes count only the indices and the output.
  auto p = valid("kernel g\n  dim N = 8, V = 1000, D = 16\n  in T : f32[V, D]\n  in I : i32[N] ~ int(0, 999)\n"
                 "  out Y : f32[N, D]\n  Y[n, d] = T[I[n], d]\n");
  ASSERT_TRUE(p);
  EXPECT_EQ(compute_figures(*p).bytes, 8 * 4 + 8 * 16 * 4);
  // Read directly as well: the whole table counts.
  auto q = valid("kernel g\n  dim N = 8, V = 1000, D = 16\n  in T : f32[V, D]\n  in I : i32[N] ~ int(0, 999)\n"
                 "  out Y : f32[N, D]\n  Y[n, d] = T[I[n], d] + T[n, d]\n");
  ASSERT_TRUE(q);
  EXPECT_EQ(compute_figures(*q).bytes, 1000 * 16 * 4 + 8 * 4 + 8 * 16 * 4);
}

TEST(Figures, CountingRules) {
  // select counts its larger branch; casts, reads and index arithmetic count nothing.
  auto p = valid("kernel k\n  dim N = 10\n  in X : f32[N]\n  out Y : f32[N]\n  out Q : i8[N]\n"
                 "  Y[i] = select(i > 0, exp(X[i - 1]) * 2.0, X[i])\n  Q[i] = i8(clamp(X[i], -1.0, 1.0))\n");
  ASSERT_TRUE(p);
  EXPECT_EQ(compute_figures(*p).flops, 10 * (1 + 2) + 10 * 2);
}

TEST(Degenerate, SoundTaskPasses) {
  auto p = valid("kernel ok\n  dim N = 32\n  in X : f32[N]\n  in W : f32[N]\n  out Y : f32[]\n  Y = sum(i) X[i] * W[i]\n");
  ASSERT_TRUE(p);
  auto r = check_degenerate(*p, false);
  EXPECT_TRUE(r.ok()) << r.problems.front();
}

TEST(Degenerate, CatchesEachKind) {
  auto problems = [](const std::string& text) {
    auto p = valid(text);
    return p ? check_degenerate(*p, false).problems : std::vector<std::string>{"invalid"};
  };
  auto has = [](const std::vector<std::string>& v, const std::string& needle) {
    for (const auto& s : v)
      if (s.find(needle) != std::string::npos) return true;
    return false;
  };
  // ReLU of always-negative inputs: constant zero.
  auto a = problems("kernel k\n  in X : f32[16] ~ uniform(-2, -1)\n  out Y : f32[16]\n  Y[i] = max(X[i], 0.0)\n");
  EXPECT_TRUE(has(a, "is constant")) << a.size();
  EXPECT_TRUE(has(a, "near zero everywhere"));
  // An input that cannot affect the output.
  auto b = problems("kernel k\n  in X : f32[16]\n  in Z : f32[16] ~ uniform(1, 2)\n  out Y : f32[16]\n  Y[i] = X[i] + min(Z[i], 0.0)\n");
  EXPECT_TRUE(has(b, "do not depend on input `Z`"));
  // NaN on finite inputs.
  auto c = problems("kernel k\n  in X : f32[16] ~ uniform(-2, -1)\n  out Y : f32[16]\n  Y[i] = sqrt(X[i])\n");
  EXPECT_TRUE(has(c, "on finite inputs"));
  // Outputs that do not change with the seed at all.
  auto d = problems("kernel k\n  in X : f32[16]\n  out Y : f32[16]\n  Y[i] = X[i] * 0.0 + i\n");
  EXPECT_TRUE(has(d, "same for two different input seeds"));
}

std::vector<std::string> degeneracy_problems(const std::string& text) {
  auto p = valid(text);
  return p ? check_degenerate(*p, false).problems : std::vector<std::string>{"invalid"};
}
bool mentions(const std::vector<std::string>& v, const std::string& needle) {
  for (const auto& s : v)
    if (s.find(needle) != std::string::npos) return true;
  return false;
}

// Choices on the inputs' values must go both ways on the three input sets: a clamp that never
// clamps, one that always does, a select whose condition never changes, a max that always takes the
// same operand are degenerate; a choice on indices alone (a border the sizes never reach) is not.
TEST(Degenerate, ChoicesThatNeverGoBothWaysAreCaught) {
  auto clamp_never = degeneracy_problems(
      "kernel k\n  in X : f32[64] ~ uniform(-1, 1)\n  out Y : f32[64]\n  Y[i] = clamp(X[i], -6.0, 6.0)\n");
  EXPECT_TRUE(mentions(clamp_never, "never clamps")) << clamp_never.size();
  EXPECT_TRUE(mentions(clamp_never, ":4:")) << "the problem names the line";
  auto clamp_always = degeneracy_problems(
      "kernel k\n  in X : f32[64] ~ uniform(2, 3)\n  in Z : f32[64]\n  out Y : f32[64]\n  Y[i] = clamp(X[i], 0.0, 1.0) + Z[i]\n");
  EXPECT_TRUE(mentions(clamp_always, "always clamps"));
  auto select_one = degeneracy_problems(
      "kernel k\n  in X : f32[64] ~ uniform(0.5, 2)\n  out Y : f32[64]\n  Y[i] = select(X[i] > 0.0, X[i] * 2.0, -X[i])\n");
  EXPECT_TRUE(mentions(select_one, "always takes its first branch"));
  auto max_one = degeneracy_problems(
      "kernel k\n  in X : f32[64] ~ positive(1, 10)\n  out Y : f32[64]\n  Y[i] = log(max(X[i], 1e-6))\n");
  EXPECT_TRUE(mentions(max_one, "always takes its first operand"));
  // Both ways: no problem. A border clamp on indices that the sizes never reach: no problem.
  auto sound = degeneracy_problems(
      "kernel k\n  in X : f32[64] ~ normal(0, 4)\n  out Y : f32[64]\n"
      "  Y[i] = clamp(X[i], 0.0, 6.0) + select(X[i] > 1.0, X[i], 0.0) + X[max(i - 100, 0)]\n");
  EXPECT_TRUE(sound.empty()) << sound.front();
}

// The three input sets count together: seed 3 narrows a normal input to a quarter, where a ReLU6
// may never saturate; seeds 1 and 2 reach it, and that is enough.
TEST(Degenerate, ChoicesCountOverAllThreeInputSets) {
  auto p = valid("kernel k\n  in X : f32[256] ~ normal(0, 2)\n  out Y : f32[256]\n  Y[i] = clamp(X[i], 0.0, 6.0)\n");
  ASSERT_TRUE(p);
  auto r = check_degenerate(*p, false);
  EXPECT_TRUE(r.ok()) << r.problems.front();
}

}  // namespace
}  // namespace ekb::test
