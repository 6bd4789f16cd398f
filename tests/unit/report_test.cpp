// The report's data model and the leaderboard on a store filled through the API (report_store.h):
// each run's metrics are compute_metrics' over its attempts, Fast@p over p agrees with them at the
// thresholds, the breakdowns per category and domain hold what they should, runs are described
// from their keys and environments (mode, model, what an eval run scores, quick timing), the
// candidates' code is found by hash (steps, replies, the suite, files) or said missing, the ranking
// follows its rule, text is escaped in the page; and `ekb report` / `ekb leaderboard` refuse a
// missing, empty or foreign store and an unknown run clearly.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

#include "command_util.h"
#include "eval/report.h"
#include "fixture_suite.h"
#include "report/html.h"
#include "report/html_report.h"
#include "report/leaderboard.h"
#include "report/report_data.h"
#include "report_store.h"

namespace ekb::test {
namespace {

namespace fs = std::filesystem;
using namespace ekb::report;

struct Store {
  fs::path dir;
  std::string path;
  explicit Store(const std::string& name) {
    dir = fs::temp_directory_path() / ("ekb-report-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    path = (dir / "r.db").string();
  }
  ~Store() { fs::remove_all(dir); }
};

const Suite& fixture() {
  static Suite s = Suite::load(fixture_suite_dir());
  return s;
}

const RunSummary& summary_of(const RunSelection& sel, int64_t id) {
  for (const auto& s : sel.runs)
    if (s.run.id == id) return s;
  throw std::runtime_error("no summary of run " + std::to_string(id));
}

void expect_same(const Metrics& a, const Metrics& b) {
  EXPECT_EQ(a.tasks, b.tasks);
  EXPECT_EQ(a.samples, b.samples);
  EXPECT_EQ(a.compile_at_k, b.compile_at_k);
  EXPECT_EQ(a.correct_at_k, b.correct_at_k);
  EXPECT_EQ(a.fast, b.fast);
  EXPECT_EQ(a.fast_significant, b.fast_significant);
  EXPECT_EQ(a.geomean_speedup, b.geomean_speedup);
  EXPECT_EQ(a.noisy, b.noisy);
  EXPECT_EQ(a.failures, b.failures);
}

TEST(ReportData, EachRunsMetricsAreComputeMetricsOverItsAttempts) {
  Store t("metrics");
  ResultsStore s(t.path);
  SyntheticRuns r = fill_synthetic_store(s, fixture(), t.dir);
  RunSelection sel = select_runs(s, t.path, {}, &fixture());
  // Every run with attempts, and the generation (none of its own) said why it is not shown.
  EXPECT_EQ(sel.runs.size(), 6u);
  ASSERT_EQ(sel.skipped.size(), 1u);
  EXPECT_NE(sel.skipped[0].find("eval run " + std::to_string(r.generation_eval) + " scores its samples"), std::string::npos) << sel.skipped[0];
  for (const auto& sum : sel.runs) {
    SCOPED_TRACE("run " + std::to_string(sum.run.id));
    expect_same(sum.metrics, compute_metrics(outcomes_of(s.attempts(sum.run.id))));
  }
  const RunSummary& gen = summary_of(sel, r.generation_eval);
  EXPECT_EQ(gen.metrics.samples, 3);
  EXPECT_EQ(gen.metrics.failures.at("compile"), 1);
  EXPECT_EQ(gen.metrics.failures.at("wrong"), 1);
  EXPECT_DOUBLE_EQ(gen.metrics.correct_at_k, 0.25);  // scale_64: 1 of 2 samples; relu_256: 0 of 1
}

TEST(ReportData, FastOverPAgreesWithTheMetricsAtTheirThresholds) {
  Store t("curve");
  ResultsStore s(t.path);
  fill_synthetic_store(s, fixture(), t.dir);
  ReportData d = build_report_data(s, t.path, {}, &fixture());
  for (const auto& sum : d.selection.runs) {
    SCOPED_TRACE("run " + std::to_string(sum.run.id));
    const auto& curve = d.fast_curves.at(sum.run.id);
    for (const auto& [key, p] : fast_thresholds()) {
      auto it = std::find_if(curve.begin(), curve.end(), [&](const FastPoint& f) { return f.p == p; });
      ASSERT_NE(it, curve.end()) << "no point at p = " << key;
      EXPECT_EQ(it->strict, sum.metrics.fast.at(key)) << key;
      EXPECT_EQ(it->significant, sum.metrics.fast_significant.at(key)) << key;
    }
    // It never rises with p, and ends at 0 past the largest speedup.
    for (size_t i = 1; i < curve.size(); ++i) {
      EXPECT_LE(curve[i].strict, curve[i - 1].strict);
      EXPECT_LE(curve[i].significant, curve[i - 1].significant);
    }
    EXPECT_EQ(curve.back().strict, 0.0);
  }
}

TEST(ReportData, FastCurveStepsAtEachSpeedup) {
  std::vector<SampleOutcome> ss = {{"a", Outcome::ok, 1.5, 1.2, false}, {"b", Outcome::ok, 0.9, 0.8, false}, {"c", Outcome::wrong, 0, 0, false}};
  auto c = fast_curve(ss, {0.0, 0.85, 0.9, 1.1, 1.3, 1.5});
  std::vector<double> strict, sig;
  for (const auto& f : c) strict.push_back(f.strict), sig.push_back(f.significant);
  EXPECT_EQ(strict, (std::vector<double>{2.0 / 3, 2.0 / 3, 1.0 / 3, 1.0 / 3, 1.0 / 3, 0}));
  EXPECT_EQ(sig, (std::vector<double>{2.0 / 3, 1.0 / 3, 1.0 / 3, 1.0 / 3, 0, 0}));
}

TEST(ReportData, BreakdownsPerCategoryAndDomainCountTheirTasks) {
  Store t("groups");
  ResultsStore s(t.path);
  SyntheticRuns r = fill_synthetic_store(s, fixture(), t.dir);
  RunSelection sel = select_runs(s, t.path, {}, &fixture());
  const RunSummary& all = summary_of(sel, r.defaults);  // every fixture task once
  std::map<std::string, int> cats, doms;
  for (const auto& g : all.by_category) cats[g.name] = g.metrics.tasks;
  for (const auto& g : all.by_domain) doms[g.name] = g.metrics.tasks;
  // tests/fixtures/suite_small/README.md: conv 3 workloads, elementwise 3, model 2; a pattern counts in each domain of its workloads.
  EXPECT_EQ(cats, (std::map<std::string, int>{{"conv", 3}, {"elementwise", 3}, {"model", 2}}));
  int n = 0;
  for (const auto& [name, k] : doms) n += k;
  EXPECT_EQ(n, 8);
  for (const auto& t2 : fixture().tasks()) EXPECT_TRUE(doms.count(t2.domain)) << t2.domain;
  // The metrics of a group are compute_metrics' over its attempts.
  for (const auto& g : all.by_category) {
    std::vector<AttemptRecord> in;
    for (const auto& a : all.attempts)
      if (fixture().find(a.task)->category == g.name) in.push_back(a);
    expect_same(g.metrics, compute_metrics(outcomes_of(in)));
  }
  // A task the suite does not have is grouped apart, not dropped.
  RunSelection none = select_runs(s, t.path, {r.defaults}, nullptr);
  ASSERT_EQ(none.runs[0].by_category.size(), 1u);
  EXPECT_EQ(none.runs[0].by_category[0].name, "(not in the suite)");
  EXPECT_EQ(none.runs[0].by_category[0].metrics.tasks, 8);
}

TEST(ReportData, RunsAreDescribedFromTheirKeysAndEnvironments) {
  Store t("describe");
  ResultsStore s(t.path);
  SyntheticRuns r = fill_synthetic_store(s, fixture(), t.dir);
  RunSelection sel = select_runs(s, t.path, {}, &fixture());
  const RunDescription& defaults = summary_of(sel, r.defaults).what;
  EXPECT_EQ(defaults.label, "eval (default schedules)");
  EXPECT_EQ(defaults.hardware, "AMD EPYC 9B45 (synthetic) (2 cores)");
  EXPECT_EQ(defaults.threads, 2);
  EXPECT_EQ(defaults.memory_budget, 4ull << 30);
  EXPECT_FALSE(defaults.scores_run);
  const RunSummary& rescore = summary_of(sel, r.rescore);
  ASSERT_TRUE(rescore.what.scores_run);
  EXPECT_EQ(*rescore.what.scores_run, r.agent);
  EXPECT_EQ(rescore.what.scores_label, "LEKA-search");
  const RunDescription& gen = summary_of(sel, r.generation_eval).what;
  ASSERT_TRUE(gen.scores_run);
  EXPECT_EQ(*gen.scores_run, r.generation);
  EXPECT_EQ(gen.model, "tiny-coder-7b");
  EXPECT_EQ(gen.mode, "raw");
  const RunSummary& quick = summary_of(sel, r.quick_gpu);
  EXPECT_TRUE(quick.what.quick);
  EXPECT_EQ(quick.what.hardware, "cpu-x86-64-AMD EPYC (PoCL)");
  EXPECT_NE(quick.notes.at(0).find("a verification, not a measurement"), std::string::npos);
  const RunSummary& llm = summary_of(sel, r.llm_agent);
  EXPECT_EQ(llm.what.label, "LEKA-LLM (ir)");
  EXPECT_EQ(llm.what.timing, "warm");
  EXPECT_FALSE(llm.run.finished);
  EXPECT_EQ(llm.memory.budget, 512ull << 20);
  EXPECT_EQ(llm.memory.max_bytes, 3ull << 20);
  bool unfinished = false;
  for (const auto& n : llm.notes) unfinished = unfinished || n.rfind("unfinished", 0) == 0;
  EXPECT_TRUE(unfinished);
}

TEST(ReportData, CandidatesCodeIsFoundByItsHashOrSaidMissing) {
  Store t("programs");
  ResultsStore s(t.path);
  SyntheticRuns r = fill_synthetic_store(s, fixture(), t.dir);
  ReportData d = build_report_data(s, t.path, {}, &fixture());
  auto program = [&](int64_t run, const std::string& task, int sample) {
    for (const auto& sum : d.selection.runs)
      if (sum.run.id == run)
        for (const auto& a : sum.attempts)
          if (a.task == task && a.sample == sample) return d.programs.at({task, a.candidate_hash});
    throw std::runtime_error("no attempt");
  };
  auto summary = [&](int64_t run) -> const RunSummary& { return summary_of(d.selection, run); };
  // The task's own text (also the agent's start, the same code): shown as the task's, no search of its own.
  EXPECT_EQ(program(r.defaults, "relu_256", 0).source, ProgramSource::suite_task);
  EXPECT_FALSE(search_of(d, summary(r.defaults), "relu_256"));
  CandidateProgram agent = program(r.agent, "relu_256", 0);
  EXPECT_EQ(agent.source, ProgramSource::agent_step);
  EXPECT_NE(agent.text.find("vectorize i 16"), std::string::npos);
  EXPECT_EQ(search_of(d, summary(r.agent), "relu_256"), r.agent);
  // The re-score's candidate is the agent's program: its code and its search.
  CandidateProgram rescored = program(r.rescore, "scale_128", 0);
  EXPECT_EQ(rescored.source, ProgramSource::agent_step);
  EXPECT_EQ(search_of(d, summary(r.rescore), "scale_128"), r.agent);
  EXPECT_FALSE(search_of(d, summary(r.generation_eval), "scale_64"));
  CandidateProgram reply = program(r.generation_eval, "scale_64", 0);
  EXPECT_EQ(reply.source, ProgramSource::model_reply);
  EXPECT_NE(reply.text.find("2.0f * X[i]"), std::string::npos);
  CandidateProgram file = program(r.generation_eval, "scale_64", 1);
  EXPECT_EQ(file.source, ProgramSource::file);
  EXPECT_EQ(file.text, r.file_code);
  CandidateProgram changed = program(r.generation_eval, "relu_256", 0);
  EXPECT_EQ(changed.source, ProgramSource::missing);
  EXPECT_NE(changed.origin.find("has changed since the attempt"), std::string::npos) << changed.origin;
  EXPECT_EQ(d.trajectories.size(), 3u);  // the search's two tasks, the LLM agent's one
  EXPECT_EQ(d.trajectories.at({r.agent, "relu_256"}).steps.size(), 5u);
}

RunSummary ranked_run(int64_t id, double fast_sig, double geomean, double correct, bool quick = false) {
  RunSummary s;
  s.run.id = id;
  s.metrics.fast_significant["1.0"] = fast_sig;
  s.metrics.geomean_speedup = geomean;
  s.metrics.correct_at_k = correct;
  s.what.quick = quick;
  return s;
}

TEST(Leaderboard, RanksByItsRule) {
  std::vector<RunSummary> runs = {ranked_run(1, 0.5, 1.2, 1.0),      ranked_run(2, 0.9, 3.0, 1.0, true),  // quick: after every full run
                                  ranked_run(3, 0.5, 1.4, 0.9),      ranked_run(4, 0.75, 1.0, 0.5),
                                  ranked_run(5, 0.5, 1.2, 1.0),      ranked_run(6, 0.5, 1.2, 0.95)};
  std::vector<RankedRun> r = rank_runs(runs);
  std::vector<int64_t> order;
  std::vector<int> ranks;
  for (const auto& x : r) order.push_back(x.run->run.id), ranks.push_back(x.rank);
  EXPECT_EQ(order, (std::vector<int64_t>{4, 3, 1, 5, 6, 2}));
  EXPECT_EQ(ranks, (std::vector<int>{1, 2, 3, 3, 5, 6}));  // 1 and 5 tie on every key
  nlohmann::json j = leaderboard_json(r);
  EXPECT_EQ(j["ranking_rule"], kRankingRule);
  EXPECT_EQ(j["runs"][0]["run"], 4);
  EXPECT_EQ(j["runs"][5]["quick"], true);
}

TEST(ReportHtml, EscapesTextAndKeepsScriptsWhole) {
  EXPECT_EQ(escape_html("if (a < b && c > d) s = \"x\" + 'y';"), "if (a &lt; b &amp;&amp; c &gt; d) s = &quot;x&quot; + &#39;y&#39;;");
  std::string j = json_for_script({{"code", "</script><!-- a < b && c"}});
  EXPECT_EQ(j.find('<'), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(j)["code"], "</script><!-- a < b && c");
  EXPECT_EQ(nlohmann::json::parse(json_for_script({{"bad", std::string("a\xff")}}))["bad"], "a\xef\xbf\xbd");
  EXPECT_EQ(anchor_id("task", "conv<1>"), "task-conv~3c1~3e");
  EXPECT_NE(anchor_id("t", "a~3c"), anchor_id("t", "a<"));

  Store t("html");
  ResultsStore s(t.path);
  SyntheticRuns r = fill_synthetic_store(s, fixture(), t.dir);
  HtmlReport page = html_report(build_report_data(s, t.path, {}, &fixture()));
  // The code read from a file has `<` and `&` in it: in the page only escaped.
  EXPECT_EQ(page.html.find("a < b && c > d"), std::string::npos);
  EXPECT_NE(page.html.find("a &lt; b &amp;&amp; c &gt; d"), std::string::npos);
  EXPECT_NE(page.html.find("#include &lt;stdint.h&gt;"), std::string::npos);
  // Nothing ends a script early, nothing is fetched: no src or href outside the page.
  size_t scripts = 0;
  for (size_t at = 0; (at = page.html.find("<script", at)) != std::string::npos; ++at) ++scripts;
  size_t ends = 0;
  for (size_t at = 0; (at = page.html.find("</script", at)) != std::string::npos; ++at) ++ends;
  EXPECT_EQ(scripts, 4u);
  EXPECT_EQ(ends, 4u);
  EXPECT_EQ(page.html.find(" src="), std::string::npos);
  EXPECT_EQ(page.html.find("href=\"http"), std::string::npos);
  EXPECT_NE(page.html.find("Content-Security-Policy\" content=\"default-src 'none'"), std::string::npos);
  // Every declared plot has its canvas; the page says how many.
  size_t canvases = 0;
  for (size_t at = 0; (at = page.html.find("<canvas ", at)) != std::string::npos; ++at) ++canvases;
  EXPECT_EQ(static_cast<int>(canvases), page.charts);
  EXPECT_NE(page.html.find("<body data-charts=\"" + std::to_string(page.charts) + "\">"), std::string::npos);
  // All runs: Fast@p, by backend (cpu, opencl), by device profile (host, pocl-cpu, edge-cpu). Per run: 2 speedup plots
  // (each run has a correct attempt); a breakdown where there are 2 groups or more: by category the defaults run (3
  // categories), by domain every run but the LLM agent's (one task); a search plot for the 2 agent runs.
  EXPECT_EQ(page.charts, 3 + 6 * 2 + 1 + 5 + 2);
  (void)r;
}

CommandResult ekb(const std::string& args) { return run_command(std::string(EKB_BINARY) + " --suite " + fixture_suite_dir().string() + " " + args + " 2>&1"); }

TEST(ReportNotes, AnAttemptsNotesAreShownBesideItInTheTableTheJsonAndThePage) {
  Store t("notes");
  int64_t run = 0;
  {
    ResultsStore s(t.path);
    nlohmann::json key = {{"command", "eval"}, {"dir", "notes"}, {"backend", "cpu"}, {"device", "host"}, {"tasks", ""}};
    run = s.open_run(key.dump(), "cpu", "host", synthetic_env("host", 2, 4ull << 30, "cold")).id;
    AttemptRecord a = synthetic_attempt(fixture(), "relu_256", 0, Outcome::ok, 40.0, 38.0, 42.0);
    a.candidate_path = "relu_256.c";
    a.candidate_hash = "h";
    a.eval.notes = {make_note(NoteKind::fewer_flops_than_stated, "3e6 flops in <0.001 ms"),
                    make_note(NoteKind::beyond_copy_bandwidth, "2048 stated bytes")};
    s.add_attempt(run, a);
    AttemptRecord plain = synthetic_attempt(fixture(), "scale_128", 0, Outcome::ok, 1.0, 0.9, 1.1);
    plain.candidate_path = "scale_128.c";
    plain.candidate_hash = "g";
    s.add_attempt(run, plain);
    s.finish_run(run);
    // The JSON of an attempt: every note with its kind and text; none is an empty list.
    auto attempts = s.attempts(run);
    ASSERT_EQ(attempts.size(), 2u);
    nlohmann::json j = attempt_json(attempts[0]);
    ASSERT_EQ(j["notes"].size(), 2u);
    EXPECT_EQ(j["notes"][0]["kind"], "fewer_flops_than_stated");
    EXPECT_EQ(j["notes"][0]["text"], a.eval.notes[0].text);
    EXPECT_EQ(j["status"], "ok") << "a note is not a failure";
    EXPECT_EQ(attempt_json(attempts[1])["notes"], nlohmann::json::array());
    // The page: the markers beside the status, the texts (escaped) in the row, a filter for them.
    HtmlReport page = html_report(build_report_data(s, t.path, {}, &fixture()));
    EXPECT_NE(page.html.find("ok +flops +copy"), std::string::npos);
    EXPECT_NE(page.html.find("note (+flops): "), std::string::npos);
    EXPECT_NE(page.html.find("3e6 flops in &lt;0.001 ms"), std::string::npos);
    EXPECT_NE(page.html.find("<option value=\"noted\">"), std::string::npos);
    EXPECT_NE(page.html.find("data-what=\"correct significant noted\""), std::string::npos);
  }
  // The table of `ekb results RUN`: the markers beside the status, each note under its row.
  CommandResult c = ekb("results " + std::to_string(run) + " --db " + t.path);
  ASSERT_EQ(c.status, 0) << c.out;
  EXPECT_NE(c.out.find("ok +flops +copy"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("      note (+flops): faster than the task's flop count"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("      note (+copy): "), std::string::npos) << c.out;
  CommandResult js = ekb("results " + std::to_string(run) + " --db " + t.path + " --json");
  ASSERT_EQ(js.status, 0) << js.out;
  EXPECT_EQ(nlohmann::json::parse(js.out)["attempts"][0]["notes"][1]["kind"], "beyond_copy_bandwidth");
}

TEST(ReportCommand, RefusesWhatIsNotAStoreOrNotInIt) {
  Store t("errors");
  std::string out = (t.dir / "r.html").string();
  CommandResult c = ekb("report --db " + (t.dir / "none.db").string() + " -o " + out);
  EXPECT_EQ(c.status, 1);
  EXPECT_NE(c.out.find("no results store at"), std::string::npos) << c.out;
  write_text(t.dir / "empty.db", "");
  c = ekb("leaderboard --db " + (t.dir / "empty.db").string());
  EXPECT_EQ(c.status, 1);
  EXPECT_NE(c.out.find("is an empty file, not an ekb results store"), std::string::npos) << c.out;
  // A SQLite database of something else is left as it is.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((t.dir / "other.db").string().c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "CREATE TABLE notes (x TEXT)", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  c = ekb("report --db " + (t.dir / "other.db").string() + " -o " + out);
  EXPECT_EQ(c.status, 1);
  EXPECT_NE(c.out.find("not an ekb results store"), std::string::npos) << c.out;
  {
    ResultsStore s(t.path);  // a store with no runs
  }
  c = ekb("report --db " + t.path + " -o " + out);
  EXPECT_EQ(c.status, 1);
  EXPECT_NE(c.out.find("holds no runs yet"), std::string::npos) << c.out;
  {
    ResultsStore s(t.path);
    fill_synthetic_store(s, fixture(), t.dir);
  }
  c = ekb("report 99 --db " + t.path + " -o " + out);
  EXPECT_EQ(c.status, 1);
  EXPECT_NE(c.out.find("no run 99 in " + t.path), std::string::npos) << c.out;
  EXPECT_FALSE(fs::exists(out));
  c = ekb("report 1 3 --db " + t.path + " -o " + out);
  EXPECT_EQ(c.status, 0) << c.out;
  EXPECT_NE(c.out.find("2 runs"), std::string::npos) << c.out;
  EXPECT_TRUE(fs::exists(out));
  EXPECT_FALSE(fs::exists(out + ".tmp"));
}

TEST(LeaderboardCommand, PrintsTheRankingAsJson) {
  Store t("leaderboard");
  SyntheticRuns r;
  {
    ResultsStore s(t.path);
    r = fill_synthetic_store(s, fixture(), t.dir);
  }
  CommandResult c = ekb("leaderboard --json --db " + t.path);
  ASSERT_EQ(c.status, 0) << c.out;
  auto j = nlohmann::json::parse(c.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << c.out;
  ASSERT_EQ(j["runs"].size(), 6u);
  // The quick run last; the rest by Fast@1.0 significant: the agent (2 of 2 tasks) and its re-score first.
  EXPECT_EQ(j["runs"][5]["run"], r.quick_gpu);
  EXPECT_EQ(j["runs"][0]["run"], r.agent);
  EXPECT_EQ(j["runs"][1]["run"], r.rescore);
  EXPECT_EQ(j["runs"][1]["scores_run"], r.agent);
  for (size_t i = 1; i < 5; ++i)
    EXPECT_GE(j["runs"][i - 1]["metrics"]["fast_significant"]["1.0"].get<double>(), j["runs"][i]["metrics"]["fast_significant"]["1.0"].get<double>());
  EXPECT_EQ(j["not_ranked"].size(), 1u);
  c = ekb("leaderboard --db " + t.path);
  ASSERT_EQ(c.status, 0) << c.out;
  EXPECT_NE(c.out.find("ranked by: runs whose times mean something before runs on an emulated board"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("full-timing runs before quick ones"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("quick"), std::string::npos);
}

}  // namespace
}  // namespace ekb::test
