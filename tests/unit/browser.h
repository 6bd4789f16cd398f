// Opening an HTML report in a real browser from a test: Debian's chromium, headless, with a fresh
// profile and no network (background networking, component updates and sync off), its scripts run
// for a virtual time budget; what a test reads back is the DOM after the scripts ran, the browser's
// log (console messages, with --enable-logging=stderr) and, when asked, a screenshot.
// Browser tests fail when chromium is missing (CI installs it: scripts/setup.sh), unless
// EKB_SKIP_BROWSER_TESTS=1 asks to skip them (README.md); $EKB_CHROMIUM names another binary.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "command_util.h"

namespace ekb::test {

inline bool browser_tests_skipped() {
  const char* v = std::getenv("EKB_SKIP_BROWSER_TESTS");
  return v && std::string(v) == "1";
}

// The chromium binary, or "" when there is none.
inline std::string chromium_binary() {
  if (const char* v = std::getenv("EKB_CHROMIUM"); v && *v) return v;
  for (const char* name : {"chromium", "chromium-browser"}) {
    CommandResult r = run_command(std::string("command -v ") + name + " 2>/dev/null");
    if (r.status == 0 && !r.out.empty()) return r.out.substr(0, r.out.find('\n'));
  }
  return "";
}

// Skips (only when asked to) or fails the test when there is no browser. Use as
// `if (!browser_available()) return;` at the top of a test.
inline bool browser_available() {
  if (browser_tests_skipped()) {
    [] { GTEST_SKIP() << "EKB_SKIP_BROWSER_TESTS=1: the browser tests were asked to be skipped"; }();
    return false;
  }
  if (chromium_binary().empty()) {
    ADD_FAILURE() << "no chromium to open the report in (scripts/setup.sh installs Debian's chromium; set EKB_SKIP_BROWSER_TESTS=1 "
                     "to skip the browser tests where there is none)";
    return false;
  }
  return true;
}

inline std::string read_file_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct BrowserRun {
  std::string command;  // the command line
  int status = -1;
  std::string dom;      // --dump-dom's output: the DOM after the page's scripts ran
  std::string log;      // the browser's standard error (console messages among it)
};

// The command line: a fresh profile in `profile`, nothing fetched in the background, `what` the
// action (--dump-dom, or --screenshot=FILE --window-size=W,H).
inline std::string chromium_command(const std::string& profile, const std::string& what, const std::filesystem::path& html) {
  return chromium_binary() +
         " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --disable-background-networking"
         " --disable-component-update --disable-sync --hide-scrollbars --user-data-dir=" +
         profile + " --virtual-time-budget=5000 --enable-logging=stderr --v=0 " + what + " 'file://" +
         std::filesystem::absolute(html).string() + "'";
}

inline BrowserRun run_browser(const std::filesystem::path& html, const std::string& what) {
  namespace fs = std::filesystem;
  fs::path scratch = fs::temp_directory_path() / ("ekb-browser-" + std::to_string(::getpid()) + "-" + html.stem().string());
  fs::remove_all(scratch);
  fs::create_directories(scratch / "profile");
  BrowserRun r;
  r.command = chromium_command((scratch / "profile").string(), what, html);
  CommandResult c = run_command("timeout 120 " + r.command + " 2>'" + (scratch / "log.txt").string() + "'");
  r.status = c.status;
  r.dom = c.out;
  r.log = read_file_text(scratch / "log.txt");
  fs::remove_all(scratch);
  return r;
}

// What the DOM after the scripts says about the page: its plots, which of them the page marked
// rendered, the errors it recorded, and the browser's console messages at error level.
struct PageCheck {
  int declared = -1;                  // <body data-charts="N">: the plots the report declares
  std::vector<std::string> canvases;  // ids of <canvas data-chart> elements
  std::vector<std::string> not_rendered;
  int errors = -1;                    // <html data-errors="N">
  bool script_done = false;           // the page's own script ran to its end
  std::vector<std::string> error_items;     // the page's #ekb-errors list
  std::vector<std::string> console_errors;  // the browser log's console lines that are errors
};

inline PageCheck check_page(const BrowserRun& b) {
  PageCheck c;
  std::smatch m;
  if (std::regex_search(b.dom, m, std::regex(R"re(<body[^>]*\sdata-charts="(\d+)")re"))) c.declared = std::stoi(m[1]);
  std::regex html_tag(R"re(<html[^>]*>)re");
  if (std::regex_search(b.dom, m, html_tag)) {
    std::string tag = m[0];
    std::smatch e;
    if (std::regex_search(tag, e, std::regex(R"re(data-errors="(\d+)")re"))) c.errors = std::stoi(e[1]);
    c.script_done = tag.find("data-script-done=\"yes\"") != std::string::npos;
  }
  std::regex canvas(R"re(<canvas[^>]*>)re");
  for (auto it = std::sregex_iterator(b.dom.begin(), b.dom.end(), canvas); it != std::sregex_iterator(); ++it) {
    std::string tag = it->str();
    if (tag.find("data-chart=") == std::string::npos) continue;
    std::smatch id;
    std::string name = std::regex_search(tag, id, std::regex(R"re(id="([^"]+)")re")) ? id[1].str() : tag;
    c.canvases.push_back(name);
    if (tag.find("data-rendered=\"yes\"") == std::string::npos) c.not_rendered.push_back(name);
  }
  std::regex item(R"re(<ul id="ekb-errors"[^>]*>([\s\S]*?)</ul>)re");
  if (std::regex_search(b.dom, m, item)) {
    std::string list = m[1];
    std::regex li(R"re(<li>([\s\S]*?)</li>)re");
    for (auto it = std::sregex_iterator(list.begin(), list.end(), li); it != std::sregex_iterator(); ++it) c.error_items.push_back((*it)[1]);
  }
  // Chromium logs console messages as `...:INFO:CONSOLE(line)] "message", source: URL (line)` (the
  // level of the console call is not in the line), uncaught exceptions with "Uncaught", and blocked
  // loads with "Refused to". The report logs nothing on purpose: every console line is an error.
  std::istringstream log(b.log);
  for (std::string line; std::getline(log, line);)
    if (line.find(":CONSOLE") != std::string::npos || line.find("Uncaught") != std::string::npos || line.find("Refused to") != std::string::npos)
      c.console_errors.push_back(line);
  return c;
}

inline std::string describe(const PageCheck& c) {
  std::string s = "declared " + std::to_string(c.declared) + " plots, " + std::to_string(c.canvases.size()) + " canvases, not rendered:";
  for (const auto& n : c.not_rendered) s += " " + n;
  s += "; data-errors " + std::to_string(c.errors) + (c.script_done ? "; script done" : "; script NOT done") + "; page errors:";
  for (const auto& e : c.error_items) s += "\n  " + e;
  s += "\nconsole:";
  for (const auto& e : c.console_errors) s += "\n  " + e;
  return s;
}

}  // namespace ekb::test
