// `ekb report [RUN...] -o FILE`: the HTML report of stored runs (src/report/html_report.h), one
// self-contained file written atomically.
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "report/html_report.h"
#include "report/leaderboard.h"
#include "util/write_file.h"

namespace ekb::cli {

void register_report(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand(
      "report",
      "Write one self-contained HTML page (works offline; nothing fetched when viewed) on stored runs: the leaderboard, per run "
      "Compile@1, Correct@1, Fast@p strict and significant, geomean speedup, failures by kind, kernel memory against the budget, "
      "plots (Fast@p over p, the speedups' distribution and their 95% intervals, breakdowns per category, domain, backend and "
      "device profile, each agent search's speedup over its steps by layer), and every attempt in a sortable, filterable table "
      "linked to the task's text, the candidate's code and its search.");
  struct Opts {
    std::vector<int64_t> runs;
    std::string db = default_db(), out = "ekb_report.html", title = "ekb report";
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("RUN", o->runs, "the runs to show (default: every run with attempts; `ekb results` lists them)");
  cmd->add_option("--db", o->db, "the results store (default: $EKB_DB, else ./ekb_results.db)")->option_text("FILE");
  cmd->add_option("-o,--out", o->out, "the HTML file to write (default: ekb_report.html)")->option_text("FILE");
  cmd->add_option("--title", o->title, "the page's title (default: ekb report)")->option_text("TEXT");
  cmd->callback([o, &g] {
    require_store_file(o->db);
    ResultsStore store(o->db);
    std::unique_ptr<Suite> suite = current_suite(g, false);
    report::ReportData data = report::build_report_data(store, o->db, o->runs, suite.get());
    report::HtmlReport page = report::html_report(data, o->title);
    write_atomically(o->out, page.html);
    size_t attempts = 0;
    for (const auto& r : data.selection.runs) attempts += r.attempts.size();
    std::cout << fmt::format("wrote {} ({:.0f} KiB): {} run{}, {} attempts, {} plots\n", o->out, page.html.size() / 1024.0,
                             data.selection.runs.size(), data.selection.runs.size() == 1 ? "" : "s", attempts, page.charts);
    for (const auto& s : data.selection.skipped) std::cout << "  not shown: " << s << "\n";
  });
}

}  // namespace ekb::cli
