// `ekb generate --shard I/N` end to end against the scripted endpoint: two shards, each with its own
// store, write into one output directory (the manifest keeps both shards' failed samples, though
// both stores number their run 1), and `ekb merge` makes of their stores one run with the key of the
// same generation without shards.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include "command_util.h"
#include "harness/results_store.h"
#include "scripted_server.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace ekb::test;

// Four tasks (relu6_mbv2_112x112x96, relu6_mbv2_14x14x384, relu_dscnn_64x25x5, relu_resnet18_64x56x56):
// shard 1/2 takes the first and third, 2/2 the others; one task of each gives no code.
const char* kTasks = "relu*";

CommandResult ekb(const std::string& args) {
  return run_command(std::string("EKB_LLM_API_KEY=sk-test ") + EKB_BINARY + " " + args + " 2>&1");
}

json json_of(const std::string& text) {
  auto j = json::parse(text.substr(std::min(text.find('{'), text.size())), nullptr, false);
  return j;
}

TEST(ShardedGeneration, ShardsShareTheOutputDirectoryAndMergeIntoTheUnshardedRun) {
  EKB_SKIP_WITHOUT_SCRIPTED_SERVER();
  TempDir d;
  json script{{"replies", json::array({{{"match", "relu6_mbv2_14x14x384"}, {"content", "No code here."}, {"repeat", 100}},
                                       {{"match", "relu_dscnn_64x25x5"}, {"content", "Nor here."}, {"repeat", 100}}})},
              {"default", {{"echo_fenced", "ekb"}, {"repeat", 100}}}};
  ScriptedServer server(d, script);
  ASSERT_TRUE(server.ready());
  std::string gen = (d.path / "gen").string();
  std::string common = std::string("generate --tasks '") + kTasks + "' --samples 2 --concurrency 1 --out " + gen + " --model scripted " +
                       "--endpoint " + server.base_url() + " --retries 1 --timeout 5";
  for (int i = 1; i <= 2; ++i) {
    auto r = ekb(common + " --shard " + std::to_string(i) + "/2 --db " + (d.path / ("s" + std::to_string(i) + ".db")).string());
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("2 tasks x 2 samples"), std::string::npos) << r.out;
  }
  EXPECT_EQ(server.requests().size(), 8u);
  for (const char* f : {"relu6_mbv2_112x112x96.s0.ekb", "relu6_mbv2_112x112x96.s1.ekb", "relu_resnet18_64x56x56.s1.ekb"})
    EXPECT_TRUE(fs::exists(fs::path(gen) / f)) << f;
  EXPECT_FALSE(fs::exists(fs::path(gen) / "relu_dscnn_64x25x5.s0.ekb"));
  std::ifstream in(fs::path(gen) / "ekb_generation.json");
  json manifest = json::parse(in, nullptr, false);
  ASSERT_TRUE(manifest.is_object());
  std::set<std::string> failed;
  for (const auto& e : manifest["failed"]) failed.insert(e["task"].get<std::string>() + " " + std::to_string(e["sample"].get<int>()));
  EXPECT_EQ(failed, (std::set<std::string>{"relu6_mbv2_14x14x384 0", "relu6_mbv2_14x14x384 1", "relu_dscnn_64x25x5 0",
                                           "relu_dscnn_64x25x5 1"}))
      << "each shard keeps the other's failed samples: " << manifest.dump();

  auto m = ekb("merge " + (d.path / "s1.db").string() + " " + (d.path / "s2.db").string() + " -o " + (d.path / "merged.db").string() +
               " --json");
  ASSERT_EQ(m.status, 0) << m.out;
  json rep = json_of(m.out);
  ASSERT_EQ(rep["runs"].size(), 1u) << m.out;
  EXPECT_EQ(rep["runs"][0]["shards"], json::array({1, 2}));
  EXPECT_EQ(rep["runs"][0]["finished"], true);
  EXPECT_EQ(rep["runs"][0]["llm_requests"], 8);

  // The same generation without shards (its replies stored anew, into its own store) has the merged run's key.
  auto all = ekb(common + " --db " + (d.path / "all.db").string());
  ASSERT_EQ(all.status, 0) << all.out;
  auto key_of = [](const fs::path& db) {
    ekb::ResultsStore store(db.string());
    auto runs = store.runs();
    return runs.size() == 1 ? runs[0].key : std::string("(not one run)");
  };
  EXPECT_EQ(key_of(d.path / "merged.db"), key_of(d.path / "all.db"));
}

}  // namespace
