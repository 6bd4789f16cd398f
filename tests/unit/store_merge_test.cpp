// `ekb merge` (harness/store_merge.h): the shards' stores of a run become one run; a row given twice
// is kept once; the same key with different results is a conflict that writes nothing; a store of
// another schema version is refused and left byte for byte as it was; agent steps and requests to
// language models travel; an existing OUT is merged into, and never left half written.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "command_util.h"
#include "harness/results_store.h"
#include "harness/store_merge.h"

namespace ekb {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("ekb-merge-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

AttemptRecord attempt(const std::string& task, int sample, Outcome outcome, double speedup) {
  AttemptRecord a;
  a.task = task;
  a.sample = sample;
  a.candidate_path = task + ".ekb";
  a.candidate_hash = "cand-" + task;
  a.suite_version = "1.0.0";
  a.task_hash = "hash-" + task;
  a.build_hash = "build-" + task;
  a.eval.outcome = outcome;
  a.eval.speedup = a.eval.speedup_lo = a.eval.speedup_hi = speedup;
  a.eval.candidate = summarize_times({1.0, 1.1, 1.2});
  a.eval.baseline = summarize_times({2.0, 2.1, 2.2});
  return a;
}

nlohmann::json env_on(const std::string& host, const std::string& cpu = "Test CPU") {
  return {{"host", host}, {"cpu", cpu}, {"target", "x86-64 avx2"}, {"compiler", "clang 19"}, {"ekb_commit", "abc123"},
          {"timing", "cold"}, {"peak_gflops", host == "a" ? 100.0 : 101.0}};
}

// The key of an eval run over tasks t1..t4, as `ekb eval` makes it (canonical JSON), with a shard or without.
std::string eval_key(const std::string& shard = "") {
  nlohmann::json k{{"command", "eval"}, {"dir", "(defaults)"}, {"device", "host"}, {"tasks", "t*"}, {"timing", "cold"}};
  if (!shard.empty()) k["shard"] = shard;
  return k.dump();
}

// A shard's store: its run over `tasks`, finished or not.
void shard_store(const std::string& path, const std::string& shard, const std::vector<std::string>& tasks, const std::string& host,
                 bool finish = true, const std::string& cpu = "Test CPU", const nlohmann::json& more_env = nlohmann::json::object()) {
  ResultsStore s(path);
  nlohmann::json env = env_on(host, cpu);
  env.update(more_env);
  RunInfo r = s.open_run(eval_key(shard), "cpu", "host", env);
  for (const auto& t : tasks) {
    AttemptRecord a = attempt(t, 0, t == "t3" ? Outcome::wrong : Outcome::ok, 1.5);
    if (t == "t1") a.eval.notes = {make_note(NoteKind::fewer_flops_than_stated, "faster than " + t + "'s flops")};
    s.add_attempt(r.id, a);
  }
  if (finish) s.finish_run(r.id);
}

std::string bytes_of(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void sql(const std::string& path, const std::string& statement) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, statement.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

TEST(StoreMerge, TheShardsOfARunBecomeOneRunWithTheUnshardedKey) {
  TempDir d;
  shard_store(d / "s1.db", "1/2", {"t1", "t3"}, "a");
  shard_store(d / "s2.db", "2/2", {"t2", "t4"}, "b");
  MergeReport rep = merge_stores({d / "s1.db", d / "s2.db"}, d / "out.db");
  ASSERT_TRUE(rep.ok()) << (rep.problems.empty() ? rep.conflicts[0].describe() : rep.problems[0]);
  EXPECT_TRUE(rep.written);
  ASSERT_EQ(rep.runs.size(), 1u);
  EXPECT_EQ(rep.runs[0].shards, (std::vector<int>{1, 2}));
  EXPECT_TRUE(rep.runs[0].missing.empty());
  EXPECT_TRUE(rep.runs[0].finished);
  for (const char* side : {"-wal", "-shm"})
    EXPECT_FALSE(fs::exists(d / "s1.db" + side)) << "reading an input leaves nothing beside it";

  ResultsStore out(d / "out.db");
  auto runs = out.runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].key, eval_key()) << "the merged run's key is the run's without shards";
  EXPECT_TRUE(runs[0].finished);
  // What the shards had in common stays; each shard's own environment is listed.
  EXPECT_EQ(runs[0].env.value("cpu", ""), "Test CPU");
  EXPECT_EQ(runs[0].env.value("timing", ""), "cold");
  EXPECT_FALSE(runs[0].env.contains("peak_gflops")) << "the shards' peaks differ: they are per shard";
  ASSERT_EQ(runs[0].env["merged_from"].size(), 2u);
  EXPECT_EQ(runs[0].env["merged_from"][0]["shard"], "1/2");
  EXPECT_EQ(runs[0].env["merged_from"][0]["host"], "a");
  EXPECT_EQ(runs[0].env["merged_from"][1]["env"]["peak_gflops"], 101.0);
  auto attempts = out.attempts(runs[0].id);
  ASSERT_EQ(attempts.size(), 4u);
  EXPECT_EQ(attempts[2].task, "t3");
  EXPECT_EQ(attempts[2].eval.outcome, Outcome::wrong);
  EXPECT_EQ(attempts[0].task_hash, "hash-t1");
  EXPECT_EQ(attempts[0].build_hash, "build-t1");
  EXPECT_DOUBLE_EQ(attempts[0].eval.candidate.median, 1.1);
  ASSERT_EQ(attempts[0].eval.notes.size(), 1u) << "notes travel with their attempt";
  EXPECT_EQ(attempts[0].eval.notes[0].text, make_note(NoteKind::fewer_flops_than_stated, "faster than t1's flops").text);
  EXPECT_TRUE(attempts[1].eval.notes.empty());
}

TEST(StoreMerge, AStoreItsWriterStillHoldsIsReadThroughItsLog) {
  TempDir d;
  shard_store(d / "s1.db", "1/2", {"t1"}, "a");
  ResultsStore writer(d / "s2.db");  // open: its rows are in its write-ahead log, not yet in the file
  RunInfo r = writer.open_run(eval_key("2/2"), "cpu", "host", env_on("a"));
  writer.add_attempt(r.id, attempt("t2", 0, Outcome::ok, 1.5));
  writer.finish_run(r.id);
  ASSERT_GT(fs::file_size(d / "s2.db-wal"), 0u);
  MergeReport rep = merge_stores({d / "s1.db", d / "s2.db"}, d / "out.db");
  ASSERT_TRUE(rep.ok());
  ASSERT_EQ(rep.runs.size(), 1u);
  EXPECT_EQ(rep.runs[0].attempts, 2u);
  EXPECT_TRUE(rep.runs[0].finished);
}

TEST(StoreMerge, AMissingShardLeavesTheRunUnfinishedAndNamed) {
  TempDir d;
  shard_store(d / "s1.db", "1/3", {"t1"}, "a");
  shard_store(d / "s3.db", "3/3", {"t3"}, "a", /*finish=*/false);
  MergeReport refused = merge_stores({d / "s1.db", d / "s2.db", d / "s3.db"}, d / "out.db");
  EXPECT_FALSE(refused.ok()) << "a missing input is refused unless --missing-ok";
  EXPECT_FALSE(fs::exists(d / "out.db"));
  MergeReport rep = merge_stores({d / "s1.db", d / "s2.db", d / "s3.db"}, d / "out.db", MergeOptions{true});
  ASSERT_TRUE(rep.ok());
  ASSERT_EQ(rep.runs.size(), 1u);
  EXPECT_EQ(rep.runs[0].missing, std::vector<int>{2});
  EXPECT_FALSE(rep.runs[0].finished);
  ResultsStore out(d / "out.db");
  EXPECT_FALSE(out.runs()[0].finished);
}

TEST(StoreMerge, RowsGivenTwiceAreKeptOnceAndMergingAgainChangesNothing) {
  TempDir d;
  shard_store(d / "s1.db", "1/2", {"t1", "t3"}, "a");
  shard_store(d / "s2.db", "2/2", {"t2", "t4"}, "b");
  fs::copy_file(d / "s1.db", d / "s1-copy.db");
  MergeReport rep = merge_stores({d / "s1.db", d / "s2.db", d / "s1-copy.db"}, d / "out.db");
  ASSERT_TRUE(rep.ok());
  EXPECT_EQ(rep.duplicates, 2u);
  ASSERT_EQ(rep.runs.size(), 1u);
  EXPECT_EQ(rep.runs[0].attempts, 4u);
  // Into the existing OUT again: its run keeps its id, every row is already there.
  MergeReport again = merge_stores({d / "s1.db", d / "s2.db"}, d / "out.db");
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again.runs.size(), 1u);
  EXPECT_EQ(again.runs[0].id, rep.runs[0].id);
  EXPECT_EQ(again.duplicates, 4u);
  ResultsStore out(d / "out.db");
  ASSERT_EQ(out.runs().size(), 1u);
  EXPECT_EQ(out.attempts(out.runs()[0].id).size(), 4u);
}

