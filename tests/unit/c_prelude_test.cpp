// A kernel's translation unit carries only the prelude definitions it uses (codegen/c_prelude.h):
// the selection follows uses through the helpers, keeps the prelude's order and each item's comment,
// and the printed C of real kernels compiles, runs correctly and leaves the unused helpers out.
#include <gtest/gtest.h>

#include <string>

#include "codegen/c_prelude.h"
#include "cpu_test_util.h"

namespace ekb::test {
namespace {

const char* kPrelude =
    "typedef __INT64_TYPE__ int64_t;\n"
    "#define NAN (__builtin_nanf(\"\"))\n"
    "float expf(float);\n"
    "/* a comment that goes with the item below it,\n"
    "   on two lines */\n"
    "static inline float helper_a(float x) { return expf(x); }\n"
    "static inline float helper_b(float x) {\n"
    "  return helper_a(x) + NAN;\n"
    "}\n"
    "\n"
    "static inline int64_t helper_c(int64_t x) { return x; }\n";

TEST(CPrelude, KeepsWhatTheCodeUsesThroughTheHelpersInOrder) {
  std::string kept = codegen::prelude_used_by(kPrelude, "float k(float v) { return helper_b(v); }");
  EXPECT_EQ(kept,
            "#define NAN (__builtin_nanf(\"\"))\n"
            "float expf(float);\n"
            "/* a comment that goes with the item below it,\n"
            "   on two lines */\n"
            "static inline float helper_a(float x) { return expf(x); }\n"
            "static inline float helper_b(float x) {\n"
            "  return helper_a(x) + NAN;\n"
            "}\n");
}

TEST(CPrelude, KeepsNothingForCodeThatUsesNothing) {
  EXPECT_EQ(codegen::prelude_used_by(kPrelude, "void k(void) {}"), "");
  // A name inside a longer identifier is not a use.
  EXPECT_EQ(codegen::prelude_used_by(kPrelude, "void k(void) { int helper_cc = 0; (void)helper_cc; }"), "");
  EXPECT_EQ(codegen::prelude_used_by(kPrelude, "int64_t k(int64_t v) { return helper_c(v); }"),
            "typedef __INT64_TYPE__ int64_t;\nstatic inline int64_t helper_c(int64_t x) { return x; }\n");
}

TEST(CPrelude, AnItemWithoutANameIsAnError) {
  EXPECT_THROW(codegen::prelude_used_by("  an indented first line\n", "x"), std::logic_error);
  EXPECT_THROW(codegen::prelude_used_by("typedef ;\n", "x"), std::logic_error);
}

// A kernel whose C needs vector exp (through sigmoid) and a floor division, and one that needs neither.
TEST(CPrelude, PrintedKernelsCarryTheirHelpersAndNoOthers) {
  auto sig = valid(R"(kernel silu
  dim N = 1000
  in X : f32[N]
  out Y : f32[N]
  Y[i] = X[i] * sigmoid(X[i])
)");
  ASSERT_TRUE(sig);
  CpuCheck a = check_on_cpu(*sig, "schedule cpu\n  Y: split i 16 -> io ii; vectorize ii\n");
  EXPECT_TRUE(a.pass) << a.report;
  std::string tu = a.c_source.substr(0, a.c_source.find("/* kernel"));
  for (const char* needed : {"ekb_sigmoid_f32x16", "ekb_exp_f32x16", "ekb_min_f32x16", "ekb_blend_f32x16", "int32_t;"})
    EXPECT_NE(tu.find(needed), std::string::npos) << needed << " missing from:\n" << tu;
  for (const char* unused : {"ekb_erf_", "ekb_tanh_", "ekb_log_", "ekb_fdiv", "ekb_alloc", "posix_memalign", "double exp("})
    EXPECT_EQ(tu.find(unused), std::string::npos) << unused << " is in:\n" << tu;

  auto copy = valid(R"(kernel copy_rows
  dim N = 64
  in X : f32[N]
  out Y : f32[N]
  Y[i] = X[i]
)");
  ASSERT_TRUE(copy);
  CpuCheck b = check_on_cpu(*copy, "none");
  EXPECT_TRUE(b.pass) << b.report;
  EXPECT_EQ(b.c_source.find("static inline"), std::string::npos) << b.c_source;
}

}  // namespace
}  // namespace ekb::test
