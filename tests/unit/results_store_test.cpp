// The results store (harness/results_store.h): runs are found again by their key, attempts are
// stored once per (run, task, sample) with their timings, and a file that is not a store is refused
// without being touched.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <fstream>
#include <sstream>

#include "harness/results_store.h"

#include <sqlite3.h>

namespace ekb {
namespace {

std::string temp_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("ekb_store_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto p = dir / name;
  std::filesystem::remove(p);
  return p.string();
}

AttemptRecord attempt(const std::string& task, int sample, const std::string& status, double speedup) {
  AttemptRecord a;
  a.task = task;
  a.sample = sample;
  a.candidate_path = task + ".c";
  a.candidate_hash = "abc";
  a.eval.outcome = outcome_named(status);
  a.eval.speedup = speedup;
  a.eval.candidate = summarize_times({1.0, 2.0, 3.0});
  a.eval.baseline = summarize_times({2.0, 4.0, 6.0});
  return a;
}

TEST(ResultsStore, ResumesTheUnfinishedRunWithTheSameKey) {
  std::string path = temp_path("resume.db");
  int64_t id;
  {
    ResultsStore s(path);
    RunInfo r = s.open_run("eval dir=x", "cpu", "host", {{"cpu", "test"}});
    id = r.id;
    s.add_attempt(id, attempt("relu", 0, "ok", 2.0));
    s.add_attempt(id, attempt("relu", 0, "ok", 9.0));  // the same key again: ignored, not counted twice
  }
  ResultsStore s(path);
  RunInfo again = s.open_run("eval dir=x", "cpu", "host", {});
  EXPECT_EQ(again.id, id);
  EXPECT_EQ(again.env.value("cpu", ""), "test");
  EXPECT_TRUE(s.has_attempt(id, "relu", 0));
  EXPECT_FALSE(s.has_attempt(id, "relu", 1));
  auto all = s.attempts(id);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].eval.speedup, 2.0);
  EXPECT_EQ(all[0].eval.candidate.median, 2.0);
  EXPECT_EQ(all[0].eval.baseline.ms.size(), 3u);
  s.finish_run(id);
  EXPECT_NE(s.open_run("eval dir=x", "cpu", "host", {}).id, id);  // finished: a new run
  EXPECT_EQ(s.runs().size(), 2u);
}

TEST(ResultsStore, RefusesAFileThatIsNotAStoreAndLeavesIt) {
  std::string path = temp_path("notes.db");
  { std::ofstream(path) << "my precious notes\n"; }
  EXPECT_THROW({ ResultsStore s(path); }, std::runtime_error);
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_EQ(ss.str(), "my precious notes\n");
}

TEST(ResultsStore, MemoryAndInfiniteErrorsAreStoredPerAttempt) {
  std::string path = temp_path("memory.db");
  ResultsStore s(path);
  RunInfo r = s.open_run("k", "cpu", "host", nlohmann::json::object());
  AttemptRecord a = attempt("t", 0, "ok", 1.0);
  a.eval.candidate_memory = 12345678;
  OutputComparison nonfinite;  // a NaN output against a finite reference: an infinite error
  nonfinite.name = "Y";
  nonfinite.max_rel_error = std::numeric_limits<double>::infinity();
  a.eval.comparisons.push_back(nonfinite);
  s.add_attempt(r.id, a);
  auto back = s.attempts(r.id).at(0);
  EXPECT_EQ(back.eval.candidate_memory, 12345678u);
  ASSERT_EQ(back.eval.comparisons.size(), 1u);
  EXPECT_TRUE(std::isinf(back.eval.comparisons[0].max_rel_error));
}