TEST(StoreMerge, TheSameKeyWithDifferentResultsIsAConflictAndNothingIsWritten) {
  TempDir d;
  shard_store(d / "s1.db", "1/2", {"t1", "t3"}, "a");
  shard_store(d / "s2.db", "2/2", {"t2", "t4"}, "b");
  fs::copy_file(d / "s1.db", d / "s1-other.db");
  sql(d / "s1-other.db", "UPDATE attempts SET status = 'wrong', speedup = 0 WHERE task = 't1'");
  // OUT exists and holds a run of its own: after the refused merge it is byte for byte as it was.
  shard_store(d / "out.db", "", {"t9"}, "c");
  std::string out_before = bytes_of(d / "out.db");
  MergeReport rep = merge_stores({d / "s1.db", d / "s2.db", d / "s1-other.db"}, d / "out.db");
  EXPECT_FALSE(rep.ok());
  EXPECT_FALSE(rep.written);
  ASSERT_EQ(rep.conflicts.size(), 1u);
  const MergeConflict& c = rep.conflicts[0];
  EXPECT_EQ(c.table, "attempts");
  EXPECT_EQ(c.key, "task t1 sample 0");
  EXPECT_EQ(c.first_store, d / "s1.db");
  EXPECT_EQ(c.second_store, d / "s1-other.db");
  std::string all;
  for (const auto& x : c.differences) all += x + "\n";
  EXPECT_NE(all.find("status: `ok` vs `wrong`"), std::string::npos) << all;
  EXPECT_NE(all.find("speedup:"), std::string::npos) << all;
  EXPECT_EQ(bytes_of(d / "out.db"), out_before);
  for (const auto& e : fs::directory_iterator(d.path))
    EXPECT_EQ(e.path().filename().string().find(".merging"), std::string::npos) << "a temporary file was left: " << e.path();

  // The command: the conflict on stdout, exit status 1.
  auto r = test::run_command(std::string(EKB_BINARY) + " merge " + d / "s1.db" + " " + d / "s2.db" + " " + d / "s1-other.db" + " -o " +
                             d / "out.db" + " 2>&1");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("conflict: attempts of run `eval` on host (cpu), task t1 sample 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("nothing was written"), std::string::npos) << r.out;
  EXPECT_EQ(bytes_of(d / "out.db"), out_before);
}

TEST(StoreMerge, AStoreOfAnotherSchemaIsRefusedAndLeftAsItWas) {
  TempDir d;
  shard_store(d / "s1.db", "1/2", {"t1"}, "a");
  shard_store(d / "old.db", "2/2", {"t2"}, "a");
  shard_store(d / "new.db", "2/2", {"t2"}, "a");
  sql(d / "old.db", "PRAGMA user_version = " + std::to_string(kResultsStoreSchema - 1));
  sql(d / "new.db", "PRAGMA user_version = " + std::to_string(kResultsStoreSchema + 1));
  std::string old_bytes = bytes_of(d / "old.db"), new_bytes = bytes_of(d / "new.db");
  MergeReport rep = merge_stores({d / "s1.db", d / "old.db", d / "new.db"}, d / "out.db");
  EXPECT_FALSE(rep.ok());
  ASSERT_EQ(rep.problems.size(), 2u);
  EXPECT_NE(rep.problems[0].find("an older store (schema " + std::to_string(kResultsStoreSchema - 1)), std::string::npos) << rep.problems[0];
  EXPECT_NE(rep.problems[0].find("ekb results --db"), std::string::npos) << rep.problems[0];
  EXPECT_NE(rep.problems[1].find("written by a newer ekb"), std::string::npos) << rep.problems[1];
  EXPECT_FALSE(fs::exists(d / "out.db"));
  EXPECT_EQ(bytes_of(d / "old.db"), old_bytes) << "an older input is not upgraded by a merge";
  EXPECT_EQ(bytes_of(d / "new.db"), new_bytes);
  // Not a store at all.
  std::ofstream(d / "text.db") << "not a database";
  MergeReport text = merge_stores({d / "text.db"}, d / "out.db");
  ASSERT_EQ(text.problems.size(), 1u);
  EXPECT_NE(text.problems[0].find(d / "text.db"), std::string::npos);
}

TEST(StoreMerge, AgentStepsAndLanguageModelRequestsTravel) {
  TempDir d;
  for (int i = 1; i <= 2; ++i) {
    ResultsStore s(d / ("s" + std::to_string(i) + ".db"));
    nlohmann::json key{{"command", "agent"}, {"policy", "llm"}, {"tasks", {"t1", "t2"}}, {"shard", std::to_string(i) + "/2"}};
    RunInfo r = s.open_run(key.dump(), "cpu", "host", env_on("a"));
    std::string task = "t" + std::to_string(i);
    for (int step = 0; step < 3; ++step) {
      StepRecord st;
      st.task = task;
      st.step = step;
      st.layer = "schedule";
      st.action = "split " + std::to_string(step);
      st.program = "kernel " + task;
      st.accepted = step == 1;
      st.eval.outcome = Outcome::ok;
      st.eval.speedup = 1.0 + step;
      s.put_step(r.id, st);
      LlmRequestRecord q;
      q.task = task;
      q.turn = step;
      q.model = "m";
      q.messages = nlohmann::json::array({{{"role", "user"}, {"content", "write " + task}}});
      q.reply = "```ekb\nkernel\n```";
      q.prompt_tokens = 100 + step;
      q.cost = 0.25;
      s.put_llm_request(r.id, q);
    }
    s.add_attempt(r.id, attempt(task, 0, Outcome::ok, 2.0));
    s.finish_run(r.id);
  }
  MergeReport rep = merge_stores({d / "s1.db", d / "s2.db"}, d / "out.db");
  ASSERT_TRUE(rep.ok());
  ASSERT_EQ(rep.runs.size(), 1u);
  EXPECT_EQ(rep.runs[0].steps, 6u);
  EXPECT_EQ(rep.runs[0].llm_requests, 6u);
  ResultsStore out(d / "out.db");
  int64_t run = out.runs()[0].id;
  EXPECT_EQ(out.step_tasks(run), (std::vector<std::string>{"t1", "t2"}));
  auto steps = out.steps(run, "t2");
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[2].action, "split 2");
  EXPECT_TRUE(steps[1].accepted);
  auto reqs = out.llm_requests(run);
  ASSERT_EQ(reqs.size(), 6u);
  EXPECT_EQ(reqs[5].prompt_tokens, 102);
  EXPECT_EQ(reqs[0].messages[0]["content"], "write t1");
  EXPECT_DOUBLE_EQ(out.llm_spend(run).cost, 1.5);
}

