// Results of different task versions are never mixed silently: the store keeps each attempt's suite
// version and task hash (and an older store upgrades with every row kept); a resuming run drops
// what it stored for another version of a task (an attempt, or an agent's steps) and keeps the
// rest; `ekb results` and `ekb results RUN` note attempts made on another version of their task,
// on several suite versions, on a task the suite no longer has, or before versions were recorded,
// in text and in --json.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "command_util.h"
#include "eval/task_versions.h"
#include "fixture_suite.h"
#include "harness/results_store.h"
#include "suite/task_hash.h"

namespace ekb::test {
namespace {

namespace fs = std::filesystem;

struct TempStore {
  fs::path dir;
  std::string path;
  explicit TempStore(const std::string& name) {
    dir = fs::temp_directory_path() / ("ekb-versions-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    path = (dir / "r.db").string();
  }
  ~TempStore() { fs::remove_all(dir); }
};

AttemptRecord attempt(const std::string& task, int sample, const std::string& suite_version, const std::string& hash) {
  AttemptRecord a;
  a.task = task;
  a.sample = sample;
  a.candidate_path = task + ".c";
  a.candidate_hash = "c";
  a.suite_version = suite_version;
  a.task_hash = hash;
  a.eval.outcome = Outcome::ok;
  a.eval.speedup = a.eval.speedup_lo = a.eval.speedup_hi = 1.5;
  a.eval.candidate = summarize_times({1.0});
  a.eval.baseline = summarize_times({1.5});
  return a;
}

std::string current_hash(const std::string& task) {
  static Suite s = Suite::load(fixture_suite_dir());
  return task_hash(*s.find(task)->program);
}

TEST(TaskVersionsStore, EachAttemptAndStepKeepsItsTaskVersion) {
  TempStore t("store");
  ResultsStore s(t.path);
  RunInfo r = s.open_run("k", "cpu", "host", nlohmann::json::object());
  s.add_attempt(r.id, attempt("relu_256", 0, "0.2.0", "aaaa"));
  auto back = s.attempts(r.id).at(0);
  EXPECT_EQ(back.suite_version, "0.2.0");
  EXPECT_EQ(back.task_hash, "aaaa");
  EXPECT_EQ(s.attempt_task_hash(r.id, "relu_256", 0), std::optional<std::string>("aaaa"));
  EXPECT_EQ(s.attempt_task_hash(r.id, "relu_256", 1), std::nullopt);
  StepRecord st;
  st.task = "relu_256";
  st.task_hash = "aaaa";
  s.put_step(r.id, st);
  EXPECT_EQ(s.steps(r.id, "relu_256").at(0).task_hash, "aaaa");
  s.forget_attempt(r.id, "relu_256", 0);
  EXPECT_FALSE(s.has_attempt(r.id, "relu_256", 0));
}

TEST(TaskVersionsStore, AVersion7StoreIsUpgradedWithEveryRowKept) {
  TempStore t("v7");
  {  // a store as schema 7 had it: the latest one less the version columns
    ResultsStore s(t.path);
    RunInfo r = s.open_run("k", "cpu", "host", nlohmann::json::object());
    s.add_attempt(r.id, attempt("relu_256", 0, "x", "y"));
    StepRecord st;
    st.task = "relu_256";
    st.action = "kept";
    s.put_step(r.id, st);
  }
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(t.path.c_str(), &db), SQLITE_OK);
    const char* sql =
        "ALTER TABLE attempts DROP COLUMN suite_version; ALTER TABLE attempts DROP COLUMN task_hash; "
        "ALTER TABLE attempts DROP COLUMN build_hash; ALTER TABLE attempts DROP COLUMN board; "
        "ALTER TABLE attempts DROP COLUMN notes; ALTER TABLE attempts DROP COLUMN floor_ms; ALTER TABLE peaks DROP COLUMN figures; "
        "ALTER TABLE agent_steps DROP COLUMN task_hash; PRAGMA user_version=7;";
    char* err = nullptr;
    ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
    sqlite3_close(db);
  }
  ResultsStore s(t.path);
  auto attempts = s.attempts(1);
  ASSERT_EQ(attempts.size(), 1u);
  EXPECT_DOUBLE_EQ(attempts[0].eval.speedup, 1.5);
  EXPECT_EQ(attempts[0].suite_version, "");  // not recorded then
  EXPECT_FALSE(attempts[0].eval.where.remote());  // (nor where it ran: here, then)
  EXPECT_EQ(attempts[0].task_hash, "");
  EXPECT_EQ(s.attempt_task_hash(1, "relu_256", 0), std::optional<std::string>(""));
  EXPECT_EQ(attempts[0].build_hash, "");  // nor the build (schema 9), kept when a run resumes
  EXPECT_EQ(s.attempt_build_hash(1, "relu_256", 0), std::optional<std::string>(""));
  EXPECT_EQ(s.attempt_build_hash(1, "no_such_task", 0), std::nullopt);
  ASSERT_EQ(s.steps(1, "relu_256").size(), 1u);
  EXPECT_EQ(s.steps(1, "relu_256")[0].action, "kept");
  AttemptRecord built = attempt("scale_64", 0, "0.2.0", "bbbb");
  built.build_hash = "cccc";
  s.add_attempt(1, built);
  EXPECT_EQ(s.attempts(1).at(1).task_hash, "bbbb");
  EXPECT_EQ(s.attempts(1).at(1).build_hash, "cccc");
  EXPECT_EQ(s.attempt_build_hash(1, "scale_64", 0), std::optional<std::string>("cccc"));
}

TEST(TaskVersionsResume, AnAttemptOrStepsOnAnotherVersionAreDroppedTheRestKept) {
  TempStore t("resume");
  ResultsStore s(t.path);
  RunInfo r = s.open_run("k", "cpu", "host", nlohmann::json::object());
  s.add_attempt(r.id, attempt("same", 0, "0.2.0", "h-now"));
  s.add_attempt(r.id, attempt("old", 0, "0.1.0", "h-then"));
  s.add_attempt(r.id, attempt("unrecorded", 0, "", ""));
  EXPECT_EQ(stored_attempt(s, r.id, "same", 0, "h-now").kind, StoredAttempt::same_task);
  EXPECT_EQ(stored_attempt(s, r.id, "old", 0, "h-now").kind, StoredAttempt::other_version);
  EXPECT_EQ(stored_attempt(s, r.id, "old", 0, "h-now").task_hash, "h-then");
  EXPECT_EQ(stored_attempt(s, r.id, "unrecorded", 0, "h-now").kind, StoredAttempt::unrecorded);
  EXPECT_EQ(stored_attempt(s, r.id, "none", 0, "h-now").kind, StoredAttempt::none);

  EXPECT_EQ(drop_other_version(s, r.id, "same", 0, "h-now"), std::nullopt);
  EXPECT_EQ(drop_other_version(s, r.id, "unrecorded", 0, "h-now"), std::nullopt);
  EXPECT_EQ(drop_other_version(s, r.id, "old", 0, "h-now"), std::optional<std::string>("h-then"));
  EXPECT_TRUE(s.has_attempt(r.id, "same", 0));
  EXPECT_TRUE(s.has_attempt(r.id, "unrecorded", 0));
  EXPECT_FALSE(s.has_attempt(r.id, "old", 0));  // to be made again
  // An agent's search stopped mid-way on another version: its steps go too; on this version they stay.
  for (const char* task : {"searched_then", "searched_now"})
    for (int i = 0; i < 3; ++i) {
      StepRecord st;
      st.task = task;
      st.step = i;
      st.task_hash = std::string(task) == "searched_then" ? "h-then" : "h-now";
      s.put_step(r.id, st);
    }
  EXPECT_EQ(drop_other_version(s, r.id, "searched_then", 0, "h-now"), std::optional<std::string>("h-then"));
  EXPECT_TRUE(s.steps(r.id, "searched_then").empty());
  EXPECT_EQ(drop_other_version(s, r.id, "searched_now", 0, "h-now"), std::nullopt);
  EXPECT_EQ(s.steps(r.id, "searched_now").size(), 3u);
  EXPECT_NE(remeasure_note("t sample 0", "h-then", "h-now").find("another version of the task (task hash h-then, h-now now)"),
            std::string::npos);
}

TEST(TaskVersionsReport, NotesEveryKindOfMismatch) {
  Suite s = Suite::load(fixture_suite_dir());
  std::vector<AttemptRecord> all = {attempt("relu_256", 0, "0.2.0", current_hash("relu_256")),
                                    attempt("scale_64", 0, "0.1.0", "0000000000000000"),
                                    attempt("scale_64", 1, "0.1.0", "0000000000000000"),
                                    attempt("gone_task", 0, "0.1.0", "1111111111111111"), attempt("mlp2_small", 0, "", "")};
  TaskVersions v = task_versions(all, &s);
  EXPECT_TRUE(v.mixed());
  EXPECT_EQ(v.suite_versions, (std::vector<std::string>{"0.1.0", "0.2.0"}));
  ASSERT_EQ(v.other_version.size(), 2u);
  EXPECT_EQ(v.other_version[0].current_hash, current_hash("scale_64"));
  ASSERT_EQ(v.gone.size(), 1u);
  EXPECT_EQ(v.unrecorded, 1);
  auto notes = version_notes(v);
  ASSERT_EQ(notes.size(), 4u);
  EXPECT_EQ(notes[0], "note: the attempts span 2 suite versions (0.1.0, 0.2.0): their results are not all on the same tasks");
  EXPECT_EQ(notes[1], "note: 2 attempt(s) were made on another version of their task (suite 0.1.0 vs 0.2.0 now): scale_64, "
                      "scale_64 sample 1; their results do not hold for the current task");
  EXPECT_EQ(notes[2], "note: 1 attempt(s) were made on a task the current suite (0.2.0) does not have: gone_task");
  EXPECT_NE(notes[3].find("1 attempt(s) were stored before ekb recorded the task's version"), std::string::npos);
  auto j = task_versions_json(v);
  EXPECT_EQ(j["other_version"].size(), 2u);
  EXPECT_EQ(j["current_suite_version"], "0.2.0");
  EXPECT_EQ(j["notes"].size(), 4u);
  // A task changed while the suite kept its version: said as such.
  auto same = version_notes(task_versions({attempt("scale_64", 0, "0.2.0", "0000000000000000")}, &s));
  ASSERT_EQ(same.size(), 1u);
  EXPECT_NE(same[0].find("(suite 0.2.0 both: the task changed without a new suite version): scale_64"), std::string::npos)
      << same[0];
  // All on the current versions: nothing to say.
  TaskVersions clean = task_versions({all[0]}, &s);
  EXPECT_FALSE(clean.mixed());
  EXPECT_TRUE(version_notes(clean).empty());
  // Without a suite to compare with, only the stored versions are told apart.
  TaskVersions alone = task_versions(all, nullptr);
  EXPECT_TRUE(alone.other_version.empty());
  EXPECT_EQ(alone.suite_versions.size(), 2u);
}

TEST(TaskVersionsReport, ResultsCommandSaysSoInTextAndJson) {
  TempStore t("command");
  {
    ResultsStore s(t.path);
    RunInfo r = s.open_run("k", "cpu", "host", nlohmann::json::object());
    s.add_attempt(r.id, attempt("relu_256", 0, "0.2.0", current_hash("relu_256")));
    s.add_attempt(r.id, attempt("scale_64", 0, "0.1.0", "0000000000000000"));
    s.finish_run(r.id);
    RunInfo clean = s.open_run("k2", "cpu", "host", nlohmann::json::object());
    s.add_attempt(clean.id, attempt("relu_256", 0, "0.2.0", current_hash("relu_256")));
  }
  std::string ekb = std::string(EKB_BINARY) + " --suite " + fixture_suite_dir().string() + " results ";
  CommandResult one = run_command(ekb + "1 --db " + t.path + " 2>&1");
  ASSERT_EQ(one.status, 0) << one.out;
  EXPECT_NE(one.out.find("note: 1 attempt(s) were made on another version of their task (suite 0.1.0 vs 0.2.0 now): scale_64"),
            std::string::npos)
      << one.out;
  EXPECT_NE(one.out.find("note: the attempts span 2 suite versions (0.1.0, 0.2.0)"), std::string::npos) << one.out;
  CommandResult two = run_command(ekb + "2 --db " + t.path + " 2>&1");
  EXPECT_EQ(two.out.find("note:"), std::string::npos) << two.out;
  auto j = nlohmann::json::parse(run_command(ekb + "1 --json --db " + t.path).out, nullptr, false);
  ASSERT_TRUE(j.is_object());
  EXPECT_TRUE(j["task_versions"]["mixed"].get<bool>());
  EXPECT_EQ(j["task_versions"]["other_version"][0]["task"], "scale_64");
  EXPECT_EQ(j["attempts"][0]["suite_version"], "0.2.0");
  EXPECT_EQ(j["attempts"][1]["task_hash"], "0000000000000000");
  CommandResult runs = run_command(ekb + "--db " + t.path + " 2>&1");
  EXPECT_NE(runs.out.find("note: 1 attempt(s) were made on another version of their task"), std::string::npos) << runs.out;
  auto rj = nlohmann::json::parse(run_command(ekb + "--json --db " + t.path).out, nullptr, false);
  ASSERT_TRUE(rj.is_array() && rj.size() == 2);
  EXPECT_TRUE(rj[0]["task_versions"]["mixed"].get<bool>());
  EXPECT_FALSE(rj[1]["task_versions"]["mixed"].get<bool>());
}

}  // namespace
}  // namespace ekb::test
