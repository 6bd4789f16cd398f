// `ekb eval` end to end on a small submission directory: the JSON report's fields and figures, the
// problems it reports, and resumption after SIGKILL (nothing lost, nothing counted twice).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>
#include <thread>

#include "command_util.h"

#include <sqlite3.h>

namespace {

namespace fs = std::filesystem;

using ekb::test::run_command;

std::string run(const std::string& args) { return ekb::test::run_command(std::string(EKB_BINARY) + " " + args + " 2>/dev/null").out; }

const char* kTask = "imu_calibrate_16x128x6";
const char* kCorrect = R"(#include <stdint.h>
void ekb_kernel(const float* restrict X, const float* restrict Off, const float* restrict Gain, float* restrict Y, int32_t n) {
  for (int i = 0; i < 16 * 128; ++i)
    for (int a = 0; a < 6; ++a) Y[i * 6 + a] = (X[i * 6 + a] - Off[a]) * Gain[a];
}
)";
const char* kIdentity = R"(#include <stdint.h>
void ekb_kernel(const float* restrict X, const float* restrict Off, const float* restrict Gain, float* restrict Y, int32_t n) {
  for (int i = 0; i < 16 * 128 * 6; ++i) Y[i] = X[i];
}
)";

struct Dir {
  fs::path path;
  explicit Dir(const std::string& name) {
    path = fs::temp_directory_path() / ("ekb-eval-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(path);
    fs::create_directories(path / "subs");
  }
  ~Dir() { fs::remove_all(path); }
  void write(const std::string& file, const std::string& text) const { std::ofstream(path / "subs" / file) << text; }
  std::string args() const { return (path / "subs").string() + " --db " + (path / "r.db").string() + " --json"; }
};

TEST(EvalCommand, ReportsMetricsAndProblems) {
  Dir d("report");
  d.write(std::string(kTask) + ".c", kCorrect);
  d.write(std::string(kTask) + ".s1.c", kIdentity);
  d.write("no_such_task.c", kCorrect);
  auto j = nlohmann::json::parse(run("eval " + d.args()), nullptr, false);
  ASSERT_TRUE(j.is_object()) << "not JSON";
  EXPECT_EQ(j["tasks"], 1);
  EXPECT_EQ(j["samples"], 2);
  EXPECT_DOUBLE_EQ(j["compile_at_1"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["correct_at_1"].get<double>(), 0.5);
  for (const char* p : {"0.0", "0.5", "0.8", "1.0", "1.5", "2.0"}) EXPECT_TRUE(j["fast"].contains(p)) << p;
  EXPECT_DOUBLE_EQ(j["fast"]["0.0"].get<double>(), 0.5);
  EXPECT_GT(j["geomean_speedup"].get<double>(), 0.0);
  EXPECT_EQ(j["failures"]["wrong"], 1);
  ASSERT_EQ(j["problems"].size(), 1u);
  EXPECT_NE(j["problems"][0].get<std::string>().find("no task named `no_such_task`"), std::string::npos);
  // The run names the commit ekb was built from (written at build time, not when CMake configured).
  std::string head = ekb::test::run_command("git -C " EKB_SOURCE_DIR " rev-parse HEAD 2>/dev/null").out;
  std::string commit = j["environment"].value("ekb_commit", "");
  if (!head.empty()) {
    std::string hash = commit.substr(0, commit.find('-'));
    EXPECT_GE(hash.size(), 7u) << commit;
    EXPECT_EQ(head.rfind(hash, 0), 0u) << "built from " << commit << ", the tree is at " << head;
  }
  // `ekb results` reads the same run back.
  auto r = nlohmann::json::parse(run("results 1 --db " + (d.path / "r.db").string() + " --json"), nullptr, false);
  ASSERT_TRUE(r.is_object());
  EXPECT_EQ(r["samples"], 2);
}

TEST(EvalCommand, AWarmRunIsStoredAsWarmAndIsNotTheColdRunOfTheSameDirectory) {
  Dir d("timing");
  d.write(std::string(kTask) + ".c", kCorrect);
  auto cold = nlohmann::json::parse(run("eval " + d.args()), nullptr, false);
  auto warm = nlohmann::json::parse(run("eval " + d.args() + " --timing warm"), nullptr, false);
  ASSERT_TRUE(cold.is_object() && warm.is_object()) << "not JSON";
  EXPECT_EQ(cold["timing"], "cold");
  EXPECT_EQ(warm["timing"], "warm");
  EXPECT_NE(cold["run"], warm["run"]) << "the warm run resumed the finished cold one";
  EXPECT_EQ(warm["attempts"][0]["status"], "ok");
  auto runs = nlohmann::json::parse(run("results --db " + (d.path / "r.db").string() + " --json"), nullptr, false);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1]["timing"], "warm");
  // An unknown regime is refused, naming the known ones.
  auto bad = ekb::test::run_command(std::string(EKB_BINARY) + " eval " + d.args() + " --timing tepid 2>&1");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.out.find("cold"), std::string::npos) << bad.out;
}