TEST(StoreMerge, ShardsFromUnlikeMachinesOrTwoRunsOfOneShardAreRefused) {
  TempDir d;
  shard_store(d / "s1.db", "1/2", {"t1"}, "a", true, "CPU one");
  shard_store(d / "s2.db", "2/2", {"t2"}, "b", true, "CPU two");
  MergeReport rep = merge_stores({d / "s1.db", d / "s2.db"}, d / "out.db");
  ASSERT_EQ(rep.problems.size(), 1u);
  EXPECT_NE(rep.problems[0].find("differ in `cpu`"), std::string::npos) << rep.problems[0];
  EXPECT_FALSE(fs::exists(d / "out.db"));

  // A GPU's model matters; what varies on one machine (its free memory) does not.
  auto gpu = [](const std::string& name, int memory) { return nlohmann::json{{"gpu", {{"name", name}, {"total_memory", memory}}}}; };
  shard_store(d / "g1.db", "1/2", {"t1"}, "a", true, "Test CPU", gpu("H200", 1));
  shard_store(d / "g2.db", "2/2", {"t2"}, "b", true, "Test CPU", gpu("H200", 2));
  shard_store(d / "g3.db", "2/2", {"t2"}, "c", true, "Test CPU", gpu("A100", 2));
  MergeReport alike = merge_stores({d / "g1.db", d / "g2.db"}, d / "g.db");
  EXPECT_TRUE(alike.ok()) << (alike.problems.empty() ? "" : alike.problems[0]);
  {
    ResultsStore g(d / "g.db");
    nlohmann::json env = g.runs()[0].env;
    EXPECT_EQ(env["gpu"], (nlohmann::json{{"name", "H200"}})) << "what the shards' GPUs share stays: " << env.dump();
  }
  MergeReport unlike = merge_stores({d / "g1.db", d / "g3.db"}, d / "g-unlike.db");
  ASSERT_EQ(unlike.problems.size(), 1u);
  EXPECT_NE(unlike.problems[0].find("differ in `gpu.name`"), std::string::npos) << unlike.problems[0];

  // Shard 1 run twice from scratch (another start time): two runs of one shard are not mixed.
  shard_store(d / "t1.db", "1/2", {"t1"}, "a");
  sql(d / "t1.db", "UPDATE runs SET created = '2000-01-01T00:00:00Z'");
  shard_store(d / "t1b.db", "1/2", {"t1"}, "a");
  shard_store(d / "t2.db", "2/2", {"t2"}, "a");
  MergeReport twice = merge_stores({d / "t1.db", d / "t2.db", d / "t1b.db"}, d / "out.db");
  ASSERT_TRUE(twice.ok()) << (twice.problems.empty() ? "" : twice.problems[0]);
  ASSERT_EQ(twice.runs.size(), 2u) << "the second run of shard 1 is a run of its own";
  EXPECT_EQ(twice.runs[0].shards, (std::vector<int>{1, 2}));
  EXPECT_EQ(twice.runs[1].shards, std::vector<int>{1});
  EXPECT_EQ(twice.runs[1].missing, std::vector<int>{2});
}

