// The leaderboard's ranking (leaderboard.h).
#include "report/leaderboard.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "eval/report.h"

namespace ekb::report {

const char* const kRankingRule =
    "runs whose times mean something before runs on an emulated board (whose do not); full-timing runs before quick ones "
    "(`ekb eval --quick` times are a verification, not a measurement); then Fast@1.0 "
    "significant (the share of tasks whose candidate is correct and whose speedup's 95% interval lies above 1), then the "
    "geomean speedup over correct attempts, then Correct@1, each higher first; then the older run first";

namespace {

auto rank_key(const RunSummary& s) {
  return std::make_tuple(!s.what.emulated, !s.what.quick, s.metrics.fast_significant.at("1.0"), s.metrics.geomean_speedup,
                         s.metrics.correct_at_k);
}

}  // namespace

std::vector<RankedRun> rank_runs(const std::vector<RunSummary>& runs) {
  std::vector<const RunSummary*> order;
  for (const auto& r : runs) order.push_back(&r);
  std::sort(order.begin(), order.end(), [](const RunSummary* a, const RunSummary* b) {
    auto ka = rank_key(*a), kb = rank_key(*b);
    if (ka != kb) return ka > kb;
    return a->run.id < b->run.id;
  });
  std::vector<RankedRun> out;
  for (size_t i = 0; i < order.size(); ++i) {
    int rank = i > 0 && rank_key(*order[i]) == rank_key(*order[i - 1]) ? out.back().rank : static_cast<int>(i) + 1;
    out.push_back({rank, order[i]});
  }
  return out;
}

nlohmann::json ranked_json(const RankedRun& r) {
  const RunSummary& s = *r.run;
  const RunDescription& d = s.what;
  nlohmann::json j = {{"rank", r.rank},
                      {"run", s.run.id},
                      {"created", s.run.created},
                      {"finished", s.run.finished},
                      {"label", d.label},
                      {"model", d.model},
                      {"mode", d.mode},
                      {"backend", s.run.backend},
                      {"device", s.run.device},
                      {"hardware", d.hardware},
                      {"threads", d.threads},
                      {"memory_budget", d.memory_budget},
                      {"timing", d.timing},
                      {"quick", d.quick},
                      {"board", d.board},
                      {"emulated", d.emulated},
                      {"metrics", metrics_json(s.metrics)},
                      {"notes", s.notes}};
  j["scores_run"] = d.scores_run ? nlohmann::json(*d.scores_run) : nlohmann::json(nullptr);
  return j;
}

nlohmann::json leaderboard_json(const std::vector<RankedRun>& ranked) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : ranked) rows.push_back(ranked_json(r));
  nlohmann::json j = {{"ranking_rule", kRankingRule}, {"runs", rows}};
  std::string note = coverage_note(ranked);
  j["notes"] = note.empty() ? nlohmann::json::array() : nlohmann::json::array({note});
  return j;
}

std::string coverage_note(const std::vector<RankedRun>& ranked) {
  auto tasks_of = [](const RunSummary& s) {
    std::set<std::string> t;
    for (const auto& a : s.attempts) t.insert(a.task);
    return t;
  };
  if (ranked.size() < 2) return "";
  std::set<std::string> first = tasks_of(*ranked[0].run);
  for (size_t i = 1; i < ranked.size(); ++i)
    if (tasks_of(*ranked[i].run) != first)
      return fmt::format("the runs do not cover the same tasks (run {}: {} tasks, run {}: {}): each row's metrics are over its own",
                         ranked[0].run->run.id, first.size(), ranked[i].run->run.id, ranked[i].run->metrics.tasks);
  return "";
}

}  // namespace ekb::report
