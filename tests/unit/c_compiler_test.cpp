// The C compile layer (runtime/cpu/c_compiler.h): every test runs against each compile path that
// this machine has — in process (clang/LLVM 19 + ORC) and the subprocess path with gcc and clang-19.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <ostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "runtime/cpu/c_compiler.h"
#include "runtime/cpu/run_process.h"

namespace ekb {
namespace {

struct CompilerCase {
  std::string name;
  std::function<std::unique_ptr<CCompiler>()> make;
  std::string program;  // a C compiler that must be in PATH, or "" for the in-process path
  bool in_process = false;
};

std::vector<CompilerCase> compiler_cases() {
  std::vector<CompilerCase> cases;
#if EKB_WITH_LLVM
  cases.push_back({"InProcess", [] { return make_inprocess_c_compiler(); }, "", true});
#endif
  cases.push_back({"SubprocessGcc", [] { return make_subprocess_c_compiler("gcc"); }, "gcc"});
  cases.push_back({"SubprocessClang19", [] { return make_subprocess_c_compiler("clang-19"); }, "clang-19"});
  return cases;
}

void PrintTo(const CompilerCase& c, std::ostream* os) { *os << c.name; }

size_t resident_bytes() {
  long pages = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
  std::fclose(f);
  return static_cast<size_t>(resident) * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

class CCompilerTest : public ::testing::TestWithParam<CompilerCase> {
 protected:
  void SetUp() override {
    const CompilerCase& c = GetParam();
    if (!c.program.empty() && resolve_in_path(c.program) == c.program)
      GTEST_SKIP() << c.program << " is not in PATH";
    compiler_ = c.make();
  }
  bool is_gcc() const { return GetParam().program == "gcc"; }
  std::unique_ptr<CCompiler> compiler_;
};

// A 20-line loop nest: Y = relu(A * B + bias), 8x8x8.
const char* kMatmulBiasRelu = R"(
void matmul_bias_relu(const float* restrict A, const float* restrict B, const float* restrict bias,
                      float* restrict Y) {
  for (int m = 0; m < 8; ++m) {
    for (int n = 0; n < 8; ++n) Y[m * 8 + n] = bias[n];
    for (int k = 0; k < 8; ++k) {
      float a = A[m * 8 + k];
      for (int n = 0; n < 8; ++n) Y[m * 8 + n] += a * B[k * 8 + n];
    }
    for (int n = 0; n < 8; ++n) Y[m * 8 + n] = Y[m * 8 + n] > 0.0f ? Y[m * 8 + n] : 0.0f;
  }
}
)";

TEST_P(CCompilerTest, HasAName) { EXPECT_FALSE(compiler_->name().empty()); }

TEST_P(CCompilerTest, CompilesAndRunsALoopNest) {
  auto module = compiler_->compile(kMatmulBiasRelu, {});
  using Fn = void (*)(const float*, const float*, const float*, float*);
  auto fn = reinterpret_cast<Fn>(module->lookup("matmul_bias_relu"));
  ASSERT_NE(fn, nullptr);
  std::vector<float> a(64), b(64), bias(8), y(64, -1.0f);
  for (int i = 0; i < 64; ++i) {
    a[i] = static_cast<float>((i * 7) % 11) - 5.0f;
    b[i] = static_cast<float>((i * 5) % 13) - 6.0f;
  }
  for (int i = 0; i < 8; ++i) bias[i] = 0.5f * static_cast<float>(i) - 2.0f;
  fn(a.data(), b.data(), bias.data(), y.data());
  for (int m = 0; m < 8; ++m)
    for (int n = 0; n < 8; ++n) {
      float acc = bias[n];
      for (int k = 0; k < 8; ++k) acc += a[m * 8 + k] * b[k * 8 + n];
      EXPECT_FLOAT_EQ(y[m * 8 + n], std::max(acc, 0.0f)) << m << "," << n;
    }
  EXPECT_EQ(module->lookup("no_such_symbol"), nullptr);
}

TEST_P(CCompilerTest, VectorExtensionsAndMemcpy) {
  const char* src = R"(
#include <string.h>
typedef float v16f __attribute__((vector_size(64)));
void fma16(const float* a, const float* b, float* c, int n) {
  for (int i = 0; i < n; i += 16) {
    v16f x, y, z;
    memcpy(&x, a + i, sizeof x);
    memcpy(&y, b + i, sizeof y);
    memcpy(&z, c + i, sizeof z);
    z = x * y + z;
    memcpy(c + i, &z, sizeof z);
  }
}
)";
  auto module = compiler_->compile(src, {});
  auto fn = reinterpret_cast<void (*)(const float*, const float*, float*, int)>(module->lookup("fma16"));
  ASSERT_NE(fn, nullptr);
  std::vector<float> a(48), b(48), c(48);
  for (int i = 0; i < 48; ++i) a[i] = static_cast<float>(i), b[i] = 0.25f, c[i] = 1.0f;
  fn(a.data(), b.data(), c.data(), 48);
  for (int i = 0; i < 48; ++i) EXPECT_FLOAT_EQ(c[i], static_cast<float>(i) * 0.25f + 1.0f) << i;
}

TEST_P(CCompilerTest, CallsLibm) {
  const char* src = R"(
#include <math.h>
void activations(const float* x, float* out, int n) {
  for (int i = 0; i < n; ++i) out[i] = expf(x[i]) + tanhf(x[i]) + erff(x[i]) + logf(1.0f + x[i] * x[i]);
}
)";
  auto module = compiler_->compile(src, {});
  auto fn = reinterpret_cast<void (*)(const float*, float*, int)>(module->lookup("activations"));
  ASSERT_NE(fn, nullptr);
  std::vector<float> x(37), out(37);
  for (int i = 0; i < 37; ++i) x[i] = -3.0f + 0.17f * static_cast<float>(i);
  fn(x.data(), out.data(), 37);
  for (int i = 0; i < 37; ++i) {
    double v = x[i];
    double want = std::exp(v) + std::tanh(v) + std::erf(v) + std::log(1.0 + v * v);
    EXPECT_NEAR(out[i], want, 1e-5 * (1.0 + std::fabs(want))) << "x = " << v;
  }
}

