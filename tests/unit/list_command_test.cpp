// `ekb list` on the fixed fixture suite (tests/fixtures/suite_small, whose counts never change): each
// filter alone and combined (AND), unknown names refused naming the known ones, and --stats's exact
// counts per category, domain, graph vs single and in all, as text and JSON; and the selection and
// counts as the library computes them.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>

#include "command_util.h"
#include "fixture_suite.h"
#include "suite/selection.h"
#include "suite/suite_stats.h"

namespace ekb::test {
namespace {

CommandResult list(const std::string& args) {
  return run_command(std::string(EKB_BINARY) + " --suite " + fixture_suite_dir().string() + " list " + args + " 2>&1");
}

// The names `ekb list ARGS --json` prints, in its order.
std::vector<std::string> names(const std::string& args) {
  CommandResult r = list(args + " --json");
  EXPECT_EQ(r.status, 0) << r.out;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  std::vector<std::string> out;
  if (j.is_array())
    for (const auto& o : j) out.push_back(o["name"]);
  return out;
}

using Names = std::vector<std::string>;

TEST(ListCommand, EachFilterAloneAndCombined) {
  EXPECT_EQ(names("").size(), 8u);
  EXPECT_EQ(names("--category conv"), (Names{"conv1d_k3_a", "conv1d_k3_b", "conv1d_k3_c"}));
  EXPECT_EQ(names("--domain audio"), (Names{"conv1d_k3_a", "conv1d_k3_c", "mlp2_wide"}));
  EXPECT_EQ(names("--pattern scale"), (Names{"scale_64", "scale_128"}));
  EXPECT_EQ(names("--graph"), (Names{"mlp2_small", "mlp2_wide"}));
  EXPECT_EQ(names("--single").size(), 6u);
  EXPECT_EQ(names("--subset pick"), (Names{"relu_256", "mlp2_small", "conv1d_k3_b"}));  // the subset's order
  // Filters combine: every one must hold.
  EXPECT_EQ(names("--domain audio --graph"), (Names{"mlp2_wide"}));
  EXPECT_EQ(names("--domain audio --single"), (Names{"conv1d_k3_a", "conv1d_k3_c"}));
  EXPECT_EQ(names("--subset pick --single"), (Names{"relu_256", "conv1d_k3_b"}));
  EXPECT_EQ(names("--subset pick --domain sensors --category conv"), (Names{"conv1d_k3_b"}));
  EXPECT_EQ(names("--pattern scale --domain vision"), Names{});  // known names, nothing in common
  CommandResult table = list("--category elementwise");
  EXPECT_NE(table.out.find("3 workload(s)"), std::string::npos) << table.out;
  // Every workload's JSON names its task hash and suite version.
  auto j = nlohmann::json::parse(list("--pattern relu_256 --json").out);
  EXPECT_EQ(j[0]["task_hash"].get<std::string>().size(), 16u);
  EXPECT_EQ(j[0]["suite_version"], "0.2.0");
}

TEST(ListCommand, UnknownNamesAreErrorsNamingTheKnownOnes) {
  CommandResult cat = list("--category convv");
  EXPECT_EQ(cat.status, 1);
  EXPECT_NE(cat.out.find("unknown category `convv` (did you mean `conv`?)"), std::string::npos) << cat.out;
  CommandResult dom = list("--domain speech");
  EXPECT_EQ(dom.status, 1);
  EXPECT_NE(dom.out.find("unknown domain `speech`; domains: vision, audio, language, sensors, image, general"), std::string::npos)
      << dom.out;
  CommandResult pat = list("--pattern mlp3");
  EXPECT_EQ(pat.status, 1);
  EXPECT_NE(pat.out.find("the suite has no pattern `mlp3` (did you mean `mlp2`?)"), std::string::npos) << pat.out;
  CommandResult sub = list("--subset agent");
  EXPECT_EQ(sub.status, 1);
  EXPECT_NE(sub.out.find("no subset `agent` (subsets: pick)"), std::string::npos) << sub.out;
  EXPECT_NE(list("--graph --single").status, 0);
}

TEST(ListCommand, StatsCountPatternsAndWorkloadsPerGroup) {
  CommandResult r = list("--stats");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("suite 0.2.0 (" + fixture_suite_dir().string() + "): 4 pattern(s), 8 workload(s)"), std::string::npos)
      << r.out;
  for (const char* row : {"  conv                          1         3\n", "  elementwise                   2         3\n",
                          "  model                         1         2\n", "  vision                        1         1\n",
                          "  audio                         2         3\n", "  sensors                       2         2\n",
                          "  general                       1         2\n", "  graph (category model)        1         2\n",
                          "  single operator               3         6\n", "  total                         4         8\n"})
    EXPECT_NE(r.out.find(row), std::string::npos) << "no row `" << row << "` in\n" << r.out;
  EXPECT_EQ(r.out.find("language"), std::string::npos) << "a domain without workloads is listed";