TEST(ResultsStore, WhereAnAttemptRanOnABoardIsStoredWithItAndAnUnavailableOneIsKnown) {
  std::string path = temp_path("board.db");
  ResultsStore s(path);
  RunInfo r = s.open_run("k", "cpu", "pi5", nlohmann::json::object());
  AttemptRecord on_board = attempt("t", 0, "ok", 1.0);
  on_board.eval.where = RemoteRun{"pi5", "aarch64", "pi5.local", 4242, true, false, "none: qemu-user"};
  s.add_attempt(r.id, on_board);
  s.add_attempt(r.id, attempt("t", 1, "unavailable", 0));
  s.add_attempt(r.id, attempt("t", 2, "ok", 1.0));
  auto back = s.attempts(r.id);
  ASSERT_EQ(back.size(), 3u);
  const RemoteRun& w = back[0].eval.where;
  EXPECT_TRUE(w.remote());
  EXPECT_EQ(w.board, "pi5");
  EXPECT_EQ(w.arch, "aarch64");
  EXPECT_EQ(w.host, "pi5.local");
  EXPECT_EQ(w.worker_pid, 4242);
  EXPECT_TRUE(w.emulated);
  EXPECT_FALSE(w.sandboxed);
  EXPECT_EQ(w.sandbox, "none: qemu-user");
  EXPECT_FALSE(back[2].eval.where.remote());  // made here
  EXPECT_EQ(s.attempt_outcome(r.id, "t", 1), Outcome::unavailable);
  EXPECT_EQ(s.attempt_outcome(r.id, "t", 2), Outcome::ok);
  EXPECT_EQ(s.attempt_outcome(r.id, "t", 3), std::nullopt);
}

TEST(ResultsStore, AVersion1StoreIsUpgradedWithEveryAttemptKept) {
  std::string path = temp_path("v1.db");
  {  // the first schema, as ekb wrote it, with one attempt
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    const char* sql =
        "CREATE TABLE runs (id INTEGER PRIMARY KEY, created TEXT NOT NULL, key TEXT NOT NULL, backend TEXT NOT NULL, "
        "device TEXT NOT NULL, env TEXT NOT NULL, finished INTEGER NOT NULL DEFAULT 0);"
        "CREATE TABLE attempts (run INTEGER NOT NULL REFERENCES runs(id), task TEXT NOT NULL, sample INTEGER NOT NULL, "
        "candidate TEXT NOT NULL, candidate_hash TEXT NOT NULL, status TEXT NOT NULL, message TEXT NOT NULL, "
        "compile_ms REAL, candidate_ms TEXT NOT NULL, baseline_ms TEXT NOT NULL, speedup REAL, peak_rss INTEGER, "
        "comparisons TEXT NOT NULL, created TEXT NOT NULL, PRIMARY KEY (run, task, sample));"
        "INSERT INTO runs VALUES (1, 'then', 'k', 'cpu', 'host', '{}', 1);"
        "INSERT INTO attempts VALUES (1, 'relu', 0, 'relu.c', 'h', 'ok', '', 5.0, '[1.0]', '[2.0]', 2.0, 99, '[]', 'then');"
        "PRAGMA user_version=1;";
    ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  ResultsStore s(path);
  auto attempts = s.attempts(1);
  ASSERT_EQ(attempts.size(), 1u);
  EXPECT_EQ(attempts[0].task, "relu");
  EXPECT_DOUBLE_EQ(attempts[0].eval.speedup, 2.0);
  EXPECT_EQ(attempts[0].eval.candidate_memory, 0u);  // not measured then
  EXPECT_DOUBLE_EQ(attempts[0].eval.speedup_lo, 2.0);  // no interval then: it reads as the speedup
  EXPECT_DOUBLE_EQ(attempts[0].eval.speedup_hi, 2.0);
  EXPECT_FALSE(attempts[0].eval.noisy);
  EXPECT_DOUBLE_EQ(attempts[0].eval.candidate_outside_ms, 0.0);  // not measured then
  EXPECT_TRUE(attempts[0].eval.notes.empty());                   // no notes then
  AttemptRecord a = attempt("relu", 1, "ok", 1.5);
  a.eval.candidate_memory = 4096;
  s.add_attempt(1, a);
  EXPECT_EQ(s.attempts(1).size(), 2u);
  StepRecord st;  // the agent's table, as the latest schema has it
  st.task = "relu";
  st.eval.seconds = 2.5;
  s.put_step(1, st);
  ASSERT_EQ(s.steps(1, "relu").size(), 1u);
  EXPECT_DOUBLE_EQ(s.steps(1, "relu")[0].eval.seconds, 2.5);
  LlmRequestRecord q;  // and the language models' table, added by the last upgrade
  q.task = "relu";
  q.cost = 0.5;
  s.put_llm_request(1, q);
  EXPECT_DOUBLE_EQ(s.llm_spend(1).cost, 0.5);
}

TEST(ResultsStore, IntervalsNoisyFlagsAndTimeOutsideTheKernelAreStoredPerAttempt) {
  std::string path = temp_path("interval.db");
  ResultsStore s(path);
  RunInfo r = s.open_run("k", "cpu", "host", nlohmann::json::object());
  AttemptRecord a = attempt("t", 0, "ok", 1.2);
  a.eval.speedup_lo = 1.1;
  a.eval.speedup_hi = 1.35;
  a.eval.noisy = true;
  a.eval.candidate_outside_ms = 0.081;
  a.eval.baseline_outside_ms = 0.079;
  s.add_attempt(r.id, a);
  auto back = s.attempts(r.id).at(0);
  EXPECT_DOUBLE_EQ(back.eval.candidate_outside_ms, 0.081);
  EXPECT_DOUBLE_EQ(back.eval.baseline_outside_ms, 0.079);
  EXPECT_DOUBLE_EQ(back.eval.speedup_lo, 1.1);
  EXPECT_DOUBLE_EQ(back.eval.speedup_hi, 1.35);
  EXPECT_TRUE(back.eval.noisy);
}

TEST(ResultsStore, NotesAreStoredPerAttemptAndAnAttemptWithoutHasNone) {
  std::string path = temp_path("notes.db");
  ResultsStore s(path);
  RunInfo r = s.open_run("k", "cpu", "host", nlohmann::json::object());
  AttemptRecord a = attempt("t", 0, "ok", 9.0);
  a.eval.notes = {make_note(NoteKind::fewer_flops_than_stated, "1e9 flops in 0.1 ms"),
                  make_note(NoteKind::beyond_read_bandwidth, "4096 bytes of X in 0.0001 ms")};
  s.add_attempt(r.id, a);
  s.add_attempt(r.id, attempt("u", 0, "ok", 1.0));
  auto back = s.attempts(r.id);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].eval.notes, a.eval.notes);
  EXPECT_TRUE(back[1].eval.notes.empty());
  // Stored as JSON text, each kind by its stored name.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT notes FROM attempts WHERE task = 't'", -1, &q, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(q), SQLITE_ROW);
  auto j = nlohmann::json::parse(reinterpret_cast<const char*>(sqlite3_column_text(q, 0)));
  sqlite3_finalize(q);
  sqlite3_close(db);
  EXPECT_EQ(j[1]["kind"], "beyond_read_bandwidth");
}

