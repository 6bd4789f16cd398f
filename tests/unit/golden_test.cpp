// Golden tests of the cpu backend's schedule primitives: every tests/golden/NAME.ekb (a small kernel
// with its own `schedule cpu` / `memory cpu` sections) is lowered as `ekb compile NAME.ekb --emit c`
// and `--emit loops` would, and the results must equal tests/golden/NAME.c (its kernel part) and NAME.loops
// byte for byte. Each golden kernel is also compiled, run and compared with the float64 reference,
// so that a wrong output is never locked in.
//
// Updating the expected files after an intended change of the lowering or the printer:
//
//   EKB_UPDATE_GOLDEN=1 ./build/tests/ekb_unit_tests --gtest_filter='Golden*'
//
// rewrites tests/golden/*.c and *.loops from the current build (the test says which files it wrote)
// instead of comparing. Review the diff (`git diff tests/golden`) before committing: each file should
// still show its primitive's effect (tests/golden/README.md lists what to look for).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cpu_test_util.h"
#include "loops/loop_ir.h"
#include "util/source.h"

namespace ekb::test {
namespace {

namespace fs = std::filesystem;

fs::path golden_dir() { return fs::path(EKB_SOURCE_DIR) / "tests" / "golden"; }

bool update_mode() {
  const char* v = std::getenv("EKB_UPDATE_GOLDEN");
  return v && std::string(v) == "1";
}

// The golden cases: the stems of tests/golden/*.ekb, sorted.
std::vector<std::string> golden_cases() {
  std::vector<std::string> v;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(golden_dir(), ec))
    if (e.is_regular_file() && e.path().extension() == ".ekb") v.push_back(e.path().stem().string());
  std::sort(v.begin(), v.end());
  return v;
}

std::string read_file(const fs::path& p, bool* found) {
  std::ifstream f(p, std::ios::binary);
  *found = static_cast<bool>(f);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  std::string line;
  while (std::getline(ss, line)) v.push_back(line);
  return v;
}

// A short unified-style diff: the first differing hunk (common prefix and suffix removed), with up to
// three lines of context and at most `max_lines` lines per side.
std::string short_diff(const std::string& want, const std::string& got, const std::string& name, size_t max_lines = 25) {
  std::vector<std::string> a = split_lines(want), b = split_lines(got);
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) ++suf;
  size_t ctx = std::min<size_t>(pre, 3);
  size_t a_end = a.size() - suf, b_end = b.size() - suf, tail = std::min<size_t>(suf, 3);
  std::string out = fmt::format("--- {} (expected)\n+++ {} (generated)\n@@ -{},{} +{},{} @@\n", name, name, pre - ctx + 1,
                                a_end - pre + ctx + tail, pre - ctx + 1, b_end - pre + ctx + tail);
  for (size_t i = pre - ctx; i < pre; ++i) out += " " + a[i] + "\n";
  for (size_t i = pre; i < a_end && i < pre + max_lines; ++i) out += "-" + a[i] + "\n";
  if (a_end > pre + max_lines) out += fmt::format("-... ({} more lines)\n", a_end - pre - max_lines);
  for (size_t i = pre; i < b_end && i < pre + max_lines; ++i) out += "+" + b[i] + "\n";
  if (b_end > pre + max_lines) out += fmt::format("+... ({} more lines)\n", b_end - pre - max_lines);
  for (size_t i = a_end; i < a_end + tail; ++i) out += " " + a[i] + "\n";
  if (want.size() != got.size() && pre == a.size() && pre == b.size())
    out += "(the files differ only in their final newline)\n";
  return out;
}

struct Generated {
  std::shared_ptr<Program> program;
  std::string c, loops;
};

// The kernel part of generated C: from its `/* kernel NAME */` line on. The prelude before it (libc
// declarations, helpers, vector types) is the same for every file and is exercised by running them.
std::string kernel_part(const std::string& c) {
  size_t at = c.find("/* kernel ");
  EXPECT_NE(at, std::string::npos) << "no `/* kernel` line in the generated C";
  return at == std::string::npos ? c : c.substr(at);
}