  auto j = nlohmann::json::parse(list("--stats --json").out);
  EXPECT_EQ(j["suite_version"], "0.2.0");
  EXPECT_EQ(j["total"], (nlohmann::json{{"patterns", 4}, {"workloads", 8}}));
  EXPECT_EQ(j["categories"]["elementwise"], (nlohmann::json{{"patterns", 2}, {"workloads", 3}}));
  EXPECT_EQ(j["categories"].size(), 3u);
  EXPECT_EQ(j["domains"]["audio"], (nlohmann::json{{"patterns", 2}, {"workloads", 3}}));
  EXPECT_EQ(j["domains"].size(), 4u);
  EXPECT_EQ(j["graph"], (nlohmann::json{{"patterns", 1}, {"workloads", 2}}));
  EXPECT_EQ(j["single"], (nlohmann::json{{"patterns", 3}, {"workloads", 6}}));
  // With filters, the counts of what they choose.
  auto audio = nlohmann::json::parse(list("--stats --json --domain audio").out);
  EXPECT_EQ(audio["total"], (nlohmann::json{{"patterns", 2}, {"workloads", 3}}));
  EXPECT_EQ(audio["categories"]["model"], (nlohmann::json{{"patterns", 1}, {"workloads", 1}}));
  EXPECT_EQ(audio["graph"]["workloads"], 1);
}

TEST(ListCommand, HelpNamesEveryFilter) {
  CommandResult r = list("--help");
  EXPECT_EQ(r.status, 0);
  for (const char* o : {"--category", "--domain", "--pattern", "--graph", "--single", "--subset", "--stats", "--json"})
    EXPECT_NE(r.out.find(o), std::string::npos) << o;
}

TEST(Selection, FiltersAndCountsInTheLibrary) {
  Suite s = Suite::load(fixture_suite_dir());
  TaskFilter f;
  f.kind = TaskKind::single;
  f.domain = "sensors";
  auto chosen = filter_tasks(s, f);
  ASSERT_EQ(chosen.size(), 1u);
  EXPECT_EQ(chosen[0]->name, "conv1d_k3_b");
  EXPECT_EQ(task_kind(*s.find("mlp2_wide")), TaskKind::graph);
  SuiteStats st = suite_stats(filter_tasks(s, {}));
  EXPECT_EQ(st.total.patterns, 4);
  EXPECT_EQ(st.total.workloads, 8);
  ASSERT_EQ(st.categories.size(), 3u);
  EXPECT_EQ(st.categories[0].first, "elementwise");  // known_categories() order
  EXPECT_EQ(st.categories[1].first, "conv");
  EXPECT_EQ(st.categories[2].first, "model");
  int domain_workloads = 0;
  for (const auto& [n, c] : st.domains) domain_workloads += c.workloads;
  EXPECT_EQ(domain_workloads, 8);
}

}  // namespace
}  // namespace ekb::test