TEST(EvalCommand, ResumesAfterSigkillWithNothingLostOrCountedTwice) {
  Dir d("resume");
  for (int s = 0; s < 6; ++s) d.write(std::string(kTask) + ".s" + std::to_string(s) + ".c", kCorrect);
  // (--quick: what is resumed is the same with any timing, and six full timings took 20 s.)
  std::string cmd = std::string(EKB_BINARY) + " eval " + d.args() + " --quick";
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = ::open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Kill it once at least one attempt is stored. The store is read directly: an `ekb results` every
  // 200 ms (which loads the whole suite) would keep a CPU busy, and eval rightly refuses to measure
  // the machine's peak rates on a busy machine.
  auto stored = [&] {
    sqlite3* db = nullptr;
    int n = 0;
    if (sqlite3_open_v2((d.path / "r.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
      sqlite3_stmt* st = nullptr;
      if (sqlite3_prepare_v2(db, "SELECT count(*) FROM attempts", -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int(st, 0);
      sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return n;
  };
  auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (stored() >= 1) break;
  }
  ::kill(pid, SIGKILL);
  int st = 0;
  ::waitpid(pid, &st, 0);
  ASSERT_TRUE(WIFSIGNALED(st)) << "eval finished before it could be killed";
  auto j = nlohmann::json::parse(run("eval " + d.args() + " --quick"), nullptr, false);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["run"], 1);  // the same run, continued
  EXPECT_EQ(j["samples"], 6);
  EXPECT_DOUBLE_EQ(j["correct_at_1"].get<double>(), 1.0);
  EXPECT_EQ(j["attempts"].size(), 6u);
}

// A run resumed after its task changed (here the distribution of an input) makes the stored attempt
// again, says so, and stores it with the new task hash; nothing of the old version is kept.
TEST(EvalCommand, AResumedRunMakesAgainAnAttemptStoredForAnotherVersionOfItsTask) {
  Dir d("version");
  d.write(std::string(kTask) + ".c", kCorrect);
  fs::path suite = d.path / "suite";
  fs::create_directories(suite / "broadcast");
  fs::copy_file(fs::path(EKB_SOURCE_DIR) / "suite/broadcast/imu_calibrate.ekb", suite / "broadcast/imu_calibrate.ekb");
  std::ofstream(suite / "VERSION") << "1.0.0\n";
  std::string eval = std::string(EKB_BINARY) + " --suite " + suite.string() + " eval " + d.args();
  auto first = nlohmann::json::parse(ekb::test::run_command(eval + " 2>/dev/null").out, nullptr, false);
  ASSERT_TRUE(first.is_object()) << "not JSON";
  std::string then = first["attempts"][0]["task_hash"];
  EXPECT_EQ(first["attempts"][0]["suite_version"], "1.0.0");
  {  // the task changes, and the run is left as if it had been interrupted
    std::ifstream in(suite / "broadcast/imu_calibrate.ekb");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    text.replace(text.find("~ normal(0, 4)"), 14, "~ normal(0, 3)");
    std::ofstream(suite / "broadcast/imu_calibrate.ekb") << text;
    std::ofstream(suite / "VERSION") << "1.1.0\n";
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((d.path / "r.db").c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "UPDATE runs SET finished = 0", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  auto again = ekb::test::run_command(eval + " 2>&1 >" + (d.path / "again.json").string());
  EXPECT_NE(again.out.find(std::string(kTask) + " sample 0: what the run stored was made on another version of the task (task hash " +
                           then),
            std::string::npos)
      << again.out;
  std::ifstream in(d.path / "again.json");
  auto j = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["run"], first["run"]);  // the same run, continued
  ASSERT_EQ(j["attempts"].size(), 1u);
  EXPECT_NE(j["attempts"][0]["task_hash"], then);
  EXPECT_EQ(j["attempts"][0]["suite_version"], "1.1.0");
  EXPECT_EQ(j["attempts"][0]["status"], "ok");
}


// A run resumed after ekb's compiler changed what it builds for an attempt (its candidate's or its
// baseline's source: here the stored build hash is made another's, as an older ekb would have left
// it) makes that attempt again and says so; an attempt whose code is unchanged stays stored.
TEST(EvalCommand, AResumedRunMakesAgainAnAttemptWhoseCodeEkbNowBuildsDifferently) {
  Dir d("build");
  d.write(std::string(kTask) + ".c", kCorrect);
  d.write(std::string(kTask) + ".s1.c", kIdentity);
  std::string eval = std::string(EKB_BINARY) + " eval " + d.args();
  auto first = nlohmann::json::parse(run_command(eval + " 2>/dev/null").out, nullptr, false);
  ASSERT_TRUE(first.is_object()) << "not JSON";
  ASSERT_EQ(first["attempts"].size(), 2u);
  std::string built = first["attempts"][0]["build_hash"];
  EXPECT_EQ(built.size(), 16u) << built;
  EXPECT_NE(first["attempts"][1]["build_hash"], built);  // another candidate, the same baseline
  {  // sample 0 as an older compiler left it, and the run as if it had been interrupted
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((d.path / "r.db").c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "UPDATE attempts SET build_hash = '0123456789abcdef', status = 'wrong' WHERE sample = 0", nullptr,
                           nullptr, nullptr),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "UPDATE attempts SET message = 'as stored' WHERE sample = 1", nullptr, nullptr, nullptr), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "UPDATE runs SET finished = 0", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  auto again = run_command(eval + " 2>&1 >" + (d.path / "again.json").string());
  EXPECT_NE(again.out.find(std::string(kTask) + " sample 0: the code ekb builds for it changed since it was stored (build hash "
                                                "0123456789abcdef, " + built + " now"),
            std::string::npos)
      << again.out;
  EXPECT_EQ(again.out.find("sample 1: the code ekb builds"), std::string::npos) << again.out;
  std::ifstream in(d.path / "again.json");
  auto j = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["run"], first["run"]);  // the same run, continued
  ASSERT_EQ(j["attempts"].size(), 2u);
  EXPECT_EQ(j["attempts"][0]["build_hash"], built);
  EXPECT_EQ(j["attempts"][0]["status"], "ok");     // made again (the stored one said `wrong`)
  EXPECT_EQ(j["attempts"][1]["message"], "as stored");  // kept as it was
}

TEST(EvalCommand, DefaultsQuickVerifiesTheSuiteInShardsKeptApartFromFullRuns) {
  Dir d("defaults");
  std::string fixture = std::string(EKB_SOURCE_DIR) + "/tests/fixtures/suite_small";
  std::string eval = std::string(EKB_BINARY) + " --suite " + fixture + " eval --defaults --db " + (d.path / "r.db").string() + " --json";
  auto quick = nlohmann::json::parse(run_command(eval + " --quick 2>/dev/null").out, nullptr, false);
  ASSERT_TRUE(quick.is_object()) << "not JSON";
  EXPECT_EQ(quick["tasks"], 8);  // every task of the fixture suite, each with its own default schedule
  EXPECT_DOUBLE_EQ(quick["correct_at_1"].get<double>(), 1.0);
  EXPECT_EQ(quick["environment"]["quick"], true);
  for (const auto& a : quick["attempts"]) {
    EXPECT_EQ(a["status"], "ok") << a.dump();
    EXPECT_LE(a["rounds"].get<int>(), 20) << "quick timing takes a few calls per side";
  }
  // Two shards: disjoint, together the whole, each its own run.
  std::set<std::string> seen;
  std::set<int> runs{quick["run"].get<int>()};
  for (const char* shard : {"1/2", "2/2"}) {
    auto j = nlohmann::json::parse(run_command(eval + " --quick --shard " + shard + " 2>/dev/null").out, nullptr, false);
    ASSERT_TRUE(j.is_object()) << shard;
    EXPECT_EQ(j["tasks"], 4) << shard;
    for (const auto& a : j["attempts"]) EXPECT_TRUE(seen.insert(a["task"].get<std::string>()).second) << a["task"];
    EXPECT_TRUE(runs.insert(j["run"].get<int>()).second) << shard << " resumed another run";
  }
  EXPECT_EQ(seen.size(), 8u);
  // A full (not quick) run of the same tasks is another run, timed as always.
  auto full = nlohmann::json::parse(run_command(eval + " --tasks 'relu*' 2>/dev/null").out, nullptr, false);
  ASSERT_TRUE(full.is_object());
  EXPECT_TRUE(runs.insert(full["run"].get<int>()).second) << "the full run resumed a quick one";
  EXPECT_FALSE(full["environment"].contains("quick"));
  // Misuse is refused, saying what to write.
  auto both = run_command(std::string(EKB_BINARY) + " eval " + d.path.string() + " --defaults 2>&1");
  EXPECT_NE(both.status, 0);
  EXPECT_NE(both.out.find("not both"), std::string::npos) << both.out;
  auto neither = run_command(std::string(EKB_BINARY) + " eval 2>&1");
  EXPECT_NE(neither.status, 0);
  EXPECT_NE(neither.out.find("--defaults"), std::string::npos) << neither.out;
  auto shard = run_command(eval + " --shard 3/2 2>&1");
  EXPECT_NE(shard.status, 0);
  EXPECT_NE(shard.out.find("--shard `3/2`"), std::string::npos) << shard.out;
}

}  // namespace
