// The suite's versioning (suite/VERSION, suite/MANIFEST): the task hash changes exactly when what a
// task computes or draws its inputs from changes; the manifest round-trips; a stale manifest (a
// changed task, a workload missing from it, one extra in it) is detected by the library and by
// `ekb suite-manifest --check`, which names each workload and how to regenerate; the fixture suite's
// own manifest is up to date.
#include <gtest/gtest.h>

#include <algorithm>

#include "command_util.h"
#include "fixture_suite.h"
#include "suite/manifest.h"
#include "suite/suite_version.h"
#include "suite/task_hash.h"

namespace ekb::test {
namespace {

std::string hash_of(const Suite& s, const std::string& task) { return task_hash(*s.find(task)->program); }

TEST(TaskHash, ChangesWithSizesAndDistributionsNotWithComments) {
  FixtureCopy f("hash");
  Suite before = Suite::load(f.suite);
  f.replace("conv/conv1d_k3.ekb", "# 1-D convolution", "# A reworded comment. 1-D convolution");
  f.replace("elementwise/scale.ekb", "scale_128: N = 128", "scale_128: N = 256");
  f.replace("model/mlp2.ekb", "W2 : f32[H, O] ~ normal(0, 0.2)", "W2 : f32[H, O] ~ normal(0, 0.25)");
  Suite after = Suite::load(f.suite);
  EXPECT_EQ(hash_of(before, "conv1d_k3_a"), hash_of(after, "conv1d_k3_a"));  // a comment is not the task
  EXPECT_EQ(hash_of(before, "scale_64"), hash_of(after, "scale_64"));
  EXPECT_NE(hash_of(before, "scale_128"), hash_of(after, "scale_128"));      // a size
  EXPECT_NE(hash_of(before, "mlp2_small"), hash_of(after, "mlp2_small"));    // a declared distribution
  EXPECT_NE(hash_of(before, "mlp2_wide"), hash_of(after, "mlp2_wide"));
  EXPECT_EQ(hash_of(before, "relu_256").size(), 16u);
  // Two workloads of one pattern are two tasks.
  EXPECT_NE(hash_of(before, "conv1d_k3_a"), hash_of(before, "conv1d_k3_c"));
}

TEST(SuiteVersion, ReadFromTheVersionFileAndRecordedOnEveryTask) {
  Suite s = Suite::load(fixture_suite_dir());
  EXPECT_EQ(s.version(), "0.2.0");
  for (const auto& t : s.tasks()) EXPECT_EQ(t.suite_version, "0.2.0") << t.name;
  FixtureCopy f("version");
  f.write("VERSION", "v1\n");
  try {
    Suite::load(f.suite);
    FAIL() << "a malformed VERSION loaded";
  } catch (const DiagnosticError& e) {
    EXPECT_NE(e.diagnostics().render_all().find("expected one line MAJOR.MINOR.PATCH"), std::string::npos)
        << e.diagnostics().render_all();
  }
  std::filesystem::remove(f.suite / "VERSION");
  EXPECT_EQ(Suite::load(f.suite).version(), "");  // unversioned
  EXPECT_EQ(suite_version_label(""), "unversioned");
}

TEST(Manifest, RoundTripsSortedByWorkload) {
  Suite s = Suite::load(fixture_suite_dir());
  auto m = manifest_of(s);
  ASSERT_EQ(m.size(), 8u);
  EXPECT_TRUE(std::is_sorted(m.begin(), m.end(), [](const auto& a, const auto& b) { return a.workload < b.workload; }));
  EXPECT_EQ(m[0].workload, "conv1d_k3_a");
  EXPECT_EQ(m[0].pattern, "conv1d_k3");
  EXPECT_EQ(m[0].task_hash, hash_of(s, "conv1d_k3_a"));
  EXPECT_EQ(parse_manifest(manifest_text(m), "M"), m);
  EXPECT_TRUE(compare_manifest(m, m).empty());
}

TEST(Manifest, MalformedOrRepeatedLinesAreErrorsNamingTheLine) {
  try {
    parse_manifest("# header\nmm\tmm\n", "suite/MANIFEST");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("suite/MANIFEST:2: expected `workload<TAB>pattern<TAB>task_hash`"), std::string::npos)
        << e.what();
  }
  try {
    parse_manifest("a\tp\th1\na\tp\th2\n", "M");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("M:2: workload `a` is listed twice"), std::string::npos) << e.what();
  }
}

