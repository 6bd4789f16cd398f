// The adversarial corpus (tests/adversarial/): candidates that cheat or break, each naming on its
// first line the classification it must get (`// expect: STATUS`, alternatives with `|`, "ok slow"
// for a correct kernel that must come out slower than its baseline). All of them go through
// `ekb eval` in one run, as a user would submit them: every file must be classified as it says, and
// the run must go on to the end (one attempt stored per file).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "command_util.h"

namespace {

namespace fs = std::filesystem;

std::string expectation(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  const std::string tag = "// expect: ";
  return line.rfind(tag, 0) == 0 ? line.substr(tag.size()) : "";
}

bool matches(const std::string& expected, const std::string& status) {
  std::stringstream alternatives(expected == "ok slow" ? "ok" : expected);
  for (std::string a; std::getline(alternatives, a, '|');)
    if (a == status) return true;
  return false;
}

TEST(AdversarialCorpus, EveryCandidateGetsItsClassificationAndTheRunGoesOn) {
  fs::path corpus = fs::path(EKB_SOURCE_DIR) / "tests" / "adversarial";
  std::map<int, std::pair<std::string, std::string>> expected;  // sample -> (file, expectation)
  for (const auto& e : fs::directory_iterator(corpus)) {
    std::string name = e.path().filename().string();
    if (e.path().extension() != ".c") continue;
    size_t s = name.find(".s");
    ASSERT_NE(s, std::string::npos) << name;
    std::string want = expectation(e.path());
    ASSERT_FALSE(want.empty()) << name << " has no `// expect:` line";
    expected[std::stoi(name.substr(s + 2))] = {name, want};
  }
  ASSERT_GE(expected.size(), 15u);

  fs::path db = fs::temp_directory_path() / ("ekb-adversarial-" + std::to_string(::getpid()) + ".db");
  fs::remove(db);
  ekb::test::CommandResult r = ekb::test::run_command(std::string(EKB_BINARY) + " eval " + corpus.string() +
                                                     " --device edge-1core --json --db " + db.string() + " 2>/dev/null");
  ASSERT_NE(r.status, -1) << "ekb did not start";
  const std::string& out = r.out;
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db.string() + suffix);

  auto j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << "ekb eval did not print JSON:\n" << out.substr(0, 2000);
  ASSERT_EQ(j["attempts"].size(), expected.size()) << "every file gets an attempt: the run goes on after each failure";
  EXPECT_TRUE(fs::exists("/tmp/ekb_adversarial_was_here") == false) << "the file-writing candidate wrote its file";
  for (const auto& a : j["attempts"]) {
    int sample = a["sample"].get<int>();
    ASSERT_TRUE(expected.count(sample)) << sample;
    const auto& [file, want] = expected[sample];
    std::string status = a["status"].get<std::string>();
    EXPECT_TRUE(matches(want, status)) << file << ": expected " << want << ", got " << status << " (" << a["message"] << ")";
    if (want == "ok slow") EXPECT_LT(a["speedup"].get<double>(), 0.5) << file << " must be timed slow";
  }
  EXPECT_EQ(j["samples"], expected.size());
}

}  // namespace