TEST_P(CCompilerTest, OpenMPParallelForUsesTheRequestedThreads) {
  const char* src = R"(
#include <omp.h>
void thread_ids(int nthreads, int n, int* ids) {
  #pragma omp parallel for num_threads(nthreads) schedule(static)
  for (int i = 0; i < n; ++i) ids[i] = omp_get_thread_num();
}
)";
  auto module = compiler_->compile(src, {});
  auto fn = reinterpret_cast<void (*)(int, int, int*)>(module->lookup("thread_ids"));
  ASSERT_NE(fn, nullptr);
  std::vector<int> ids(64, -1);
  fn(2, 64, ids.data());
  EXPECT_EQ(std::set<int>(ids.begin(), ids.end()), (std::set<int>{0, 1}));
  fn(1, 64, ids.data());
  EXPECT_EQ(std::set<int>(ids.begin(), ids.end()), (std::set<int>{0}));
  // Freeing the module must leave the OpenMP runtime (and its idle workers) loaded and usable.
  module.reset();
  usleep(20000);
  module = compiler_->compile(src, {});
  fn = reinterpret_cast<void (*)(int, int, int*)>(module->lookup("thread_ids"));
  ASSERT_NE(fn, nullptr);
  fn(2, 64, ids.data());
  EXPECT_EQ(std::set<int>(ids.begin(), ids.end()), (std::set<int>{0, 1}));
}

TEST_P(CCompilerTest, SyntaxErrorNamesTheLine) {
  const char* src = "// line 1\nint f(int x) {\n  return x +;\n}\n";
  try {
    compiler_->compile(src, {});
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel.c:3:"), std::string::npos) << e.what();
    EXPECT_NE(e.log.find("kernel.c:3:"), std::string::npos) << e.log;
    EXPECT_NE(e.log.find("error"), std::string::npos) << e.log;
  }
}

TEST_P(CCompilerTest, UnresolvedSymbolIsACompileError) {
  const char* src = "void ekb_no_such_function(void);\nvoid k(void) { ekb_no_such_function(); }\n";
  try {
    compiler_->compile(src, {});
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE((std::string(e.what()) + e.log).find("ekb_no_such_function"), std::string::npos)
        << e.what() << "\n" << e.log;
  }
}

TEST_P(CCompilerTest, ExtraFlagsReachTheCompiler) {
  CompileOptions o;
  o.extra_flags = {"-DEKB_ANSWER=42"};
  auto module = compiler_->compile("int answer(void) { return EKB_ANSWER; }\n", o);
  auto fn = reinterpret_cast<int (*)()>(module->lookup("answer"));
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(fn(), 42);
}

TEST_P(CCompilerTest, ModuleOutlivesItsCompiler) {
  auto module = compiler_->compile("int twice(int x) { return 2 * x; }\n", {});
  compiler_.reset();
  auto fn = reinterpret_cast<int (*)(int)>(module->lookup("twice"));
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(fn(21), 42);
}