// A GPU attempt's launch floor (an empty kernel timed as its calls are) is stored beside its times;
// an attempt without one (a CPU profile) reads back 0, not measured.
TEST(ResultsStore, TheLaunchFloorIsStoredPerAttempt) {
  std::string path = temp_path("floor.db");
  ResultsStore s(path);
  RunInfo r = s.open_run("k", "opencl", "pocl-cpu", nlohmann::json::object());
  AttemptRecord a = attempt("t", 0, "ok", 1.2);
  a.eval.floor_ms = 0.0042;
  s.add_attempt(r.id, a);
  s.add_attempt(r.id, attempt("t", 1, "ok", 1.0));
  auto back = s.attempts(r.id);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_DOUBLE_EQ(back[0].eval.floor_ms, 0.0042);
  EXPECT_DOUBLE_EQ(back[1].eval.floor_ms, 0.0);
}

// A store of schema 11 (before the launch floor) opens as the current schema, its attempts kept and
// read back without a floor; new attempts store theirs.
TEST(ResultsStore, ASchema11StoreIsUpgradedWithALaunchFloorColumn) {
  std::string path = temp_path("v11.db");
  {
    ResultsStore s(path);
    RunInfo r = s.open_run("k", "cuda", "h200-cuda", nlohmann::json::object());
    s.add_attempt(r.id, attempt("relu", 0, "ok", 2.0));
  }
  {  // back to schema 11, as ekb wrote it before the column
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "ALTER TABLE attempts DROP COLUMN floor_ms; PRAGMA user_version=11;", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  ResultsStore s(path);
  auto back = s.attempts(1);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_DOUBLE_EQ(back[0].eval.speedup, 2.0);
  EXPECT_DOUBLE_EQ(back[0].eval.floor_ms, 0.0);
  AttemptRecord a = attempt("relu", 1, "ok", 1.5);
  a.eval.floor_ms = 0.003;
  s.add_attempt(1, a);
  EXPECT_DOUBLE_EQ(s.attempts(1).at(1).eval.floor_ms, 0.003);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), kResultsStoreSchema);
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST(ResultsStore, AgentStepsAreStoredReplacedAndForgotten) {
  std::string path = temp_path("steps.db");
  ResultsStore s(path);
  RunInfo r = s.open_run("agent", "cpu", "host", nlohmann::json::object());
  for (int i = 0; i < 4; ++i) {
    StepRecord st;
    st.task = "t";
    st.step = i;
    st.layer = i == 0 ? "L1" : "L2";
    st.action = "action " + std::to_string(i);
    st.program = "kernel t\n";
    st.program_hash = "h" + std::to_string(i);
    st.accepted = i == 2;
    st.eval = attempt("t", 0, i == 3 ? "wrong" : "ok", 1.0 + i).eval;
    st.eval.cut_short = i == 2;
    st.eval.seconds = 0.5 * i;
    s.put_step(r.id, st);
  }
  StepRecord again;
  again.task = "t";
  again.step = 1;
  again.action = "replaced";
  s.put_step(r.id, again);
  auto steps = s.steps(r.id, "t");
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[1].action, "replaced");
  EXPECT_TRUE(steps[2].accepted);
  EXPECT_DOUBLE_EQ(steps[2].eval.speedup, 3.0);
  EXPECT_TRUE(steps[2].eval.cut_short);
  EXPECT_FALSE(steps[0].eval.cut_short);
  EXPECT_DOUBLE_EQ(steps[3].eval.seconds, 1.5);
  EXPECT_EQ(steps[3].eval.outcome, Outcome::wrong);
  s.forget_steps(r.id, "t", 2);
  EXPECT_EQ(s.steps(r.id, "t").size(), 2u);
  EXPECT_EQ(s.step_tasks(r.id), std::vector<std::string>{"t"});
}

}  // namespace
}  // namespace ekb

