// `ekb leaderboard [RUN...]`: stored runs ranked (src/report/leaderboard.h), as a table or JSON.
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "report/leaderboard.h"

namespace ekb::cli {

void register_leaderboard(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand("leaderboard", std::string("Rank stored runs (the HTML report's leaderboard): ") + report::kRankingRule +
                                                    ". Each with its mode, model, backend, device profile, hardware and timing.");
  struct Opts {
    std::vector<int64_t> runs;
    std::string db = default_db();
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("RUN", o->runs, "the runs to rank (default: every run with attempts)");
  cmd->add_option("--db", o->db, "the results store (default: $EKB_DB, else ./ekb_results.db)")->option_text("FILE");
  cmd->add_flag("--json", o->json, "print JSON: the rule, the ranked runs (with every metric) and notes");
  cmd->callback([o, &g] {
    require_store_file(o->db);
    ResultsStore store(o->db);
    std::unique_ptr<Suite> suite = current_suite(g, o->json);
    report::RunSelection sel = report::select_runs(store, o->db, o->runs, suite.get());
    std::vector<report::RankedRun> ranked = report::rank_runs(sel.runs);
    if (o->json) {
      nlohmann::json j = report::leaderboard_json(ranked);
      j["not_ranked"] = sel.skipped;
      std::cout << j.dump(2) << "\n";
      return;
    }
    std::cout << fmt::format("{:>4} {:>4}  {:<36} {:<16} {:<7} {:<16} {:<5} {:>5} {:>7}  {:>9} {:>9} {:>8} {:>8} {:>9}  {}\n", "rank", "run",
                             "what", "model", "backend", "device", "timed", "tasks", "samples", "Compile@1", "Correct@1", "Fast@1.0",
                             "(signif)", "geomean", "marks");
    for (const auto& r : ranked) {
      const report::RunSummary& s = *r.run;
      const Metrics& m = s.metrics;
      std::string what = s.what.scores_run ? fmt::format("{} of run {}", s.what.label, *s.what.scores_run) : s.what.label;
      std::string marks;
      if (s.what.quick) marks += " quick";
      if (!s.run.finished) marks += " unfinished";
      if (m.noisy) marks += fmt::format(" {}-noisy", m.noisy);
      if (s.versions.mixed()) marks += " task-versions";
      std::cout << fmt::format("{:>4} {:>4}  {:<36} {:<16} {:<7} {:<16} {:<5} {:>5} {:>7}  {:>8.1f}% {:>8.1f}% {:>7.1f}% {:>7.1f}% {:>8.3f}x {}\n",
                               r.rank, s.run.id, what.substr(0, 36), s.what.model.empty() ? "-" : s.what.model.substr(0, 16), s.run.backend,
                               s.run.device.substr(0, 16), s.what.timing, m.tasks, m.samples, 100 * m.compile_at_k, 100 * m.correct_at_k,
                               100 * m.fast.at("1.0"), 100 * m.fast_significant.at("1.0"), m.geomean_speedup, marks);
    }
    std::cout << "\nranked by: " << report::kRankingRule << "\n";
    if (std::string n = report::coverage_note(ranked); !n.empty()) std::cout << "note: " << n << "\n";
    for (const auto& s : sel.skipped) std::cout << "not ranked: " << s << "\n";
  });
}

}  // namespace ekb::cli