// What `ekb compile FILE --emit c|loops` prints for the file's own sections (C: its kernel part).
Generated generate(const fs::path& file) {
  Generated g;
  g.program = load_program(read_source_file(file.string()));
  ScheduleChoice sc = choose_schedule(*g.program, default_target(Backend::cpu), "");
  EXPECT_EQ(sc.description, "own") << file << " has no `schedule cpu` / `memory cpu` section";
  lower::LoweredKernel k = lower_with(*g.program, default_target(Backend::cpu), sc);
  g.c = kernel_part(codegen::print_c(k, codegen::c_dialect()));
  g.loops = lir::to_string(k.body);
  return g;
}

void compare_or_update(const fs::path& expected_path, const std::string& generated) {
  bool found = false;
  std::string expected = read_file(expected_path, &found);
  if (update_mode()) {
    if (found && expected == generated) return;
    std::ofstream f(expected_path, std::ios::binary);
    f << generated;
    ASSERT_TRUE(static_cast<bool>(f)) << "cannot write " << expected_path;
    std::cout << "[golden] EKB_UPDATE_GOLDEN=1: " << (found ? "updated " : "created ") << expected_path.string() << "\n";
    return;
  }
  ASSERT_TRUE(found) << expected_path << " is missing; run with EKB_UPDATE_GOLDEN=1 to create it";
  EXPECT_TRUE(expected == generated) << expected_path.filename().string() << " differs from the generated output "
                                     << "(EKB_UPDATE_GOLDEN=1 rewrites it after an intended change):\n"
                                     << short_diff(expected, generated, expected_path.filename().string());
}

class GoldenCase : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenCase, MatchesExpectedCAndLoops) {
  fs::path ekb = golden_dir() / (GetParam() + ".ekb");
  Generated g;
  try {
    g = generate(ekb);
  } catch (const DiagnosticError& e) {
    FAIL() << ekb << " does not lower:\n" << e.what();
  }
  compare_or_update(golden_dir() / (GetParam() + ".c"), g.c);
  compare_or_update(golden_dir() / (GetParam() + ".loops"), g.loops);
}

TEST_P(GoldenCase, MatchesTheReference) {
  fs::path ekb = golden_dir() / (GetParam() + ".ekb");
  std::shared_ptr<Program> p;
  CpuCheck r;
  try {
    p = load_program(read_source_file(ekb.string()));
    r = check_on_cpu(*p, "");  // "": the file's own sections
  } catch (const DiagnosticError& e) {
    FAIL() << ekb << " does not lower:\n" << e.what();
  }
  EXPECT_TRUE(r.pass) << ekb.filename().string() << " does not match the reference: " << r.report;
  // The kernel that ran is the one the golden C shows.
  bool found = false;
  std::string expected = read_file(golden_dir() / (GetParam() + ".c"), &found);
  if (found && !update_mode()) EXPECT_TRUE(expected == kernel_part(r.c_source)) << "the C that ran differs from " << GetParam() << ".c";
}

INSTANTIATE_TEST_SUITE_P(Golden, GoldenCase, ::testing::ValuesIn(golden_cases()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

// Every golden has its expected files, and nothing is left over from a removed case.
TEST(GoldenFiles, EachCaseHasItsFilesAndNoFileIsOrphaned) {
  std::vector<std::string> cases = golden_cases();
  EXPECT_GE(cases.size(), 20u) << "tests/golden lost cases";
  for (const auto& e : fs::directory_iterator(golden_dir())) {
    std::string ext = e.path().extension().string();
    if (ext != ".c" && ext != ".loops") continue;
    std::string stem = e.path().stem().string();
    EXPECT_TRUE(std::binary_search(cases.begin(), cases.end(), stem))
        << e.path().filename().string() << " has no " << stem << ".ekb; delete it";
  }
  if (update_mode()) return;
  for (const auto& c : cases)
    for (const char* ext : {".c", ".loops"})
      EXPECT_TRUE(fs::exists(golden_dir() / (c + ext))) << c << ext << " is missing; run with EKB_UPDATE_GOLDEN=1";
}

TEST(GoldenFiles, ShortDiffShowsTheFirstDifference) {
  std::string d = short_diff("a\nb\nc\nd\ne\n", "a\nb\nX\nd\ne\n", "f.c");
  EXPECT_NE(d.find("@@ -1,5 +1,5 @@"), std::string::npos) << d;
  EXPECT_NE(d.find("-c\n+X\n"), std::string::npos) << d;
  EXPECT_NE(d.find(" b\n"), std::string::npos) << d;
  EXPECT_NE(short_diff("a\n", "a", "f.c").find("final newline"), std::string::npos);
}

}  // namespace
}  // namespace ekb::test
