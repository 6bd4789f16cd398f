// `ekb report` on real runs, opened in a real browser: `ekb eval --defaults --quick` over two tasks
// of the fixture suite and a small `ekb agent` search (3 measurements), both on OpenCL through PoCL,
// store their runs; runs of the other kinds are added through the store's API (report_store.h: an
// agent's re-score, a generation and its scoring, a quick OpenCL run, an LLM agent); `ekb report`
// writes the page, and headless chromium (browser.h) finds every plot drawn and no error. Its page
// and screenshot are kept in the build tree as artifacts (build/tests/artifacts/report.html and
// report.png; the test prints where). Here, not in ekb_unit_tests: the runs time kernels, and timing
// tests run one at a time.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "browser.h"
#include "command_util.h"
#include "fixture_suite.h"
#include "report_store.h"

namespace ekb::test {
namespace {

namespace fs = std::filesystem;

TEST(ReportRealRuns, RendersInTheBrowserWithAScreenshot) {
  if (!browser_available()) return;
  fs::path dir = fs::path(EKB_TEST_ARTIFACTS_DIR);
  fs::create_directories(dir);
  for (const char* f : {"report-runs.db", "report-runs.db-wal", "report-runs.db-shm", "report.html", "report.png"}) fs::remove(dir / f);
  fs::remove_all(dir / "agent_out");
  std::string db = (dir / "report-runs.db").string();
  std::string ekb = std::string(EKB_BINARY) + " --suite " + fixture_suite_dir().string();

  // On OpenCL through PoCL (on the CPU, as in CI): a GPU profile needs no peak rates measured first,
  // which a machine busy with other work refuses.
  CommandResult c = run_command(ekb + " eval --defaults --quick --device pocl-cpu --tasks 'scale*' --db " + db + " 2>&1");
  ASSERT_EQ(c.status, 0) << c.out;
  c = run_command(ekb + " agent --device pocl-cpu --tasks scale_128 --budget 3 --out " + (dir / "agent_out").string() + " --db " + db + " 2>&1");
  ASSERT_EQ(c.status, 0) << c.out;
  int expected = 23;  // the synthetic runs' plots (report_test.cpp says which)
  Suite suite = Suite::load(fixture_suite_dir());
  {
    ResultsStore s(db);
    ASSERT_EQ(s.runs().size(), 2u);
    ASSERT_EQ(s.attempts(1).size(), 2u);
    ASSERT_FALSE(s.steps(2, "scale_128").empty());
    // Per real run: 2 speedup plots when an attempt is correct, a breakdown by category and by domain
    // where there are two groups or more; the agent's search plot.
    for (int64_t run : {1, 2}) {
      std::set<std::string> categories, domains;
      bool correct = false;
      for (const auto& a : s.attempts(run)) {
        categories.insert(suite.find(a.task)->category);
        domains.insert(suite.find(a.task)->domain);
        correct = correct || a.eval.correct();
      }
      expected += (correct ? 2 : 0) + (categories.size() > 1) + (domains.size() > 1);
    }
    expected += 1;
    fill_synthetic_store(s, suite, dir / "synthetic");
  }
  fs::path html = dir / "report.html";
  c = run_command(ekb + " report --db " + db + " -o " + html.string() + " --title 'ekb report (test)' 2>&1");
  ASSERT_EQ(c.status, 0) << c.out;

  BrowserRun b = run_browser(html, "--dump-dom");
  ASSERT_EQ(b.status, 0) << b.command << "\n" << b.log;
  PageCheck p = check_page(b);
  EXPECT_EQ(p.declared, expected) << describe(p);
  EXPECT_EQ(static_cast<int>(p.canvases.size()), p.declared) << describe(p);
  EXPECT_TRUE(p.not_rendered.empty()) << describe(p);
  EXPECT_EQ(p.errors, 0) << describe(p);
  EXPECT_TRUE(p.script_done) << describe(p);
  EXPECT_TRUE(p.console_errors.empty()) << describe(p);
  // The real runs' rows link to their task's text and the agent's search.
  EXPECT_NE(b.dom.find("href=\"#search-2-scale_128\""), std::string::npos);
  EXPECT_NE(b.dom.find("id=\"task-conv1d_k3_a\""), std::string::npos);

  fs::path png = dir / "report.png";
  BrowserRun shot = run_browser(html, "--screenshot=" + png.string() + " --window-size=1280,2400");
  ASSERT_EQ(shot.status, 0) << shot.command << "\n" << shot.log;
  std::string bytes = read_file_text(png);
  ASSERT_GT(bytes.size(), 20000u) << png;
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
  std::cout << "[ report  ] " << html.string() << "\n[ screenshot ] " << png.string() << " (" << bytes.size() / 1024 << " KiB)\n"
            << "[ chromium ] " << b.command << "\n";
}

}  // namespace
}  // namespace ekb::test
