// The compile cache (harness/compile_cache.h): keys follow the compiler, the language and the source;
// entries are written whole and read back; a worker started for a kept source loads it instead of
// compiling, and a kept binary that does not load is compiled afresh (and replaced), never blamed on
// the candidate.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "harness/compile_cache.h"
#include "harness/single_run.h"
#include "interp/reference.h"
#include "ir/check.h"

namespace ekb {
namespace {

namespace fs = std::filesystem;

struct TempCache {
  fs::path dir = fs::temp_directory_path() / ("ekb-cc-test-" + std::to_string(getpid()));
  TempCache() {
    fs::remove_all(dir);
    setenv("EKB_CACHE_DIR", dir.c_str(), 1);
  }
  ~TempCache() { fs::remove_all(dir); }
};

TEST(CompileCache, KeysFollowTheCompilerTheLanguageAndTheSource) {
  std::string k = CompileCache::key("clang 19 | znver3", "int x;", false);
  EXPECT_EQ(k.size(), 32u);
  EXPECT_EQ(k, CompileCache::key("clang 19 | znver3", "int x;", false));
  EXPECT_NE(k, CompileCache::key("clang 19 | znver5", "int x;", false));
  EXPECT_NE(k, CompileCache::key("clang 19 | znver3", "int x;", true));
  EXPECT_NE(k, CompileCache::key("clang 19 | znver3", "int y;", false));
}

TEST(CompileCache, EntriesAreWrittenWholeAndReadBack) {
  TempCache t;
  CompileCache c(t.dir / "objects");
  EXPECT_FALSE(c.get("abc"));
  c.put("abc", std::string("\0\1binary", 8));
  ASSERT_TRUE(c.get("abc"));
  EXPECT_EQ(*c.get("abc"), std::string("\0\1binary", 8));
  for (const auto& e : fs::directory_iterator(t.dir / "objects")) EXPECT_NE(e.path().extension(), ".tmp");
}

const char* kScale = R"(kernel scale
  dim N = 256
  in X : f32[N]
  out Y : f32[N]
  Y[i] = X[i] * 3.0
)";

TEST(CompileCache, AWorkerLoadsAKeptKernelAndCompilesABrokenOneAfresh) {
  TempCache t;
  auto p = load_program(std::make_shared<SourceFile>("scale.ekb", kScale));
  auto ref = reference_outputs(*p, 1);
  std::string src = R"(#include <stdint.h>
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t n) { for (int i = 0; i < 256; ++i) Y[i] = X[i] * 3.0f; }
void ekb_entry(void* const* a, int32_t n) { ekb_kernel((const float*)a[0], (float*)a[1], n); }
)";
  SingleRun first = run_isolated(*p, src, false, ref.inputs, 1, false);
  ASSERT_EQ(first.outcome, Outcome::ok) << first.message;
  EXPECT_FALSE(first.compile_cached);
  SingleRun second = run_isolated(*p, src, false, ref.inputs, 1, false);
  ASSERT_EQ(second.outcome, Outcome::ok) << second.message;
  EXPECT_TRUE(second.compile_cached);
  // Break every kept entry: the next worker compiles afresh, the run is fine, the entry is replaced.
  for (const auto& e : fs::directory_iterator(t.dir / "objects")) std::ofstream(e.path(), std::ios::trunc) << "not an object";
  SingleRun third = run_isolated(*p, src, false, ref.inputs, 1, false);
  ASSERT_EQ(third.outcome, Outcome::ok) << third.message;
  EXPECT_FALSE(third.compile_cached);
  SingleRun fourth = run_isolated(*p, src, false, ref.inputs, 1, false);
  EXPECT_TRUE(fourth.compile_cached);
  // A different source is not the kept one.
  SingleRun other = run_isolated(*p, src + "\n/* another */\n", false, ref.inputs, 1, false);
  EXPECT_FALSE(other.compile_cached);
}

}  // namespace
}  // namespace ekb