TEST_P(CCompilerTest, TargetCpuReachesTheCompiler) {
  const char* src = "void axpy(int n, float a, const float* x, float* y) {\n"
                    "  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];\n}\n";
  CompileOptions o;
  o.cpu = "x86-64-v2";  // SSE4.2, no AVX, no FMA
  std::string s = compiler_->emit(src, EmitKind::asm_text, o);
  EXPECT_EQ(s.find("vfmadd"), std::string::npos) << s;
  EXPECT_EQ(s.find("ymm"), std::string::npos) << s;
  auto module = compiler_->compile(src, o);
  auto fn = reinterpret_cast<void (*)(int, float, const float*, float*)>(module->lookup("axpy"));
  ASSERT_NE(fn, nullptr);
  std::vector<float> x(19, 2.0f), y(19, 1.0f);
  fn(19, 3.0f, x.data(), y.data());
  for (float v : y) EXPECT_FLOAT_EQ(v, 7.0f);
}

TEST_P(CCompilerTest, CompilesFromTwoThreadsAtOnce) {
  std::vector<int> results(2, 0);
  std::vector<std::string> errors(2);
  auto work = [&](int t) {
    try {
      for (int i = 0; i < 3; ++i) {
        std::string src = "int value(void) { return " + std::to_string(t * 100 + i) + "; }\n" + kMatmulBiasRelu;
        auto m = compiler_->compile(src, {});
        results[t] += reinterpret_cast<int (*)()>(m->lookup("value"))();
      }
    } catch (const std::exception& e) {
      errors[t] = e.what();
    }
  };
  std::thread a(work, 0), b(work, 1);
  a.join();
  b.join();
  EXPECT_EQ(errors, (std::vector<std::string>{"", ""}));
  EXPECT_EQ(results, (std::vector<int>{0 + 1 + 2, 300 + 3}));
}

TEST_P(CCompilerTest, EmitsIrAssemblyAndObject) {
  const char* src = "void axpy(int n, float a, const float* x, float* y) {\n"
                    "  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];\n}\n";
  if (is_gcc()) {
    EXPECT_THROW(compiler_->emit(src, EmitKind::ll, {}), CompileError);
  } else {
    std::string ll = compiler_->emit(src, EmitKind::ll, {});
    EXPECT_NE(ll.find("define"), std::string::npos) << ll;
    EXPECT_NE(ll.find("@axpy"), std::string::npos) << ll;
  }
  std::string s = compiler_->emit(src, EmitKind::asm_text, {});
  EXPECT_NE(s.find("axpy"), std::string::npos) << s;
  EXPECT_NE(s.find("ret"), std::string::npos) << s;
  EXPECT_NE(s.find("vfmadd"), std::string::npos) << s;  // -ffp-contract=fast on an FMA machine
  std::string obj = compiler_->emit(src, EmitKind::obj, {});
  ASSERT_GT(obj.size(), 64u);
  EXPECT_EQ(obj.substr(0, 4), std::string("\x7f" "ELF"));
}

TEST_P(CCompilerTest, ModulesAreIndependentAndFreeTheirMemory) {
  auto source = [](int i) {
    return "int kernel(int x) { return x * " + std::to_string(i) + " + " + std::to_string(i % 7) + "; }\n"
           "float scale(const float* v, int n) { float s = 0; for (int j = 0; j < n; ++j) s += v[j] * " +
           std::to_string(i) + ".0f; return s; }\n";
  };
  using Fn = int (*)(int);
  // The same symbol in two live modules: each module keeps its own.
  auto m1 = compiler_->compile(source(1), {});
  auto m2 = compiler_->compile(source(2), {});
  EXPECT_EQ(reinterpret_cast<Fn>(m1->lookup("kernel"))(10), 11);
  EXPECT_EQ(reinterpret_cast<Fn>(m2->lookup("kernel"))(10), 22);
  m1.reset();
  EXPECT_EQ(reinterpret_cast<Fn>(m2->lookup("kernel"))(10), 22);
  m2.reset();

  // Many compiles, each freed: resident memory stays roughly flat (loose bound, after a warm-up).
  int n = GetParam().in_process ? 200 : 12;  // a subprocess compile takes 0.2-0.4 s
  for (int i = 0; i < 10; ++i) compiler_->compile(source(100 + i), {});
  size_t before = resident_bytes();
  for (int i = 0; i < n; ++i) {
    auto m = compiler_->compile(source(1000 + i), {});
    ASSERT_EQ(reinterpret_cast<Fn>(m->lookup("kernel"))(1), 1000 + i + (1000 + i) % 7);
  }
  size_t after = resident_bytes();
  double growth_mib = (static_cast<double>(after) - static_cast<double>(before)) / (1024.0 * 1024.0);
  RecordProperty("rss_growth_mib", std::to_string(growth_mib));
  EXPECT_LT(growth_mib, 8.0) << "RSS grew from " << before << " to " << after << " bytes over " << n << " compiles";
}

