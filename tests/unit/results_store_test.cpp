// The results store (harness/results_store.h): runs are found again by their key, attempts are
// stored once per (run, task, sample) with their timings, and a file that is not a store is refused
// without being touched.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/results_store.h"

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
  a.eval.status = status;
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

}  // namespace
}  // namespace ekb
