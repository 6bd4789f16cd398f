// Boards for real: ekb's aarch64 and riscv64 board builds run under qemu-user in a network
// namespace each test makes (the "board"), and `ekb eval` on the host goes through them with a
// device profile file. Times under emulation are not meaningful: these tests check outcomes (every
// output compared with the float64 reference on the board), where the attempts ran, what is stored
// when the board refuses the host or disappears, and that a run resumes. A board on this machine's
// own `ekb worker` (no emulator) covers what needs no other architecture.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <regex>
#include <set>

#include "board_fixture.h"

namespace {

using namespace ekb::test;
using ekb::arch_name;
using ekb::native_arch;
using nlohmann::json;

const std::string kFixture = std::string(EKB_SOURCE_DIR) + "/tests/fixtures/suite_small";
std::string ekb() { return std::string(EKB_BINARY) + " --suite " + kFixture; }

// relu_256 as raw C, its parallel loop run by the board's libgomp.
const char* kReluC = R"(#include <stdint.h>
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  #pragma omp parallel for num_threads(num_threads)
  for (int i = 0; i < 256; ++i) Y[i] = X[i] > 0.0f ? X[i] : 0.0f;
}
)";

// A submission directory: relu_256.c, and the .ekb text of each task in `ekb_tasks` (`ekb show`).
fs::path submissions(const TestBoard& b, const std::vector<std::string>& ekb_tasks) {
  fs::path dir = b.dir() / "subs";
  fs::create_directories(dir);
  std::ofstream(dir / "relu_256.c") << kReluC;
  for (const auto& t : ekb_tasks) {
    CommandResult r = run_command(ekb() + " show " + t);
    EXPECT_EQ(r.status, 0) << r.out;
    std::ofstream(dir / (t + ".ekb")) << r.out;
  }
  return dir;
}

// The JSON a command printed after whatever lines came before it (an object or a list).
json parse(const std::string& out) {
  size_t at = std::min(out.find("\n{"), out.find("\n["));
  at = out.rfind('{', 0) == 0 || out.rfind('[', 0) == 0 ? 0 : at == std::string::npos ? at : at + 1;
  return json::parse(at == std::string::npos ? std::string() : out.substr(at), nullptr, false);
}

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The number of attempts stored in `db` so far (read while another process writes it).
int stored_attempts(const fs::path& db) {
  sqlite3* h = nullptr;
  int n = 0;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(h, 2000);
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(h, "SELECT count(*) FROM attempts", -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
      n = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
  }
  sqlite3_close(h);
  return n;
}

