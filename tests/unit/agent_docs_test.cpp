// docs/agent.md stays true: its table of action kinds is the code's (action_kinds(), row for row),
// its programs check and lower, and its register-tile example is one the action tables generate.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "agent/actions.h"
#include "ir/check.h"
#include "lower/schedule_choice.h"

namespace ekb::agent {
namespace {

std::string doc() {
  std::ifstream in(std::string(EKB_SOURCE_DIR) + "/docs/agent.md");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(AgentDocs, TheTableOfActionKindsIsTheCodes) {
  std::string d = doc();
  std::regex row("\\| ([a-z_ ]+) \\| (L[012]) \\| (.+) \\|\\n");
  std::vector<std::tuple<std::string, std::string, std::string>> rows;
  for (auto it = std::sregex_iterator(d.begin(), d.end(), row); it != std::sregex_iterator(); ++it)
    rows.push_back({(*it)[1].str(), (*it)[2].str(), (*it)[3].str()});
  const auto& kinds = action_kinds();
  ASSERT_EQ(rows.size(), kinds.size());
  for (size_t i = 0; i < kinds.size(); ++i) {
    EXPECT_EQ(std::get<0>(rows[i]), kinds[i].name);
    EXPECT_EQ(std::get<1>(rows[i]), layer_label(kinds[i].layer)) << kinds[i].name;
    EXPECT_EQ(std::get<2>(rows[i]), kinds[i].what) << kinds[i].name;
  }
}

std::vector<std::string> ekb_blocks() {
  std::string d = doc();
  std::vector<std::string> out;
  std::regex block("```ekb\\n([\\s\\S]*?)```");
  for (auto it = std::sregex_iterator(d.begin(), d.end(), block); it != std::sregex_iterator(); ++it) out.push_back((*it)[1].str());
  return out;
}

Target avx2() {
  Target t = default_target(Backend::cpu);
  set_isa(t, Isa::avx2);
  t.threads = 2;
  return t;
}

TEST(AgentDocs, ItsProgramsCheckAndLower) {
  auto blocks = ekb_blocks();
  ASSERT_FALSE(blocks.empty());
  for (const auto& b : blocks) {
    auto p = load_program(std::make_shared<SourceFile>("docs/agent.md", b));
    EXPECT_NO_THROW(lower_with(*p, avx2(), choose_schedule(*p, avx2(), ""))) << b;
  }
}

TEST(AgentDocs, TheRegisterTileExampleIsOneTheTablesGenerate) {
  std::string text = ekb_blocks().at(0);
  size_t at = text.find("\nschedule cpu");
  ASSERT_NE(at, std::string::npos);
  std::string kernel = text.substr(0, at + 1), sections = text.substr(at + 1);
  auto p = load_program(std::make_shared<SourceFile>("k.ekb", kernel));
  // From the plain loops (the default schedule has a register tile of its own already).
  AgentProgram start = program_from(default_program(*p, avx2()).kernel, "", Backend::cpu);
  auto a = analyze(start, avx2());
  ASSERT_TRUE(a);
  bool found = false;
  for (const auto& x : enumerate_actions(start, *a, AgentLayer::memory, avx2()))
    found = found || (x.kind == ActionKind::register_tile && x.program.schedule_text() == sections);
  EXPECT_TRUE(found) << "no register tile action makes:\n" << sections;
}

}  // namespace
}  // namespace ekb::agent