INSTANTIATE_TEST_SUITE_P(Paths, CCompilerTest, ::testing::ValuesIn(compiler_cases()),
                         [](const ::testing::TestParamInfo<CompilerCase>& info) { return info.param.name; });

#if EKB_WITH_LLVM
// The in-process path runs ekb's pass list by default (runtime/cpu/llvm_passes.cpp); clang's own
// -O3 pipeline and any pipeline text stay available, and all of them compute the same.
TEST(InProcessPasses, EkbsPassListClangsAndAGivenPipelineComputeTheSame) {
  auto cc = make_inprocess_c_compiler();
  std::vector<float> A(64), B(64), bias(8);
  for (int i = 0; i < 64; ++i) A[i] = float(i % 7) - 3, B[i] = float(i % 5) - 2;
  for (int i = 0; i < 8; ++i) bias[i] = float(i) - 4;
  using Fn = void (*)(const float*, const float*, const float*, float*);
  std::vector<std::vector<float>> results;
  CompileOptions ekb_passes, clang_passes, given;
  clang_passes.passes = CompileOptions::Passes::clang;
  given.pass_pipeline = "function(sroa,instcombine)";
  for (const CompileOptions& o : {ekb_passes, clang_passes, given}) {
    auto m = cc->compile(kMatmulBiasRelu, o);
    auto fn = reinterpret_cast<Fn>(m->lookup("matmul_bias_relu"));
    ASSERT_NE(fn, nullptr);
    std::vector<float> Y(64, -1);
    fn(A.data(), B.data(), bias.data(), Y.data());
    results.push_back(Y);
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0], results[2]);
  CompileOptions bad;
  bad.pass_pipeline = "function(no-such-pass)";
  try {
    cc->compile(kMatmulBiasRelu, bad);
    ADD_FAILURE() << "an unknown pass compiled";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("pass pipeline"), std::string::npos) << e.what();
    EXPECT_NE(e.log.find("no-such-pass"), std::string::npos) << e.log;
  }
}

// What ekb's pass list is for: the lane-by-lane loads of a strided vector access (how ekb's C reads
// a vector across rows) stay loads; clang's -O3 made AVX-512 gathers of them, slower on Zen 4/5.
TEST(InProcessPasses, LaneByLaneVectorLoadsDoNotBecomeGathers) {
  const char* src = R"(
typedef float v16 __attribute__((vector_size(64), aligned(4)));
void column_sums(const float* restrict X, float* restrict Y) {
  v16 acc = {0};
  for (int d = 0; d < 256; ++d) {
    v16 r = {0};
    for (int l = 0; l < 16; ++l) r[l] = X[l * 256 + d];
    acc += r;
  }
  __builtin_memcpy(Y, &acc, sizeof acc);
}
)";
  auto cc = make_inprocess_c_compiler();
  std::string s = cc->emit(src, EmitKind::asm_text, {});
  EXPECT_EQ(s.find("gather"), std::string::npos) << s;
  CompileOptions clang_passes;
  clang_passes.passes = CompileOptions::Passes::clang;
  RecordProperty("clang_o3_gathers", cc->emit(src, EmitKind::asm_text, clang_passes).find("gather") != std::string::npos ? "yes" : "no");
  std::vector<float> X(16 * 256), Y(16);
  for (size_t i = 0; i < X.size(); ++i) X[i] = float(i / 256);  // row l holds l
  auto m = cc->compile(src, {});
  reinterpret_cast<void (*)(const float*, float*)>(m->lookup("column_sums"))(X.data(), Y.data());
  for (int l = 0; l < 16; ++l) EXPECT_EQ(Y[l], 256.0f * float(l));
}
#endif

TEST(CCompiler, DefaultCompilerIsThePreferredPath) {
  auto c = make_default_c_compiler();
#if EKB_WITH_LLVM
  EXPECT_NE(c->name().find("in process"), std::string::npos) << c->name();
#else
  EXPECT_NE(c->name().find("subprocess"), std::string::npos) << c->name();
#endif
}

}  // namespace
}  // namespace ekb
