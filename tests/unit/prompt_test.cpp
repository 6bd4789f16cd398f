// What a model is given and what is taken from its reply: the reference card made from docs/ir.md
// (and the committed card kept equal to it), prompt templates from files with their version, the
// prompts of a task in both modes, the code taken out of replies, and a generation's manifest of
// failed samples read by `ekb eval`'s scan.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "command_util.h"
#include "rowscale_task.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "agent/prompts/ir_card.h"
#include "agent/prompts/prompt_templates.h"
#include "agent/prompts/reply_code.h"
#include "agent/prompts/task_prompt.h"
#include "harness/submissions.h"
#include "ir/check.h"

namespace ekb::agent {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
}

fs::path temp_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("ekb_prompt_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

const std::string kSource = EKB_SOURCE_DIR;

TEST(IrCard, TheCommittedCardIsTheOneMadeFromDocs) {
  std::string made = ir_card_from_docs(read(kSource + "/docs/ir.md"));
  EXPECT_EQ(made, read(kSource + "/prompts/ir_card.md"))
      << "prompts/ir_card.md is out of date with docs/ir.md: regenerate it with `build/src/ekb prompt --card > prompts/ir_card.md`";
  EXPECT_NE(made.find("## L1: `schedule BACKEND`"), std::string::npos);
  EXPECT_NE(made.find("```ekb\n"), std::string::npos);
}

TEST(IrCard, LeavesOutMarkedPartsAndRejectedExamples) {
  std::string doc =
      "# Lang\n\nkeep 1\n\n<!-- card: off -->\nsecret\n<!-- card: on -->\n\n\n\nkeep 2\n```ekb-error\n# expect: bad\nkernel x\n```\n"
      "```ekb\nkernel good\n```\n";
  std::string card = ir_card_from_docs(doc);
  EXPECT_NE(card.find("keep 1"), std::string::npos);
  EXPECT_NE(card.find("keep 2"), std::string::npos);
  EXPECT_NE(card.find("kernel good"), std::string::npos);
  EXPECT_EQ(card.find("secret"), std::string::npos);
  EXPECT_EQ(card.find("expect: bad"), std::string::npos);
  EXPECT_EQ(card.find("card:"), std::string::npos);
  EXPECT_EQ(card.find("\n\n\n"), std::string::npos) << "runs of empty lines become one";
}

TEST(PromptTemplates, PlaceholdersAreFilledAndAMissingValueIsAnError) {
  EXPECT_EQ(fill_placeholders("a {{x}} b {{y_2}}", {{"x", "1"}, {"y_2", "{{x}}"}}, "t"), "a 1 b {{x}}") << "values are not scanned again";
  EXPECT_EQ(fill_placeholders("int a[1] = {{0}};", {}, "t"), "int a[1] = {{0}};") << "C's braces are not placeholders";
  try {
    fill_placeholders("hello {{name}}", {}, "template greet.md");
    FAIL() << "a placeholder without a value must be an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("{{name}}"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("greet.md"), std::string::npos) << e.what();
  }
}

TEST(PromptTemplates, TheVersionChangesWithAnyTemplate) {
  fs::path d = temp_dir("version");
  write(d / "VERSION", "3\n");
  write(d / "system.md", "be good");
  write(d / "generate_ir.md", "write {{task_name}}");
  PromptTemplates a = PromptTemplates::load(d.string());
  EXPECT_EQ(a.version().substr(0, 2), "3-");
  EXPECT_EQ(a.render("generate_ir", {{"task_name", "t"}}), "write t");
  EXPECT_EQ(PromptTemplates::load(d.string()).version(), a.version()) << "the same texts, the same version";
  write(d / "system.md", "be very good");
  EXPECT_NE(PromptTemplates::load(d.string()).version(), a.version());
  EXPECT_THROW(a.text("revise_ir"), std::runtime_error);
  fs::remove(d / "VERSION");
  EXPECT_THROW(PromptTemplates::load(d.string()), std::runtime_error);
  EXPECT_THROW(PromptTemplates::load((d / "nowhere").string()), std::runtime_error);
  fs::remove_all(d);
}

const char* kTaskText = test::kRowscaleText;
Task task() { return test::rowscale_task(); }

TEST(TaskPrompt, IrPromptCarriesTheTaskTheDeviceTheBaselineAndTheCard) {
  PromptTemplates templates = PromptTemplates::load(kSource + "/prompts");
  Task t = task();
  PromptContext c{&t, CodeMode::ir, find_device("edge-1core"), StoredBaseline{0.1234, 7, "cold"}};
  Prompt p = generation_prompt(templates, c);
  ASSERT_EQ(p.messages.size(), 2u);
  EXPECT_EQ(p.messages[0].role, "system");
  EXPECT_EQ(p.messages[1].role, "user");
  const std::string& u = p.messages[1].content;
  EXPECT_NE(u.find("Y[r, c] = X[r, c] * W[c] / S[r]"), std::string::npos);
  EXPECT_NE(u.find("schedule cpu"), std::string::npos);
  EXPECT_NE(u.find("0.1234 ms"), std::string::npos);
  EXPECT_NE(u.find("threads: 1"), std::string::npos);
  EXPECT_NE(u.find("256 MiB"), std::string::npos);
  EXPECT_NE(u.find("## L2: `memory BACKEND`"), std::string::npos) << "the card is in the prompt";
  EXPECT_EQ(u.find("{{"), std::string::npos) << "no placeholder is left";
  EXPECT_EQ(p.version, templates.version());
  EXPECT_EQ(p.template_name, "generate_ir");
}

TEST(TaskPrompt, RawPromptsCarryTheAbiOfTheirBackend) {
  PromptTemplates templates = PromptTemplates::load(kSource + "/prompts");
  Task t = task();
  Prompt cpu = generation_prompt(templates, PromptContext{&t, CodeMode::raw, find_device("edge-cpu"), std::nullopt});
  const std::string& u = cpu.messages[1].content;
  EXPECT_NE(u.find("void ekb_kernel("), std::string::npos);
  EXPECT_NE(u.find("```c\n"), std::string::npos);
  EXPECT_NE(u.find("No time of the task's baseline"), std::string::npos);
  EXPECT_EQ(u.find("## L1:"), std::string::npos) << "the IR's card is for the ir mode";
  Prompt cuda = generation_prompt(templates, PromptContext{&t, CodeMode::raw, find_device("jetson-orin-cuda"), std::nullopt});
  EXPECT_NE(cuda.messages[1].content.find("```cuda\n"), std::string::npos);
  EXPECT_NE(cuda.messages[1].content.find("@launch"), std::string::npos) << cuda.messages[1].content;
  EXPECT_NE(cuda.messages[1].content.find("1024 threads"), std::string::npos);
  Prompt cl = generation_prompt(templates, PromptContext{&t, CodeMode::raw, find_device("mali-g57-opencl"), std::nullopt});
  EXPECT_NE(cl.messages[1].content.find("384 threads"), std::string::npos);
  EXPECT_NE(cl.messages[1].content.find("```opencl\n"), std::string::npos);
}

TEST(TaskPrompt, TheBaselineTimeIsTheNewestStoredOnTheDevice) {
  fs::path d = temp_dir("baseline");
  ResultsStore store((d / "r.db").string());
  auto add = [&](const std::string& device, nlohmann::json env, std::vector<double> baseline_ms) {
    RunInfo r = store.open_run(std::to_string(store.runs().size()), "cpu", device, env);
    AttemptRecord a;
    a.task = "rowscale";
    a.eval.baseline = summarize_times(baseline_ms);
    store.add_attempt(r.id, a);
    store.finish_run(r.id);
    return r.id;
  };
  EXPECT_FALSE(stored_baseline(store, "rowscale", "host"));
  add("host", nlohmann::json::object(), {1.0, 2.0, 3.0});
  int64_t warm = add("host", {{"timing", "warm"}}, {0.5, 0.5, 0.5});
  add("edge-1core", nlohmann::json::object(), {9.0});
  add("host", nlohmann::json::object(), {});  // a failed attempt times nothing
  auto b = stored_baseline(store, "rowscale", "host");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->run, warm);
  EXPECT_DOUBLE_EQ(b->ms, 0.5);
  EXPECT_EQ(b->timing, "warm");
  EXPECT_DOUBLE_EQ(stored_baseline(store, "rowscale", "edge-1core")->ms, 9.0);
  EXPECT_FALSE(stored_baseline(store, "other", "host"));
  fs::remove_all(d);
}