// An eval of three tasks (raw C with OpenMP, an .ekb operator, a two-stage graph) through a board:
// every output matches the reference, and every attempt says it ran there, emulated and unsandboxed.
void eval_through(const std::string& arch) {
  if (std::string why = board_skip_reason(arch); !why.empty()) GTEST_SKIP() << why;
  TestBoard b(arch);
  ASSERT_TRUE(b.start()) << b.log();
  EXPECT_NE(b.log().find("looks emulated"), std::string::npos) << "the board sees it is emulated:\n" << b.log();
  fs::path subs = submissions(b, {"scale_64", "mlp2_small"});
  std::string profile = b.profile("qemu-" + arch, 2);
  fs::path db = b.dir() / "r.db";
  CommandResult r = run_command(ekb() + " eval " + subs.string() + " --device " + profile + " --db " + db.string() + " --quick --json 2>&1");
  ASSERT_EQ(r.status, 0) << r.out << "\nboard:\n" << b.log();
  json j = parse(r.out);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_DOUBLE_EQ(j["correct_at_1"].get<double>(), 1.0) << r.out;
  ASSERT_EQ(j["attempts"].size(), 3u) << r.out;
  std::string log = b.log();
  for (const auto& a : j["attempts"]) {
    EXPECT_EQ(a["status"], "ok") << a.dump();
    ASSERT_TRUE(a.contains("board")) << a.dump();
    EXPECT_EQ(a["board"]["arch"], arch);
    EXPECT_EQ(a["board"]["emulated"], true);
    EXPECT_EQ(a["board"]["sandboxed"], false) << "qemu-user refuses the filter: the attempt must say it ran without it";
    EXPECT_NE(a["board"]["sandbox"].get<std::string>().find("--unsandboxed-emulation"), std::string::npos) << a.dump();
    // Timed there: the board started the candidate's worker, and logged its pid.
    int pid = a["board"]["worker_pid"].get<int>();
    EXPECT_GT(pid, 0);
    EXPECT_NE(log.find("worker " + std::to_string(pid) + " started"), std::string::npos) << pid << "\n" << log;
  }
  // The run says its times are not meaningful, and where it ran.
  EXPECT_EQ(j["emulated"], true);
  EXPECT_NE(j.value("times_note", "").find("not meaningful"), std::string::npos);
  EXPECT_EQ(j["environment"]["board"]["arch"], arch);
  EXPECT_EQ(j["environment"]["board"]["emulated"], true);
  EXPECT_EQ(j["environment"]["emulated"], true);
  EXPECT_NE(j["environment"]["compiler"].get<std::string>().find(arch + "-linux-gnu-gcc"), std::string::npos);
  // The table says so too.
  CommandResult text = run_command(ekb() + " results " + std::to_string(j["run"].get<int>()) + " --db " + db.string());
  EXPECT_NE(text.out.find("NOTE: times measured on an emulated board"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("ran WITHOUT the board's sandbox"), std::string::npos) << text.out;
  // And the leaderboard (the HTML report's notes are the same summary's).
  json lb = parse(run_command(std::string(EKB_BINARY) + " leaderboard --db " + db.string() + " --json").out);
  ASSERT_TRUE(lb.is_object() && lb["runs"].size() == 1) << lb.dump();
  EXPECT_EQ(lb["runs"][0]["emulated"], true);
  EXPECT_NE(lb["runs"][0]["notes"].dump().find("not meaningful"), std::string::npos) << lb.dump();
}

TEST(RemoteBoard, Aarch64UnderQemuEvaluatesAndMatchesTheReference) { eval_through("aarch64"); }
TEST(RemoteBoard, Riscv64UnderQemuEvaluatesAndMatchesTheReference) { eval_through("riscv64"); }

TEST(RemoteBoard, AWrongTokenIsRefusedAndNothingIsStored) {
  const std::string arch = "aarch64";
  if (std::string why = board_skip_reason(arch); !why.empty()) GTEST_SKIP() << why;
  TestBoard b(arch);
  ASSERT_TRUE(b.start()) << b.log();
  fs::path subs = submissions(b, {});
  std::string wrong = b.write("wrong.token", "not-the-boards-token-0123456789\n");
  std::string profile = b.profile("qemu-wrong", 1, "", wrong);
  fs::path db = b.dir() / "r.db";
  CommandResult r = run_command(ekb() + " eval " + subs.string() + " --device " + profile + " --db " + db.string() + " --quick 2>&1");
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("refused this host"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("does not match the board's --token-file"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(wrong), std::string::npos) << "the error names the token file: " << r.out;
  EXPECT_EQ(r.out.find("not-the-boards-token"), std::string::npos) << "a token is never printed";
  EXPECT_NE(b.log().find("refused: wrong token"), std::string::npos) << b.log();
  EXPECT_EQ(stored_attempts(db), 0) << "nothing stored, certainly not as the candidate's fault";
}

TEST(RemoteBoard, ABoardKilledMidRunLeavesAResumableStore) {
  const std::string arch = "aarch64";
  if (std::string why = board_skip_reason(arch); !why.empty()) GTEST_SKIP() << why;
  TestBoard b(arch);
  ASSERT_TRUE(b.start("first.log")) << b.log();
  std::string profile = b.profile("qemu-kill", 1);
  fs::path db = b.dir() / "r.db";
  // Every task of the fixture suite (8), its own default schedule against itself.
  std::string eval = ekb() + " eval --defaults --device " + profile + " --db " + db.string() + " --quick --json";
  fs::path out = b.dir() / "first.out";
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", (eval + " > " + out.string() + " 2>&1").c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Once two attempts are stored, the board disappears (every process of it, mid-attempt or between two).
  bool killed = false;
  for (int i = 0; i < 1800 && !killed; ++i) {
    if (stored_attempts(db) >= 2) {
      b.kill_board();
      killed = true;
    }
    if (waitpid(pid, nullptr, WNOHANG) == pid) {
      pid = -1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  int status = 0;
  if (pid > 0) waitpid(pid, &status, 0);
  std::string first = read_text(out);
  ASSERT_TRUE(killed) << "the run ended before the board could be killed:\n" << first;
  EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << first;
  EXPECT_NE(first.find("stopped answering"), std::string::npos) << first;
  EXPECT_NE(first.find("run the same command again"), std::string::npos) << first;

  // The store: what was measured stays, the attempt in flight is `unavailable` (not the
  // candidate's fault), and the run is not finished.
  CommandResult runs = run_command(std::string(EKB_BINARY) + " results --db " + db.string() + " --json");
  json rl = parse(runs.out);
  ASSERT_TRUE(rl.is_array() && rl.size() == 1) << runs.out;
  EXPECT_EQ(rl[0]["finished"], false);
  int run = rl[0]["run"].get<int>();
  json stored = parse(run_command(std::string(EKB_BINARY) + " results " + std::to_string(run) + " --db " + db.string() + " --json").out);
  ASSERT_TRUE(stored.is_object());
  std::map<std::string, double> ok_times;
  std::string unavailable;
  for (const auto& a : stored["attempts"]) {
    if (a["status"] == "ok") ok_times[a["task"]] = a["candidate_ms"].get<double>();
    else if (a["status"] == "unavailable") {
      EXPECT_TRUE(unavailable.empty()) << "one attempt was in flight";
      unavailable = a["task"];
      EXPECT_EQ(a["candidate_fault"], false);
    } else ADD_FAILURE() << a.dump();
  }
  EXPECT_GE(ok_times.size(), 2u);
  EXPECT_FALSE(unavailable.empty()) << stored.dump();
  size_t total = 8;
  EXPECT_LT(ok_times.size(), total);

  // The board comes back; the same command resumes the same run: what was stored stays as it was,
  // the unavailable attempt is made again, the rest made.
  ASSERT_TRUE(b.start("second.log")) << b.log();
  std::string profile2 = b.profile("qemu-kill", 1);  // (the same profile: the board's port is the same)
  ASSERT_EQ(profile2, profile);
  CommandResult again = run_command(eval + " 2>&1");
  ASSERT_EQ(again.status, 0) << again.out << "\nboard:\n" << b.log();
  EXPECT_NE(again.out.find(unavailable + " sample 0: made again (its device was unavailable"), std::string::npos) << again.out;
  json j = parse(again.out);
  ASSERT_TRUE(j.is_object()) << again.out;
  EXPECT_EQ(j["run"], run);
  ASSERT_EQ(j["attempts"].size(), total);
  for (const auto& a : j["attempts"]) {
    EXPECT_EQ(a["status"], "ok") << a.dump();
    auto it = ok_times.find(a["task"]);
    if (it != ok_times.end()) EXPECT_EQ(a["candidate_ms"].get<double>(), it->second) << a["task"] << " was measured again";
  }
  // The second board served the hello and two workers per attempt made, none for those stored.
  EXPECT_EQ(count_of(b.log(), " started ("), static_cast<int>(2 * (total - ok_times.size()))) << b.log();
}

// Without an emulator: an `unavailable` attempt found in the store of an unfinished run (as a run
// stopped by a board that went away leaves it) is made again when the run resumes, and nothing else is.
TEST(RemoteBoard, AStoredUnavailableAttemptIsMadeAgainOnResume) {
  if (!on_path("x86_64-linux-gnu-gcc")) GTEST_SKIP() << "no x86_64-linux-gnu-gcc (Debian: gcc), this machine's board compiler";
  TestBoard b("");
  ASSERT_TRUE(b.start()) << b.log();
  fs::path subs = submissions(b, {"scale_64"});
  std::string profile = b.profile("native", 1);
  fs::path db = b.dir() / "r.db";
  std::string eval = ekb() + " eval " + subs.string() + " --device " + profile + " --db " + db.string() + " --quick --json 2>&1";
  CommandResult first = run_command(eval);
  ASSERT_EQ(first.status, 0) << first.out << b.log();
  json j = parse(first.out);
  ASSERT_TRUE(j.is_object()) << first.out;
  EXPECT_EQ(j["environment"]["board"]["sandboxed"], true) << "a real (here: this machine's) board sandboxes its workers";
  for (const auto& a : j["attempts"]) EXPECT_EQ(a["board"]["sandboxed"], true) << a.dump();
  // As if relu_256's attempt had been made while the board was gone.
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h, "UPDATE attempts SET status = 'unavailable', message = 'gone' WHERE task = 'relu_256'; UPDATE runs SET finished = 0",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(h);
  int workers_before = count_of(b.log(), " started (");
  CommandResult again = run_command(eval);
  ASSERT_EQ(again.status, 0) << again.out;
  EXPECT_NE(again.out.find("relu_256 sample 0: made again (its device was unavailable"), std::string::npos) << again.out;
  json k = parse(again.out);
  ASSERT_TRUE(k.is_object()) << again.out;
  EXPECT_EQ(k["run"], j["run"]);
  for (const auto& a : k["attempts"]) EXPECT_EQ(a["status"], "ok") << a.dump();
  EXPECT_EQ(count_of(b.log(), " started (") - workers_before, 2) << "one attempt made again (two workers), the other kept";
}

// Misbehaving candidates are classified on a board as they are here (the sandbox's verdicts, the
// checks of buffers mirrored across the connection): the board build for this machine's own
// architecture, run as a real board, so that its workers sandbox themselves with the board build's
// own filter loader (under qemu-user they cannot).
TEST(RemoteBoard, AdversarialCandidatesAreClassifiedOnABoardAsLocally) {
  const std::string arch = arch_name(native_arch());
  if (!on_path(arch + "-linux-gnu-gcc")) GTEST_SKIP() << "no " << arch << "-linux-gnu-gcc (Debian: gcc), this machine's board compiler";
  if (std::string why = board_skip_reason(arch); !why.empty()) GTEST_SKIP() << why;
  TestBoard b(arch);
  ASSERT_TRUE(b.start()) << b.log();
  fs::path subs = b.dir() / "subs";
  fs::create_directories(subs);
  // wrong, input mutated, out of bounds, crash, over budget, denied (socket), exited early, abort
  std::map<int, std::string> want;
  for (int s : {1, 6, 8, 9, 11, 13, 15, 19}) {
    fs::path from = fs::path(EKB_SOURCE_DIR) / "tests/adversarial" / ("hardswish_nchw_16x112x112.s" + std::to_string(s) + ".c");
    std::string text = read_text(from);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(text, m, std::regex("// expect: ([a-z ]+)"))) << from;
    want[s] = m[1].str();
    fs::copy_file(from, subs / from.filename());
  }
  std::string profile = b.profile("native-adversarial", 1);
  CommandResult r = run_command(std::string(EKB_BINARY) + " eval " + subs.string() + " --device " + profile + " --db " +
                                (b.dir() / "r.db").string() + " --quick --json 2>/dev/null");
  json j = parse(r.out);
  ASSERT_TRUE(j.is_object()) << r.out;
  ASSERT_EQ(j["attempts"].size(), want.size());
  for (const auto& a : j["attempts"]) {
    int s = a["sample"].get<int>();
    EXPECT_EQ(a["status"].get<std::string>(), want[s]) << "sample " << s << ": " << a["message"];
    EXPECT_EQ(a["candidate_fault"], true) << a.dump();
    EXPECT_EQ(a["board"]["sandboxed"], true) << a.dump();
  }
  EXPECT_NE(b.log().find("sandbox: seccomp filter and rlimits"), std::string::npos) << b.log();
  EXPECT_EQ(b.log().find("stopped answering"), std::string::npos);
}

// A message larger than the board accepts is refused with an error naming both sizes, and it is not
// the candidate's fault.
TEST(RemoteBoard, AMessageLargerThanTheBoardAcceptsIsRefusedClearly) {
  if (!on_path("x86_64-linux-gnu-gcc")) GTEST_SKIP() << "no x86_64-linux-gnu-gcc (Debian: gcc), this machine's board compiler";
  TestBoard b("");
  ASSERT_TRUE(b.start("board.log", {"--max-message-mib", "1"})) << b.log();
  fs::path subs = b.dir() / "subs";
  fs::create_directories(subs);
  // mlp2_wide's argument region is far less than 1 MiB: a kernel's object file is what exceeds it
  // here, padded with a large constant table.
  std::ofstream(subs / "relu_256.c") << "#include <stdint.h>\nconst float ekb_pad[400000] = {1};\n"
                                        "void ekb_kernel(const float* restrict X, float* restrict Y, int32_t n) {\n"
                                        "  for (int i = 0; i < 256; ++i) Y[i] = X[i] > 0 ? X[i] : ekb_pad[i] * 0;\n}\n";
  std::string profile = b.profile("small-messages", 1);
  CommandResult r = run_command(ekb() + " eval " + subs.string() + " --device " + profile + " --db " + (b.dir() / "r.db").string() +
                                " --quick --json 2>/dev/null");
  json j = parse(r.out);
  ASSERT_TRUE(j.is_object()) << r.out;
  ASSERT_EQ(j["attempts"].size(), 1u);
  const auto& a = j["attempts"][0];
  EXPECT_EQ(a["status"], "internal") << a.dump();
  EXPECT_EQ(a["candidate_fault"], false);
  EXPECT_NE(a["message"].get<std::string>().find("larger than this side's limit of 1048576 bytes"), std::string::npos) << a.dump();
  EXPECT_NE(b.log().find("message too large"), std::string::npos) << b.log();
}

}  // namespace
