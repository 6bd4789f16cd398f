// `ekb slurm submit` without a cluster (cluster/slurm_job.h): the job array's and the merge job's
// scripts, what the job refuses, the job id read from `sbatch --parsable`, and a submission through
// a stand-in for sbatch (the merge job depends on the array's id; a DIR holds one command's shards;
// the seed store is copied into each shard's store). tests/slurm runs it on a real Slurm cluster.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cluster/slurm_job.h"
#include "harness/results_store.h"

namespace ekb::cluster {
namespace {

namespace fs = std::filesystem;

SlurmJob job_in(const std::string& dir) {
  SlurmJob j;
  j.command = {"eval", "--defaults", "--quick", "--tasks", "relu*"};
  j.shards = 4;
  j.dir = dir;
  j.out = dir + "/merged.db";
  j.ekb = "/opt/ekb/bin/ekb";
  j.workdir = "/work/here";
  return j;
}

bool has_line(const std::string& text, const std::string& line) { return ("\n" + text + "\n").find("\n" + line + "\n") != std::string::npos; }

TEST(SlurmJob, TheArrayRunsOneShardPerTaskIntoItsOwnStore) {
  SlurmJob j = job_in("/shared/run1");
  j.partition = "cpu";
  j.time = "1:00:00";
  j.suite = "/shared/suite";
  j.sbatch_args = {"--constraint=avx512"};
  std::string s = shards_script(j);
  EXPECT_EQ(s.rfind("#!/bin/bash\n", 0), 0u);
  EXPECT_TRUE(has_line(s, "#SBATCH --array=1-4")) << s;
  EXPECT_TRUE(has_line(s, "#SBATCH --output=/shared/run1/logs/shard-%a.log")) << s;
  EXPECT_TRUE(has_line(s, "#SBATCH --chdir=/work/here")) << s;
  EXPECT_TRUE(has_line(s, "#SBATCH --partition=cpu")) << s;
  EXPECT_TRUE(has_line(s, "#SBATCH --time=1:00:00")) << s;
  EXPECT_TRUE(has_line(s, "#SBATCH --exclusive")) << s;
  EXPECT_TRUE(has_line(s, "#SBATCH --constraint=avx512")) << s;
  EXPECT_TRUE(has_line(s, "exec '/opt/ekb/bin/ekb' --suite '/shared/suite' 'eval' '--defaults' '--quick' '--tasks' 'relu*' --shard \"$i/4\" "
                          "--db '/shared/run1'\"/shard-$i.db\""))
      << s;
  // Every #SBATCH line comes before the first command (sbatch reads no further).
  size_t first_command = s.find("\nset -eu");
  EXPECT_LT(s.rfind("#SBATCH"), first_command);

  std::string m = merge_script(j);
  EXPECT_TRUE(has_line(m, "exec '/opt/ekb/bin/ekb' --suite '/shared/suite' merge --missing-ok '/shared/run1/shard-1.db' "
                          "'/shared/run1/shard-2.db' '/shared/run1/shard-3.db' '/shared/run1/shard-4.db' -o '/shared/run1/merged.db'"))
      << m;
  EXPECT_TRUE(has_line(m, "#SBATCH --output=/shared/run1/logs/merge.log")) << m;
  EXPECT_FALSE(has_line(m, "#SBATCH --exclusive")) << m;

  j.exclusive = false;
  EXPECT_FALSE(has_line(shards_script(j), "#SBATCH --exclusive"));
  EXPECT_TRUE(exclusive_by_default(ShardedCommand::eval));
  EXPECT_TRUE(exclusive_by_default(ShardedCommand::agent));
  EXPECT_FALSE(exclusive_by_default(ShardedCommand::generate));
}

TEST(SlurmJob, QuotesWordsForTheShell) {
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("$HOME"), "'$HOME'");
}

TEST(SlurmJob, RefusesWhatTheJobSetsItselfAndCommandsThatDoNotShard) {
  auto refused = [](SlurmJob j, const std::string& says) {
    try {
      check_job(j);
      ADD_FAILURE() << "taken: " << says;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  SlurmJob j = job_in("/d");
  j.command = {"eval", "--defaults", "--shard", "1/2"};
  refused(j, "sets --shard itself");
  j.command = {"eval", "--defaults", "--db=x.db"};
  refused(j, "sets --db itself");
  j.command = {"run", "relu_256"};
  refused(j, "`run` does not take --shard");
  j.command = {};
  refused(j, "give the command to shard after `--`");
  j = job_in("relative");
  refused(j, "must be an absolute path");
  j = job_in("/d");
  j.sbatch_args = {"--constraint=x\necho injected"};
  refused(j, "--sbatch-arg holds a line break");
  // An argument's line break stays inside its quotes, and out of the scripts' comments.
  j = job_in("/d");
  j.command = {"eval", "--tasks", "a\nrm -rf /"};
  std::string s = shards_script(j);
  std::istringstream lines(s);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("rm", 0) == 0) EXPECT_EQ(line.rfind("rm -rf /' --shard", 0), 0u) << "outside its quotes: " << line;
  EXPECT_NE(s.find("'--tasks' 'a\nrm -rf /'"), std::string::npos) << s;
  EXPECT_NO_THROW(check_job(job_in("/d")));
  for (const char* c : {"eval", "agent", "generate"}) EXPECT_TRUE(sharded_command(c)) << c;
}

TEST(SlurmJob, ReadsTheJobIdSbatchPrints) {
  EXPECT_EQ(parse_sbatch_id("42\n"), "42");
  EXPECT_EQ(parse_sbatch_id("sbatch: warning: something\n1234;cluster1\n"), "1234");
  EXPECT_THROW(parse_sbatch_id("sbatch: error: Batch job submission failed: Invalid partition name specified\n"), std::runtime_error);
  EXPECT_THROW(parse_sbatch_id(""), std::runtime_error);
}

TEST(SlurmJob, SubmitsTheArrayThenTheMergeJobDependingOnIt) {
  fs::path dir = fs::temp_directory_path() / ("ekb-slurm-job-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    ResultsStore seed((dir / "seed.db").string());
    seed.set_peaks("this machine", "host#2", StoredPeaks{100, 10});
  }
  SlurmJob j = job_in((dir / "run").string());
  j.seed = (dir / "seed.db").string();
  std::vector<std::vector<std::string>> calls;
  auto fake_sbatch = [&](const std::vector<std::string>& argv) {
    calls.push_back(argv);
    return CommandResult{0, calls.size() == 1 ? "77\n" : "78\n"};
  };
  Submitted sub = submit_job(j, fake_sbatch);
  EXPECT_EQ(sub.array_id, "77");
  EXPECT_EQ(sub.merge_id, "78");
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0], (std::vector<std::string>{"sbatch", "--parsable", shards_script_path(j)}));
  EXPECT_EQ(calls[1], (std::vector<std::string>{"sbatch", "--parsable", "--dependency=afterany:77", merge_script_path(j)}));
  EXPECT_TRUE(fs::exists(dir / "run" / "logs"));
  std::ifstream in(shards_script_path(j));
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), shards_script(j));
  ASSERT_EQ(sub.seeded.size(), 4u);
  {
    ResultsStore shard(shard_store(j, 3));
    EXPECT_TRUE(shard.peaks("this machine", "host#2")) << "the shard's store starts as a copy of the seed";
  }

  // The same command into the same DIR again runs the shards that have not finished (the stores
  // exist: nothing seeded over them); another command there is refused.
  {
    ResultsStore shard(shard_store(j, 2));
    RunInfo r = shard.open_run(R"({"command":"eval","shard":"2/4","tasks":"relu*"})", "cpu", "host", {});
    shard.finish_run(r.id);
    ResultsStore other(shard_store(j, 3));  // (unfinished: run again, resuming)
    other.open_run(R"({"command":"eval","shard":"3/4","tasks":"relu*"})", "cpu", "host", {});
  }
  EXPECT_EQ(finished_shards(j), std::vector<int>{2});
  calls.clear();
  Submitted again = submit_job(j, fake_sbatch);
  EXPECT_TRUE(again.seeded.empty());
  EXPECT_EQ(again.shards, (std::vector<int>{1, 3, 4}));
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0], (std::vector<std::string>{"sbatch", "--parsable", "--array=1,3,4", shards_script_path(j)}));
  // Every shard finished: the merge job alone.
  for (int i : {1, 3, 4}) {
    ResultsStore shard(shard_store(j, i));
    RunInfo r = shard.open_run(R"({"command":"eval","shard":")" + std::to_string(i) + R"(/4","tasks":"relu*"})", "cpu", "host", {});
    shard.finish_run(r.id);
  }
  calls.clear();
  Submitted merge_only = submit_job(j, fake_sbatch);
  EXPECT_TRUE(merge_only.shards.empty());
  EXPECT_TRUE(merge_only.array_id.empty());
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], (std::vector<std::string>{"sbatch", "--parsable", merge_script_path(j)}));

  SlurmJob other = j;
  other.command = {"eval", "--defaults", "--tasks", "conv*"};
  EXPECT_THROW(submit_job(other, fake_sbatch), std::runtime_error);

  // sbatch failing is an error naming its output.
  SlurmJob fresh = job_in((dir / "fresh").string());
  try {
    submit_job(fresh, [](const std::vector<std::string>&) { return CommandResult{1, "sbatch: error: invalid partition"}; });
    ADD_FAILURE() << "a failed sbatch was taken";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("invalid partition"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ekb::cluster