TEST(ReplyCode, TakesTheBlockOfTheLanguageAskedFor) {
  CodeLanguage ekb = code_language(CodeMode::ir, Backend::cpu);
  ReplyCode r = extract_code("Here:\n```python\nprint(1)\n```\nand\n```ekb\nkernel a\n```\nthen\n```EKB\nkernel b\n```\n", ekb);
  ASSERT_EQ(r.status, ReplyCodeStatus::ok);
  EXPECT_EQ(r.code, "kernel b\n") << "the last block in the language";
  EXPECT_EQ(extract_code("```\nkernel u\n```", ekb).code, "kernel u\n") << "an untagged block when none is tagged";
  ReplyCode c = extract_code("~~~c\nvoid f(void) {}\n~~~\n", code_language(CodeMode::raw, Backend::cpu));
  EXPECT_EQ(c.status, ReplyCodeStatus::ok);
  EXPECT_EQ(c.code, "void f(void) {}\n");
  EXPECT_EQ(extract_code("```cu\n__global__ void k() {}\n```", code_language(CodeMode::raw, Backend::cuda)).status, ReplyCodeStatus::ok);
}

TEST(ReplyCode, NoCodeWrongLanguageAndATruncatedReply) {
  CodeLanguage c = code_language(CodeMode::raw, Backend::cpu);
  ReplyCode none = extract_code("I would write a loop over the rows.", c);
  EXPECT_EQ(none.status, ReplyCodeStatus::no_code);
  EXPECT_NE(none.message.find("```c"), std::string::npos) << none.message;
  ReplyCode wrong = extract_code("```python\nimport numpy\n```", c);
  EXPECT_EQ(wrong.status, ReplyCodeStatus::wrong_language);
  EXPECT_NE(wrong.message.find("python"), std::string::npos) << wrong.message;
  ReplyCode cut = extract_code("```c\nvoid ekb_kernel(float* y) {\n  for (", c);
  EXPECT_EQ(cut.status, ReplyCodeStatus::ok) << "a block left open runs to the end (the compiler then says what is missing)";
  EXPECT_EQ(cut.code, "void ekb_kernel(float* y) {\n  for (\n");
}

