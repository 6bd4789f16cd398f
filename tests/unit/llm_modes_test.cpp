// The modes that ask a language model, end to end through the real client, the real harness and the
// results store, against ekb-scripted-llm replaying canned replies (tests/llm/*.json): direct
// generation (`ekb generate`, then `ekb eval`), LEKA's LLM policy (`ekb agent --policy llm`) and the
// free-form loop (`--mode raw`), and `ekb compare`. Every reply ends classified — a correct program,
// a compile error and its fix, a wrong kernel, a cheating kernel the harness catches, no code, the
// wrong language, no reply from a failing or hanging endpoint —, the budget holds and resumes, a
// killed generation resumes without asking twice, and the key is nowhere it is stored or printed.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <fstream>
#include <sstream>

#include "command_util.h"
#include "scripted_server.h"

namespace ekb::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kKey = "sk-ekb-e2e-SECRET-5d1e77";
const char* kTask = "layernorm_64x128";

json script(const std::string& name) {
  std::ifstream in(std::string(EKB_SOURCE_DIR) + "/tests/llm/" + name);
  return json::parse(in);
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every file ekb wrote under `dir`, as bytes: where the key must not be (the scripted server's log
// of the requests it received, the endpoint's side, holds it on purpose).
std::string everything_under(const fs::path& dir) {
  std::string all;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename() != "requests.jsonl") all += read_all(e.path());
  return all;
}

// One store for these tests: the machine's peak rates are measured once, into it (each test's runs
// are told apart by their keys, which name the test's own directories).
std::string shared_db() { return (fs::path(EKB_BINARY).parent_path() / "llm-tests.db").string(); }

struct Env {
  TempDir dir;
  std::string db() const { return shared_db(); }
  // ekb with the key in its environment, standard error into the output.
  CommandResult ekb(const std::string& args) const {
    return run_command(std::string("EKB_LLM_API_KEY=") + kKey + " " + EKB_BINARY + " " + args + " --db " + db() + " 2>&1");
  }
  // The same, its standard output parsed as JSON (standard error, the progress, left out).
  nlohmann::json ekb_json(const std::string& args, CommandResult* r = nullptr) const {
    CommandResult c = run_command(std::string("EKB_LLM_API_KEY=") + kKey + " " + EKB_BINARY + " " + args + " --db " + db() + " 2>/dev/null");
    if (r) *r = c;
    return nlohmann::json::parse(c.out, nullptr, false);
  }
};

std::string llm_flags(const ScriptedServer& s) { return " --model scripted --endpoint " + s.base_url() + " --retries 1 --timeout 5"; }

TEST(LlmModes, GenerationWritesItsSamplesAndEvalCountsTheOnesWithoutCode) {
  EKB_SKIP_WITHOUT_SCRIPTED_SERVER();
  Env e;
  ScriptedServer server(e.dir, script("generate_layernorm.json"));
  ASSERT_TRUE(server.ready());
  fs::path out = e.dir.path / "gen";
  CommandResult g = e.ekb(std::string("generate --tasks ") + kTask + " --samples 4 --concurrency 1 --out " + out.string() + llm_flags(server));
  ASSERT_EQ(g.status, 0) << g.out;
  EXPECT_TRUE(fs::exists(out / "layernorm_64x128.s0.ekb"));
  EXPECT_FALSE(fs::exists(out / "layernorm_64x128.s1.ekb")) << "no code: no file";
  EXPECT_FALSE(fs::exists(out / "layernorm_64x128.s2.ekb")) << "python: no file";
  EXPECT_TRUE(fs::exists(out / "layernorm_64x128.s3.ekb"));
  ASSERT_EQ(server.requests().size(), 4u);
  EXPECT_EQ(server.requests()[0]["authorization"], std::string("Bearer ") + kKey) << "the key is sent to the endpoint";
  EXPECT_EQ(server.requests()[0]["body"]["model"], "scripted");
  CommandResult ev;
  json j = e.ekb_json("eval " + out.string() + " --json", &ev);
  ASSERT_EQ(ev.status, 0) << ev.out;
  ASSERT_TRUE(j.is_object()) << ev.out;
  std::map<int, std::string> status;
  for (const auto& a : j["attempts"]) status[a["sample"].get<int>()] = a["status"];
  EXPECT_EQ(status[0], "ok");
  EXPECT_EQ(status[1], "no code");
  EXPECT_EQ(status[2], "wrong language");
  EXPECT_EQ(status[3], "compile") << "the compile error of sample 3, located";
  EXPECT_DOUBLE_EQ(j["correct_at_1"].get<double>(), 0.25) << "every sample asked for counts";
  // The key is in nothing ekb stored, wrote or printed.
  EXPECT_EQ(g.out.find(kKey), std::string::npos);
  EXPECT_EQ(ev.out.find(kKey), std::string::npos);
  EXPECT_EQ(everything_under(e.dir.path).find(kKey), std::string::npos) << "the samples or the manifest hold the key";
  EXPECT_EQ(read_all(e.db()).find(kKey), std::string::npos) << "the store holds the key";
}

TEST(LlmModes, ABudgetStopsTheGenerationCleanlyAndALargerOneResumesIt) {
  EKB_SKIP_WITHOUT_SCRIPTED_SERVER();
  Env e;
  ScriptedServer server(e.dir, json{{"replies", json::array()}, {"default", {{"echo_fenced", "ekb"}}}});
  ASSERT_TRUE(server.ready());
  std::string args = std::string("generate --tasks ") + kTask + " --samples 5 --concurrency 1 --out " + (e.dir.path / "gen").string() +
                     llm_flags(server);
  CommandResult first = e.ekb(args + " --budget-requests 2");
  EXPECT_EQ(first.status, 1) << first.out;
  EXPECT_NE(first.out.find("budget"), std::string::npos) << first.out;
  EXPECT_EQ(server.requests().size(), 2u) << "no request past the budget";
  CommandResult second = e.ekb(args + " --budget-requests 5");
  EXPECT_EQ(second.status, 0) << second.out;
  EXPECT_EQ(server.requests().size(), 5u) << "the two answered before are not asked again";
  EXPECT_NE(second.out.find("(stored)"), std::string::npos) << second.out;
  for (int s = 0; s < 5; ++s) EXPECT_TRUE(fs::exists(e.dir.path / "gen" / ("layernorm_64x128.s" + std::to_string(s) + ".ekb"))) << s;
}

// Runs ekb with `args` (and the key) in the background and kills it with SIGKILL once the server has
// received `requests` requests; returns how many it had received by then, or 0 when ekb ended on its
// own first (the test then fails: it could not be killed mid-run).
size_t kill_after_requests(const Env& e, const ScriptedServer& server, const std::string& args, size_t requests) {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("EKB_LLM_API_KEY", kKey, 1);
    std::string line = "exec " + std::string(EKB_BINARY) + " " + args + " --db " + e.db() + " > /dev/null 2>&1";
    execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  auto t0 = std::chrono::steady_clock::now();
  while (server.requests().size() < requests && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(pid, SIGKILL);
  int st = 0;
  ::waitpid(pid, &st, 0);
  return WIFSIGNALED(st) ? server.requests().size() : 0;
}

TEST(LlmModes, AKilledGenerationResumesWithoutAskingAnythingTwice) {
  EKB_SKIP_WITHOUT_SCRIPTED_SERVER();
  Env e;
  ScriptedServer server(e.dir, json{{"replies", json::array()}, {"default", {{"echo_fenced", "ekb"}, {"delay_ms", 300}}}});
  ASSERT_TRUE(server.ready());
  std::string args = std::string("generate --tasks ") + kTask + " --samples 6 --concurrency 1 --out " + (e.dir.path / "gen").string() +
                     llm_flags(server);
  size_t asked_before = kill_after_requests(e, server, args, 3);
  ASSERT_GT(asked_before, 0u) << "the generation ended before it could be killed";
  CommandResult again = e.ekb(args);
  ASSERT_EQ(again.status, 0) << again.out;
  // At most the request in flight when it was killed is asked again: its reply never arrived.
  EXPECT_LE(server.requests().size(), 6u + 1u);
  EXPECT_GE(asked_before, 3u);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(e.db().c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  sqlite3_prepare_v2(db, "SELECT count(*), count(DISTINCT sample) FROM llm_requests WHERE run = (SELECT max(run) FROM llm_requests)", -1, &q,
                     nullptr);
  ASSERT_EQ(sqlite3_step(q), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(q, 0), 6);
  EXPECT_EQ(sqlite3_column_int(q, 1), 6);
  sqlite3_finalize(q);
  sqlite3_close(db);
  for (int s = 0; s < 6; ++s) EXPECT_TRUE(fs::exists(e.dir.path / "gen" / ("layernorm_64x128.s" + std::to_string(s) + ".ekb"))) << s;
}

json trajectory(const Env& e, int64_t run) { return e.ekb_json("trajectory " + std::to_string(run) + " " + kTask + " --json"); }

TEST(LlmModes, LekaWithAModelClassifiesEveryReplyAndKeepsTheFasterCorrectProgram) {
  EKB_SKIP_WITHOUT_SCRIPTED_SERVER();
  Env e;
  // A task whose default schedule leaves an LSTM cell's gates to plain loops (the scripted model's L1
  // fix puts a unit's four gates side by side in lanes: 1.17x on the 2-core Xeon, as ekb's search
  // finds it).
  const std::string task = "lstm_cell_har_1x9x64";
  ScriptedServer server(e.dir, script("leka_llm_lstm_cell.json"));
  ASSERT_TRUE(server.ready());
  fs::path out = e.dir.path / "tuned";
  CommandResult a;
  json j = e.ekb_json(std::string("agent --policy llm --tasks ") + task + " --budget 8 --json --out " + out.string() + llm_flags(server), &a);
  ASSERT_EQ(a.status, 0) << a.out;
  ASSERT_TRUE(j.is_object()) << a.out;
  const json& t = j["tasks"][0];
  EXPECT_EQ(t["status"], "ok");
  EXPECT_GT(t["speedup_interval"][0].get<double>(), 1.0) << t.dump();
  EXPECT_TRUE(fs::exists(out / (task + ".ekb")));
  json tr = e.ekb_json("trajectory " + std::to_string(j["run"].get<int64_t>()) + " " + task + " --json");
  ASSERT_TRUE(tr.is_object());
  std::vector<std::string> outcomes, layers;
  for (const auto& s : tr["steps"]) outcomes.push_back(s["status"]), layers.push_back(s["layer"]);
  std::vector<std::string> want{"ok", "no code", "wrong", "compile", "ok", "ok", "wrong language", "ok"};
  EXPECT_EQ(outcomes, want);
  EXPECT_EQ(layers[1], "L0");
  EXPECT_EQ(layers[3], "L1");
  EXPECT_EQ(layers[5], "L2");
  EXPECT_TRUE(tr["steps"][4]["accepted"].get<bool>()) << "the compile error's fix, in the next turn, is the faster program";
  ASSERT_EQ(tr["model_turns"].size(), 6u);
  EXPECT_GT(tr["model_turns"][0]["prompt_tokens"].get<int>(), 0);
  // The model saw the compile error's fix-it line in the turn after it.
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 6u);
  std::string fourth = reqs[3]["body"]["messages"][1]["content"];
  EXPECT_NE(fourth.find("fix: the axes of `Gt`"), std::string::npos) << fourth.substr(0, 3000);
  EXPECT_NE(fourth.find("This turn: revise L1"), std::string::npos);
  EXPECT_EQ(everything_under(e.dir.path).find(kKey), std::string::npos);
  EXPECT_EQ(read_all(e.db()).find(kKey), std::string::npos);
  // `ekb eval` re-scores the program it wrote, independently.
  json r = e.ekb_json("eval " + out.string() + " --json");
  ASSERT_TRUE(r.is_object());
  EXPECT_EQ(r["attempts"][0]["status"], "ok");
}

TEST(LlmModes, AKilledLlmAgentResumesWithoutAskingOrMeasuringItsStoredTurnsAgain) {
  EKB_SKIP_WITHOUT_SCRIPTED_SERVER();
  Env e;
  json s = script("leka_llm_layernorm.json");
  for (auto& r : s["replies"]) r["delay_ms"] = 400;  // time to kill it between turns
  ScriptedServer server(e.dir, s);
  ASSERT_TRUE(server.ready());
  std::string args = std::string("agent --policy llm --tasks ") + kTask + " --budget 8 --json --out " + (e.dir.path / "t").string() +
                     llm_flags(server);
  size_t asked_before = kill_after_requests(e, server, args, 4);
  ASSERT_GT(asked_before, 0u) << "the agent finished before it could be killed";
  CommandResult again;
  json j = e.ekb_json(args, &again);
  ASSERT_EQ(again.status, 0) << again.out;
  ASSERT_TRUE(j.is_object());
  // Six turns in all: those answered before the kill are replayed from the store, at most the one in
  // flight is asked again.
  EXPECT_GE(asked_before, 4u);
  EXPECT_LE(server.requests().size(), 6u + 1u);
  json tr = trajectory(e, j["run"]);
  std::vector<std::string> outcomes;
  for (const auto& step : tr["steps"]) outcomes.push_back(step["status"]);
  // The turns answered before the kill kept their outcomes (the one in flight was asked again, and the
  // scripted server, which hands out each canned reply once, answered it with the next one).
  std::vector<std::string> want{"ok", "no code", "wrong", "compile"};
  ASSERT_GE(outcomes.size(), asked_before);
  for (size_t i = 0; i + 1 < asked_before && i < want.size(); ++i) EXPECT_EQ(outcomes[i], want[i]) << "step " << i;
  EXPECT_LE(outcomes.size(), 8u);
  EXPECT_LE(tr["model_turns"].size(), 6u) << "one stored request per turn, none twice";
  EXPECT_GE(tr["model_turns"].size(), asked_before - 1);
}

TEST(LlmModes, TheFreeFormLoopCatchesACheatingKernelAndKeepsTheBestCorrectSource) {
  EKB_SKIP_WITHOUT_SCRIPTED_SERVER();
  Env e;
  ScriptedServer server(e.dir, script("freeform_layernorm.json"));
  ASSERT_TRUE(server.ready());
  fs::path out = e.dir.path / "raw";
  CommandResult a;
  json j = e.ekb_json(std::string("agent --policy llm --mode raw --tasks ") + kTask + " --budget 5 --json --out " + out.string() +
                          llm_flags(server),
                      &a);
  ASSERT_EQ(a.status, 0) << a.out;
  ASSERT_TRUE(j.is_object()) << a.out;
  EXPECT_EQ(j["tasks"][0]["status"], "ok");
  ASSERT_TRUE(fs::exists(out / "layernorm_64x128.c"));
  EXPECT_EQ(read_all(out / "layernorm_64x128.c").find("static float cache"), std::string::npos) << "the cheating kernel is not kept";
  json tr = trajectory(e, j["run"]);
  std::vector<std::string> outcomes;
  for (const auto& s : tr["steps"]) outcomes.push_back(s["status"]);
  std::vector<std::string> want{"ok", "wrong", "no code", "ok", "ok"};
  EXPECT_EQ(outcomes, want) << "write, a kernel that replays its first answer (caught on fresh inputs), no code, a revision, the confirmation";
}

TEST(LlmModes, AFailingOrHangingEndpointEndsInNoReplyAndTheStartIsKept) {
  EKB_SKIP_WITHOUT_SCRIPTED_SERVER();
  Env e;
  json s{{"replies", {{{"status", 500}, {"body", "{\"error\": \"overloaded\"}"}, {"repeat", 4}}, {{"hang", true}, {"repeat", 4}}}}};
  ScriptedServer server(e.dir, s);
  ASSERT_TRUE(server.ready());
  CommandResult a;
  json j = e.ekb_json(std::string("agent --policy llm --tasks ") + kTask + " --budget 4 --json --no-confirm --out " + (e.dir.path / "t").string() +
                          " --model scripted --endpoint " + server.base_url() + " --retries 1 --timeout 1",
                      &a);
  ASSERT_EQ(a.status, 0) << a.out;
  ASSERT_TRUE(j.is_object()) << a.out;
  json tr = trajectory(e, j["run"]);
  std::vector<std::string> outcomes;
  for (const auto& st : tr["steps"]) outcomes.push_back(st["status"]);
  std::vector<std::string> want{"ok", "no reply", "no reply", "no reply"};
  EXPECT_EQ(outcomes, want);
  EXPECT_NE(tr["steps"][1]["message"].get<std::string>().find("500"), std::string::npos) << tr["steps"][1].dump();
  EXPECT_NE(tr["steps"][3]["message"].get<std::string>().find("timeout"), std::string::npos) << tr["steps"][3].dump();
  EXPECT_EQ(j["tasks"][0]["status"], "ok") << "the start, the baseline itself, stays";
}

TEST(LlmModes, CompareSetsTheModesSideBySide) {
  EKB_SKIP_WITHOUT_SCRIPTED_SERVER();
  Env e;
  ScriptedServer gen_server(e.dir, script("generate_layernorm.json"));
  ASSERT_TRUE(gen_server.ready());
  fs::path gen = e.dir.path / "gen";
  json g = e.ekb_json(std::string("generate --json --tasks ") + kTask + " --samples 2 --concurrency 1 --out " + gen.string() + llm_flags(gen_server));
  ASSERT_TRUE(g.is_object());
  std::string gen_run = std::to_string(g["run"].get<int64_t>());
  CommandResult unscored = e.ekb("compare " + gen_run + " --tasks " + kTask);
  EXPECT_NE(unscored.status, 0);
  EXPECT_NE(unscored.out.find("ekb eval"), std::string::npos) << unscored.out;
  json ev = e.ekb_json("eval --json " + gen.string());
  ASSERT_TRUE(ev.is_object());
  json search = e.ekb_json(std::string("agent --json --tasks ") + kTask + " --budget 4 --out " + (e.dir.path / "search").string());
  ASSERT_TRUE(search.is_object());
  CommandResult c;
  json j = e.ekb_json("compare " + gen_run + " " + std::to_string(search["run"].get<int64_t>()) + " --json --tasks " + kTask, &c);
  ASSERT_EQ(c.status, 0) << c.out;
  ASSERT_TRUE(j.is_array()) << c.out;
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["label"], "direct generation (ir)");
  EXPECT_EQ(j[0]["scored_by"], "eval run " + std::to_string(ev["run"].get<int64_t>()));
  EXPECT_EQ(j[0]["samples"], 2);
  EXPECT_DOUBLE_EQ(j[0]["metrics"]["correct_at_1"].get<double>(), 0.5);
  EXPECT_EQ(j[0]["requests"], 2);
  EXPECT_GT(j[0]["cost"].get<double>(), 0);
  EXPECT_EQ(j[1]["label"], "LEKA-search");
  EXPECT_EQ(j[1]["requests"], 0);
  // (Every measurement the search made, within its budget: it may stop before, when nothing is left to try.)
  EXPECT_EQ(j[1]["measurements"], search["tasks"][0]["steps"]) << search.dump();
  EXPECT_LE(j[1]["measurements"].get<int>(), 4);
  EXPECT_GE(j[1]["measurements"].get<int>(), 1);
}

}  // namespace
}  // namespace ekb::test