TEST(StoreMerge, RunsWithoutShardsAndPeaksAreKeptAsTheyWere) {
  TempDir d;
  {
    ResultsStore s(d / "a.db");
    RunInfo r = s.open_run(eval_key(), "cpu", "host", env_on("a"));
    s.add_attempt(r.id, attempt("t1", 0, Outcome::ok, 3.0));
    s.finish_run(r.id);
    s.set_peaks("machine", "host#2", StoredPeaks{100, 10});
  }
  fs::copy_file(d / "a.db", d / "b.db");
  sql(d / "b.db", "UPDATE peaks SET gflops = 120, measured = '2999-01-01T00:00:00Z'");
  MergeReport rep = merge_stores({d / "a.db", d / "b.db"}, d / "out.db");
  ASSERT_TRUE(rep.ok());
  ASSERT_EQ(rep.runs.size(), 1u);
  bool said = false;
  for (const auto& n : rep.notes) said = said || n.find("the newer is kept") != std::string::npos;
  EXPECT_TRUE(said);
  ResultsStore out(d / "out.db");
  RunInfo r = out.runs()[0];
  EXPECT_EQ(r.key, eval_key());
  EXPECT_EQ(r.env, env_on("a")) << "a run without shards keeps its environment as it was";
  auto p = out.peaks("machine", "host#2");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->gflops, 120.0);
}

}  // namespace
}  // namespace ekb