TEST(GenerationManifest, FailedSamplesBecomeFailedSubmissionsUnlessAFileGivesThem) {
  fs::path suite_dir = temp_dir("suite");
  write(suite_dir / "rowscale.ekb", kTaskText);
  Suite suite = Suite::load(suite_dir);
  fs::path d = temp_dir("manifest");
  write(d / "rowscale.s1.ekb", kTaskText);
  write(d / kGenerationManifest, R"({"failed": [
    {"task": "rowscale", "sample": 0, "outcome": "no code", "message": "the reply has no fenced code block"},
    {"task": "rowscale", "sample": 1, "outcome": "no code", "message": "a file gives this one"},
    {"task": "rowscale", "sample": 2, "outcome": "no reply", "message": "timeout"},
    {"task": "nosuch", "sample": 0, "outcome": "no code"}]})");
  SubmissionSet s = scan_submissions(d.string(), suite, "");
  ASSERT_EQ(s.items.size(), 3u);
  EXPECT_EQ(s.items[0].failed, Outcome::no_code);
  EXPECT_EQ(s.items[0].failure_message, "the reply has no fenced code block");
  EXPECT_FALSE(s.items[1].failed) << "the file of sample 1 wins";
  EXPECT_EQ(s.items[2].failed, Outcome::no_reply);
  ASSERT_EQ(s.problems.size(), 1u);
  EXPECT_NE(s.problems[0].find("nosuch"), std::string::npos);
  write(d / kGenerationManifest, "{\"failed\": [");
  SubmissionSet bad = scan_submissions(d.string(), suite, "");
  ASSERT_EQ(bad.problems.size(), 1u);
  EXPECT_NE(bad.problems[0].find("not a generation manifest"), std::string::npos);
  fs::remove_all(d);
  fs::remove_all(suite_dir);
}

TEST(PromptCommand, PrintsTheMessagesAndTheCardAndRefusesAnUnknownMode) {
  std::string ekb = EKB_BINARY;
  test::CommandResult j = test::run_command(ekb + " prompt layernorm_64x128 --mode raw --device edge-1core --db /nonexistent/x.db --json 2>&1");
  ASSERT_EQ(j.status, 0) << j.out;
  auto p = nlohmann::json::parse(j.out, nullptr, false);
  ASSERT_TRUE(p.is_object()) << j.out;
  EXPECT_EQ(p["template"], "generate_raw");
  EXPECT_EQ(p["prompt_version"], PromptTemplates::load(kSource + "/prompts").version());
  ASSERT_EQ(p["messages"].size(), 2u);
  EXPECT_NE(p["messages"][1]["content"].get<std::string>().find("void ekb_kernel("), std::string::npos);
  EXPECT_FALSE(fs::exists("/nonexistent/x.db"));
  test::CommandResult card = test::run_command(ekb + " prompt --card");
  EXPECT_EQ(card.status, 0);
  EXPECT_EQ(card.out, read(kSource + "/prompts/ir_card.md"));
  test::CommandResult bad = test::run_command(ekb + " prompt layernorm_64x128 --mode python 2>&1");
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.out.find("unknown mode `python`"), std::string::npos) << bad.out;
}

}  // namespace
}  // namespace ekb::agent
