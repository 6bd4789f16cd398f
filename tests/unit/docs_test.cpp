// Every example in docs/ir.md is checked: `ekb` blocks must be valid, canonical and evaluate;
// `ekb-error` blocks must fail with the message their `# expect:` line names.
#include <fstream>
#include <regex>
#include <sstream>

#include "test_util.h"

namespace ekb::test {
namespace {

struct Example {
  bool expect_error;
  std::string text;
  int line;  // in docs/ir.md
};

std::vector<Example> doc_examples() {
  std::ifstream in(std::string(EKB_SOURCE_DIR) + "/docs/ir.md");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string doc = ss.str();
  std::vector<Example> out;
  std::regex block("```(ekb(-error)?)\\n([\\s\\S]*?)```");
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), block); it != std::sregex_iterator(); ++it) {
    int line = 1 + static_cast<int>(std::count(doc.begin(), doc.begin() + it->position(), '\n'));
    out.push_back({(*it)[2].matched, (*it)[3].str(), line});
  }
  return out;
}

TEST(Docs, HasExamplesOfBothKinds) {
  auto ex = doc_examples();
  int good = 0, bad = 0;
  for (const auto& e : ex) (e.expect_error ? bad : good)++;
  EXPECT_GE(good, 8);
  EXPECT_GE(bad, 4);
}

TEST(Docs, ValidExamplesCheckAreCanonicalAndRun) {
  for (const auto& e : doc_examples()) {
    if (e.expect_error) continue;
    SCOPED_TRACE("docs/ir.md example at line " + std::to_string(e.line));
    Checked c = check_text(e.text, "docs/ir.md");
    ASSERT_TRUE(c.program) << c.rendered();
    EXPECT_EQ(c.diags.items().size(), 0u) << c.rendered();  // no warnings either
    DiagnosticList d;
    Module m = parse_module(std::make_shared<SourceFile>("x", e.text), d);
    EXPECT_EQ(print_module(m), e.text) << "not in canonical form (ekb fmt changes it)";
    EXPECT_NO_THROW(run(*c.program));
  }
}

TEST(Docs, ErrorExamplesFailWithTheirExpectedMessage) {
  for (const auto& e : doc_examples()) {
    if (!e.expect_error) continue;
    SCOPED_TRACE("docs/ir.md example at line " + std::to_string(e.line));
    std::smatch m;
    ASSERT_TRUE(std::regex_search(e.text, m, std::regex("# expect: (.*)\\n"))) << "an ekb-error block needs `# expect:`";
    expect_error(e.text, m[1].str());
  }
}

}  // namespace
}  // namespace ekb::test