namespace ekb {
namespace {

TEST(ResultsStore, LanguageModelRequestsAreStoredReplacedAndSummed) {
  std::string path = temp_path("llm.db");
  {
    ResultsStore s(path);
    RunInfo r = s.open_run("{\"command\":\"generate\"}", "cpu", "host", nlohmann::json::object());
    LlmRequestRecord q;
    q.task = "t";
    q.sample = 1;
    q.prompt_version = "1-abcdef01";
    q.model = "m";
    q.endpoint = "http://127.0.0.1:1/v1 (model m)";
    q.messages = {{{"role", "user"}, {"content", "write it"}}};
    q.reply = "```c\nvoid f(void) {}\n```";
    q.prompt_tokens = 100;
    q.completion_tokens = 20;
    q.cost = 0.25;
    q.latency_s = 1.5;
    q.http_attempts = 2;
    q.http_status = 200;
    q.code_status = "ok";
    q.file = "t.s1.c";
    q.file_hash = "0123";
    s.put_llm_request(r.id, q);
    LlmRequestRecord f = q;
    f.sample = 0;
    f.reply = "";
    f.failure = "timeout";
    f.error = "no answer within 1 s";
    f.prompt_tokens = f.completion_tokens = 0;
    f.cost = 0;
    f.file = f.file_hash = f.code_status = "";
    s.put_llm_request(r.id, f);
    LlmSpend sp = s.llm_spend(r.id);
    EXPECT_EQ(sp.requests, 2);
    EXPECT_EQ(sp.prompt_tokens, 100);
    EXPECT_EQ(sp.completion_tokens, 20);
    EXPECT_DOUBLE_EQ(sp.cost, 0.25);
    // The same (run, task, sample, turn) replaces the one before: a request asked again.
    f.failure = "";
    f.reply = "none";
    f.code_status = "no code";
    s.put_llm_request(r.id, f);
    EXPECT_EQ(s.llm_spend(r.id).requests, 2);
  }
  ResultsStore s(path);  // read back from the file
  std::vector<LlmRequestRecord> all = s.llm_requests(1);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].sample, 0);
  EXPECT_EQ(all[0].code_status, "no code");
  EXPECT_EQ(all[1].messages[0]["content"], "write it");
  EXPECT_EQ(all[1].reply, "```c\nvoid f(void) {}\n```");
  EXPECT_EQ(all[1].http_attempts, 2);
  EXPECT_EQ(all[1].file, "t.s1.c");
  EXPECT_FALSE(all[1].created.empty());
  EXPECT_FALSE(s.llm_request(1, "t", 5, 0));
  EXPECT_EQ(s.llm_request(1, "t", 1, 0)->latency_s, 1.5);
}

}  // namespace
}  // namespace ekb
