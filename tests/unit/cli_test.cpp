// The `ekb` command end to end: exit codes, messages, --help, fmt's fixed point, interp's outputs,
// list and show (against a small suite made here, independent of the real one).
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>

#include "command_util.h"
#include "test_util.h"

namespace ekb::test {
namespace {

namespace fs = std::filesystem;

using Result = CommandResult;  // (stdout and stderr together)

Result ekb(const std::string& args) { return run_command(std::string(EKB_BINARY) + " " + args + " 2>&1"); }

class Cli : public ::testing::Test {
 protected:
  fs::path dir;
  void SetUp() override {
    dir = fs::temp_directory_path() / ("ekb-cli-" + std::to_string(::getpid()) + "-" +
                                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir / "suite" / "gemm");
    write("suite/gemm/mm.ekb",
          "# matrix product\nkernel mm\n  category gemm\n  domain language\n  dim M = 4, N = 4, K = 8\n  in A : f32[M, K]\n"
          "  in B : f32[K, N]\n  out C : f32[M, N]\n  C[m, n] = sum(k) A[m, k] * B[k, n]\n\nworkloads\n"
          "  mm_small: M = 8, N = 8, K = 8\n  mm_fc: M = 1, N = 10, K = 64\n");
    fs::create_directories(dir / "suite" / "elementwise");
    write("suite/elementwise/relu.ekb",
          "kernel relu_1k\n  category elementwise\n  domain vision\n  in X : f32[1024]\n  out Y : f32[1024]\n  Y[i] = max(X[i], 0.0)\n");
  }
  void TearDown() override { fs::remove_all(dir); }
  void write(const std::string& rel, const std::string& text) { std::ofstream(dir / rel) << text; }
  std::string suite() { return "--suite " + (dir / "suite").string(); }
  std::string path(const std::string& rel) { return (dir / rel).string(); }
};

TEST_F(Cli, HelpListsEveryCommandAndOption) {
  Result r = ekb("--help");
  EXPECT_EQ(r.status, 0);
  for (const char* c : {"check", "fmt", "interp", "list", "show", "--suite"}) EXPECT_NE(r.out.find(c), std::string::npos) << c;
  struct {
    const char* cmd;
    std::vector<const char*> opts;
  } helps[] = {{"check", {"FILE", "--suite"}},
               {"fmt", {"FILE", "--write"}},
               {"interp", {"FILE|TASK", "--seed", "--out", "--no-cache"}},
               {"list", {"--json", "--category"}},
               {"show", {"TASK", "--json"}},
               {"worker", {"--listen", "--token-file", "--max-message-mib", "--unsandboxed-emulation", "--worker-launcher"}}};
  for (const auto& h : helps) {
    Result r2 = ekb(std::string(h.cmd) + " --help");
    EXPECT_EQ(r2.status, 0) << h.cmd;
    for (const char* o : h.opts) EXPECT_NE(r2.out.find(o), std::string::npos) << h.cmd << " --help lacks " << o;
  }
  EXPECT_EQ(ekb("").status, 106);   // CLI11: a subcommand is required
  EXPECT_NE(ekb("frobnicate").status, 0);
}

TEST_F(Cli, CheckExitCodesAndMessages) {
  write("good.ekb", "kernel g\n  in X : f32[4]\n  out Y : f32[4]\n  Y[i] = X[i] * 2.0\n");
  write("bad.ekb", "kernel b\n  in X : f32[4]\n  out Y : f32[4]\n  Y[i] = X[i + 1]\n");
  Result ok = ekb("check " + path("good.ekb"));
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_NE(ok.out.find("ok: kernel `g`"), std::string::npos);
  Result bad = ekb("check " + path("good.ekb") + " " + path("bad.ekb"));
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.out.find(path("bad.ekb") + ":4:10: error: `X[i + 1]` can read index 4"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("    4 |   Y[i] = X[i + 1]\n      |          ^"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("fix: "), std::string::npos);
  Result missing = ekb("check " + path("nope.ekb"));
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.out.find("cannot read"), std::string::npos) << missing.out;
  Result none = ekb("check");  // neither files nor --suite
  EXPECT_NE(none.status, 0);
  EXPECT_NE(none.out.find("give .ekb files to check, or --suite"), std::string::npos) << none.out;
}

TEST_F(Cli, CheckSuiteRunsTheDegeneracyRules) {
  Result ok = ekb(suite() + " check --suite");
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_NE(ok.out.find("3 task(s), 0 degenerate"), std::string::npos) << ok.out;
  write("suite/elementwise/dead.ekb", "kernel dead\n  category elementwise\n  domain vision\n  in X : f32[64] ~ uniform(-2, -1)\n"
                                      "  out Y : f32[64]\n  Y[i] = max(X[i], 0.0)\n");
  Result bad = ekb(suite() + " check --suite");
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.out.find("task `dead` is degenerate"), std::string::npos) << bad.out;
}

TEST_F(Cli, FmtIsAFixedPointAndWriteRewrites) {
  write("messy.ekb", "kernel   m  # note\n in X:f32[4]\n out Y:f32[4]\n Y[i]=(X[i]*2.0)+1\n");
  Result once = ekb("fmt " + path("messy.ekb"));
  ASSERT_EQ(once.status, 0) << once.out;
  EXPECT_EQ(once.out, "kernel m  # note\n  in X : f32[4]\n  out Y : f32[4]\n  Y[i] = X[i] * 2.0 + 1\n");
  write("once.ekb", once.out);
  EXPECT_EQ(ekb("fmt " + path("once.ekb")).out, once.out);
  EXPECT_EQ(ekb("fmt -w " + path("messy.ekb")).status, 0);
  std::ifstream in(dir / "messy.ekb");
  std::string rewritten((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(rewritten, once.out);
  write("broken.ekb", "kernel b\n  Y[i] = (\n");
  EXPECT_EQ(ekb("fmt " + path("broken.ekb")).status, 1);
}

TEST_F(Cli, InterpPrintsChecksumsWritesNpyAndCaches) {
  std::string env = "EKB_CACHE_DIR=" + (dir / "cache").string() + " ";
  Result a = ekb(suite() + " interp mm_small --seed 3 --out " + path("out"));
  (void)a;
  Result r = run_command(env + std::string(EKB_BINARY) + " " + suite() + " interp mm_small --seed 3 --out " + path("out") + " 2>&1");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("C            f32[8, 8]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sum="), std::string::npos);
  EXPECT_TRUE(fs::exists(dir / "out" / "A.npy"));
  EXPECT_TRUE(fs::exists(dir / "out" / "C.npy"));
  std::string second = run_command(env + std::string(EKB_BINARY) + " " + suite() + " interp mm_small --seed 3 2>&1").out;
  EXPECT_NE(second.find("cached"), std::string::npos) << second;
  // Same checksum line both times.
  auto line = [](const std::string& s) { return s.substr(s.find("  C ")); };
  EXPECT_EQ(line(second).substr(0, 120), line(r.out).substr(0, 120));
  Result unknown = ekb(suite() + " interp mm_smal");
  EXPECT_EQ(unknown.status, 1);
  EXPECT_NE(unknown.out.find("did you mean `mm_small`?"), std::string::npos) << unknown.out;
}

TEST_F(Cli, ListJsonHasEveryFieldComputedFromL0) {
  Result r = ekb(suite() + " list --json");
  ASSERT_EQ(r.status, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 3u);
  for (const auto& o : j)
    for (const char* k : {"name", "pattern", "category", "domain", "stages", "flops", "bytes", "must_read_bytes", "inputs", "outputs"})
      EXPECT_TRUE(o.contains(k)) << k;
  auto fc = *std::find_if(j.begin(), j.end(), [](const auto& o) { return o["name"] == "mm_fc"; });
  EXPECT_EQ(fc["pattern"], "mm");
  EXPECT_EQ(fc["flops"].template get<double>(), 2.0 * 1 * 10 * 64);
  EXPECT_EQ(fc["bytes"].template get<int64_t>(), (64 + 64 * 10 + 10) * 4);
  EXPECT_EQ(fc["must_read_bytes"].template get<int64_t>(), 0) << "a matmul's operands can each be absorbed by the other's zeros";
  auto relu = *std::find_if(j.begin(), j.end(), [](const auto& o) { return o["name"] == "relu_1k"; });
  EXPECT_EQ(relu["must_read_bytes"].template get<int64_t>(), 1024 * 4) << "every element of a ReLU's input must be read";
  EXPECT_EQ(fc["inputs"][1]["shape"], nlohmann::json::array({64, 10}));
  EXPECT_EQ(fc["outputs"][0]["dtype"], "f32");
  Result cat = ekb(suite() + " list --json --category elementwise");
  EXPECT_EQ(nlohmann::json::parse(cat.out).size(), 1u);
  Result table = ekb(suite() + " list");
  EXPECT_NE(table.out.find("3 workload(s)"), std::string::npos) << table.out;
  Result badcat = ekb(suite() + " list --category gemmm");
  EXPECT_EQ(badcat.status, 1);
  EXPECT_NE(badcat.out.find("unknown category"), std::string::npos);
}

TEST_F(Cli, ShowPrintsACheckableTaskText) {
  Result r = ekb(suite() + " show mm_fc");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("kernel mm_fc\n  pattern mm\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dim M = 1, N = 10, K = 64"), std::string::npos) << r.out;
  write("shown.ekb", r.out);
  EXPECT_EQ(ekb("check " + path("shown.ekb")).status, 0);
  Result j = ekb(suite() + " show mm_fc --json");
  auto o = nlohmann::json::parse(j.out);
  EXPECT_EQ(o["text"], r.out);
  EXPECT_EQ(o["stages"], 1);
  EXPECT_EQ(ekb(suite() + " show nope").status, 1);
}

TEST_F(Cli, BrokenSuiteFileIsReportedWithItsPath) {
  write("suite/gemm/broken.ekb", "kernel broken\n  category gemm\n  domain vision\n  out Y : f32[4]\n  Y[i] = Z[i]\n");
  Result r = ekb(suite() + " list");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("suite/gemm/broken.ekb:5:10: error: unknown tensor `Z`"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace ekb::test