TEST(Manifest, AStaleManifestNamesEveryChangedMissingAndExtraWorkload) {
  FixtureCopy f("stale");
  auto stored = manifest_of(Suite::load(f.suite));
  f.replace("elementwise/scale.ekb", "scale_128: N = 128", "scale_128: N = 256\n  scale_512: N = 512");  // changed, and new
  std::filesystem::remove(f.suite / "elementwise/relu.ekb");                                             // gone
  f.write("subsets/pick.txt", "mlp2_small\n");
  auto diffs = compare_manifest(stored, manifest_of(Suite::load(f.suite)));
  ASSERT_EQ(diffs.size(), 3u);
  EXPECT_EQ(diffs[0].workload, "relu_256");
  EXPECT_EQ(diffs[0].change, ManifestChange::extra);
  EXPECT_EQ(diffs[1].workload, "scale_128");
  EXPECT_EQ(diffs[1].change, ManifestChange::changed);
  EXPECT_NE(diffs[1].stored.task_hash, diffs[1].current.task_hash);
  EXPECT_EQ(diffs[2].workload, "scale_512");
  EXPECT_EQ(diffs[2].change, ManifestChange::missing);
  EXPECT_EQ(describe(diffs[0]), "in the manifest but not in the suite: relu_256 (pattern `relu_256`)");
  EXPECT_EQ(describe(diffs[1]).rfind("changed: scale_128 (task hash " + diffs[1].stored.task_hash + " in the manifest, ", 0), 0u)
      << describe(diffs[1]);
  EXPECT_EQ(describe(diffs[2]).rfind("not in the manifest: scale_512 (pattern `scale`", 0), 0u) << describe(diffs[2]);
  // A workload moved to another pattern with the same L0 would keep its hash; the pattern is compared too.
  auto moved = stored;
  moved[0].pattern = "other";
  auto d = compare_manifest(moved, stored);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(describe(d[0]), "changed: conv1d_k3_a (pattern `other` in the manifest, `conv1d_k3` now)");
}

CommandResult ekb_in(const std::filesystem::path& suite, const std::string& args) {
  return run_command(std::string(EKB_BINARY) + " --suite " + suite.string() + " " + args + " 2>&1");
}

TEST(ManifestCommand, WriteThenCheckThenDetectEveryKindOfStaleness) {
  FixtureCopy f("command");
  std::filesystem::remove(f.suite / "MANIFEST");
  CommandResult none = ekb_in(f.suite, "suite-manifest --check");
  EXPECT_EQ(none.status, 1);
  EXPECT_NE(none.out.find("the suite has no manifest"), std::string::npos) << none.out;
  EXPECT_NE(none.out.find("fix: run `ekb --suite " + f.suite.string() + " suite-manifest --write`"), std::string::npos) << none.out;
  CommandResult printed = ekb_in(f.suite, "suite-manifest");
  ASSERT_EQ(printed.status, 0) << printed.out;
  EXPECT_FALSE(std::filesystem::exists(f.suite / "MANIFEST"));  // printing writes nothing
  CommandResult wrote = ekb_in(f.suite, "suite-manifest --write");
  ASSERT_EQ(wrote.status, 0) << wrote.out;
  EXPECT_NE(wrote.out.find("8 workload(s), suite 0.2.0"), std::string::npos) << wrote.out;
  EXPECT_EQ(f.read("MANIFEST"), printed.out);
  CommandResult ok = ekb_in(f.suite, "suite-manifest --check");
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_NE(ok.out.find("up to date: 8 workload(s), suite 0.2.0"), std::string::npos) << ok.out;

  f.replace("conv/conv1d_k3.ekb", "conv1d_k3_c: T = 16", "conv1d_k3_c: T = 17");                 // a changed task
  f.replace("model/mlp2.ekb", "mlp2_wide:", "mlp2_deep: B = 1, I = 8, H = 8, O = 2\n  mlp2_wide:");  // a missing line
  f.replace("MANIFEST", "scale_64\t", "scale_32\tscale\t0123456789abcdef\nscale_64\t");             // an extra line
  CommandResult stale = ekb_in(f.suite, "suite-manifest --check");
  EXPECT_EQ(stale.status, 1) << stale.out;
  EXPECT_NE(stale.out.find("does not match the suite: 3 workload(s) differ (1 changed, 1 in the manifest but not in the "
                          "suite, 1 not in the manifest)"),
            std::string::npos)
      << stale.out;
  EXPECT_LT(stale.out.find("changed: conv1d_k3_c"), stale.out.find("not in the manifest: mlp2_deep"));  // changes first
  EXPECT_NE(stale.out.find("  changed: conv1d_k3_c (task hash "), std::string::npos) << stale.out;
  EXPECT_NE(stale.out.find("  not in the manifest: mlp2_deep"), std::string::npos) << stale.out;
  EXPECT_NE(stale.out.find("  in the manifest but not in the suite: scale_32"), std::string::npos) << stale.out;
  EXPECT_NE(stale.out.find("suite-manifest --write"), std::string::npos) << stale.out;
  EXPECT_NE(ekb_in(f.suite, "suite-manifest --write --check").status, 0);  // the two exclude each other
  ASSERT_EQ(ekb_in(f.suite, "suite-manifest --write").status, 0);
  EXPECT_EQ(ekb_in(f.suite, "suite-manifest --check").status, 0);
}

TEST(ManifestCommand, TheFixtureSuitesManifestIsUpToDate) {
  CommandResult r = ekb_in(fixture_suite_dir(), "suite-manifest --check");
  EXPECT_EQ(r.status, 0) << r.out;
}

}  // namespace
}  // namespace ekb::test
