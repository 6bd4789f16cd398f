// The HTML report in a real browser (Debian's chromium, headless; browser.h): a report of a store
// filled through the API (report_store.h) renders every plot it declares, with no error on the page
// or the console; and the checks catch a broken report: a script error and a load from outside the
// page (which the page's policy blocks) are both reported, and plots the library did not draw are
// not marked rendered.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>

#include "browser.h"
#include "command_util.h"
#include "fixture_suite.h"
#include "report_store.h"

namespace ekb::test {
namespace {

namespace fs = std::filesystem;

struct ReportFiles {
  fs::path dir, html;
  explicit ReportFiles(const std::string& name) {
    dir = fs::temp_directory_path() / ("ekb-report-browser-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    html = dir / "report.html";
    std::string db = (dir / "r.db").string();
    {
      ResultsStore s(db);
      Suite suite = Suite::load(fixture_suite_dir());
      fill_synthetic_store(s, suite, dir);
    }
    CommandResult c = run_command(std::string(EKB_BINARY) + " --suite " + fixture_suite_dir().string() + " report --db " + db + " -o " +
                                  html.string() + " 2>&1");
    EXPECT_EQ(c.status, 0) << c.out;
  }
  ~ReportFiles() { fs::remove_all(dir); }
  // A copy of the report with `edit` applied, as another file.
  fs::path variant(const std::string& name, const std::function<void(std::string&)>& edit) const {
    std::string text = read_file_text(html);
    edit(text);
    fs::path p = dir / (name + ".html");
    write_text(p, text);
    return p;
  }
};

void replace_once(std::string& text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << "no " << from;
  text.replace(at, from.size(), to);
}

TEST(ReportBrowser, EveryPlotRendersWithoutErrors) {
  if (!browser_available()) return;
  ReportFiles f("clean");
  BrowserRun b = run_browser(f.html, "--dump-dom");
  ASSERT_EQ(b.status, 0) << b.command << "\n" << b.log;
  PageCheck c = check_page(b);
  EXPECT_EQ(c.declared, 23) << describe(c);  // report_test.cpp says which
  EXPECT_EQ(static_cast<int>(c.canvases.size()), c.declared) << describe(c);
  EXPECT_TRUE(c.not_rendered.empty()) << describe(c);
  EXPECT_EQ(c.errors, 0) << describe(c);
  EXPECT_TRUE(c.error_items.empty()) << describe(c);
  EXPECT_TRUE(c.script_done) << describe(c);
  EXPECT_TRUE(c.console_errors.empty()) << describe(c);
}

TEST(ReportBrowser, BrokenReportsAreCaught) {
  if (!browser_available()) return;
  ReportFiles f("broken");
  // A script error, and an image from outside the page: the page records both, the console has them.
  fs::path errors = f.variant("errors", [](std::string& t) {
    replace_once(t, "</footer>", "</footer><img alt=\"\" src=\"https://example.invalid/pixel.png\"><script>no_such_function();</script>");
  });
  PageCheck c = check_page(run_browser(errors, "--dump-dom"));
  EXPECT_GE(c.errors, 2) << describe(c);
  std::string items;
  for (const auto& e : c.error_items) items += e + "\n";
  EXPECT_NE(items.find("no_such_function is not defined"), std::string::npos) << describe(c);
  EXPECT_NE(items.find("blocked by the page policy"), std::string::npos) << describe(c);
  EXPECT_FALSE(c.console_errors.empty()) << describe(c);
  EXPECT_TRUE(c.not_rendered.empty()) << describe(c);  // the plots themselves still drew

  // A plotting library that draws nothing: no plot is marked rendered, though nothing failed.
  fs::path blank = f.variant("blank", [](std::string& t) {
    size_t at = t.find("Chart.js v3.9.1");
    ASSERT_NE(at, std::string::npos);
    size_t start = t.rfind("<script>", at), end = t.find("</script>", at);
    t.replace(start, end - start,
              "<script>window.Chart = function () {}; Chart.register = function (p) { Chart.plugin = p; }; "
              "Chart.defaults = { font: {} };\n");
  });
  c = check_page(run_browser(blank, "--dump-dom"));
  EXPECT_EQ(c.errors, 0) << describe(c);
  EXPECT_EQ(c.not_rendered.size(), c.canvases.size()) << describe(c);
  EXPECT_EQ(static_cast<int>(c.canvases.size()), c.declared) << describe(c);
  EXPECT_TRUE(c.script_done) << describe(c);
}

}  // namespace
}  // namespace ekb::test
