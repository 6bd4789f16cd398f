// The suite's own tasks as submissions (`ekb eval --defaults`) and the deterministic split of a
// submission set into shards (`--shard I/N`): every task in exactly one shard, samples kept together.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "fixture_suite.h"
#include "harness/submissions.h"
#include "suite/suite.h"

namespace ekb {
namespace {

TEST(DefaultSubmissions, AreEverySuiteTaskWithItsOwnTextSortedAndFiltered) {
  Suite suite = Suite::load(test::fixture_suite_dir());
  SubmissionSet all = default_submissions(suite, "");
  ASSERT_EQ(all.items.size(), suite.tasks().size());
  for (size_t k = 0; k < all.items.size(); ++k) {
    const Task* t = suite.find(all.items[k].task);
    ASSERT_TRUE(t) << all.items[k].task;
    EXPECT_EQ(all.items[k].text, t->text);
    EXPECT_EQ(all.items[k].kind, SourceKind::ekb);
    if (k) EXPECT_LT(all.items[k - 1].task, all.items[k].task);
  }
  SubmissionSet some = default_submissions(suite, "relu*");
  ASSERT_EQ(some.items.size(), 1u);
  EXPECT_EQ(some.items[0].task, "relu_256");
  EXPECT_TRUE(default_submissions(suite, "nothing_like_this*").items.empty());
}

SubmissionSet samples_of(const std::vector<std::string>& tasks, int per_task) {
  SubmissionSet s;
  for (const auto& t : tasks)
    for (int k = 0; k < per_task; ++k) {
      Submission sub;
      sub.task = t;
      sub.path = t + ".s" + std::to_string(k) + ".ekb";
      s.items.push_back(sub);
    }
  return s;
}

TEST(Shards, SplitTheTasksDisjointlyAndCompletelyWithTheirSamples) {
  std::vector<std::string> tasks;
  for (int k = 0; k < 23; ++k) tasks.push_back("task_" + std::to_string(100 + k));
  for (int n : {1, 2, 4, 7, 30}) {
    std::map<std::string, int> shard_of;
    size_t total = 0;
    for (int i = 1; i <= n; ++i) {
      SubmissionSet s = samples_of(tasks, 3);
      keep_shard(s, i, n);
      total += s.items.size();
      std::map<std::string, int> samples;
      for (const auto& sub : s.items) ++samples[sub.task];
      for (const auto& [task, count] : samples) {
        EXPECT_EQ(count, 3) << task << ": a task's samples stay together";
        EXPECT_TRUE(shard_of.emplace(task, i).second) << task << " is in shards " << shard_of[task] << " and " << i;
      }
      // Interleaved: the shards' sizes differ by one task at most.
      EXPECT_LE(samples.size(), (tasks.size() + n - 1) / n);
      EXPECT_GE(samples.size(), tasks.size() / n);
    }
    EXPECT_EQ(total, tasks.size() * 3) << n << " shards";
    EXPECT_EQ(shard_of.size(), tasks.size());
  }
  // The same split whatever order the set came in.
  SubmissionSet a = samples_of(tasks, 1), b = samples_of({tasks.rbegin(), tasks.rend()}, 1);
  keep_shard(a, 2, 5);
  keep_shard(b, 2, 5);
  std::set<std::string> ta, tb;
  for (const auto& s : a.items) ta.insert(s.task);
  for (const auto& s : b.items) tb.insert(s.task);
  EXPECT_EQ(ta, tb);
}

TEST(Shards, TaskListsSplitByTheSameRuleAsSubmissions) {
  // `ekb agent` and `ekb generate` split their selected tasks; `ekb eval` its submissions: one rule.
  Suite suite = Suite::load(test::fixture_suite_dir());
  std::vector<const Task*> all;
  for (const auto& t : suite.tasks()) all.push_back(&t);
  std::reverse(all.begin(), all.end());  // (whatever order the selection came in)
  ASSERT_GE(all.size(), 3u);
  for (int i = 1; i <= 3; ++i) {
    std::vector<const Task*> tasks = all;
    keep_shard(tasks, Shard{i, 3});
    SubmissionSet subs = default_submissions(suite, "");
    keep_shard(subs, i, 3);
    std::set<std::string> a, b;
    for (const Task* t : tasks) a.insert(t->name);
    for (const auto& s : subs.items) b.insert(s.task);
    EXPECT_EQ(a, b) << "shard " << i << "/3";
    EXPECT_FALSE(a.empty());
  }
  EXPECT_EQ(parse_shard_text("3/8").text(), "3/8");
  EXPECT_EQ(parse_shard_text("03/8").text(), "3/8");
}

TEST(Shards, ParseIOverNAndRefuseAnythingElse) {
  EXPECT_EQ(parse_shard("2/4"), std::make_pair(2, 4));
  EXPECT_EQ(parse_shard("1/1"), std::make_pair(1, 1));
  for (const char* bad : {"0/4", "5/4", "2/0", "2", "2/4x", "a/b", "-1/3", "2:4", ""}) {
    try {
      parse_shard(bad);
      ADD_FAILURE() << "`" << bad << "` was taken";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("I/N"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace ekb
