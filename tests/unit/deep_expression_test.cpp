// Deep and long programs (ir/limits.h): every shape that nests without bound (long operator chains,
// parentheses, prefix operators, calls, selects, reductions, index and constant expressions, many
// dimensions, loops, compute_at chains, inlining) is a located error or lowered within the limits,
// never a stack overflow or a blow-up. In process where the front end must stop it; through the ekb
// binary where a crash would kill the test, and for the commands a model runs (check, fmt, interp,
// compile, run).
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sys/wait.h>

#include "command_util.h"
#include "cpu_test_util.h"
#include "ir/limits.h"
#include "lower/lower.h"
#include "schedule/default_schedule.h"

namespace ekb::test {
namespace {

namespace fs = std::filesystem;

const std::string kHead =
    "kernel deep\n  category elementwise\n  domain general\n  dim N = 8\n  in X : f32[N]\n  in I : i32[N] ~ int(0, 7)\n"
    "  out Y : f32[N]\n";
constexpr int kStageLine = 8;  // the line after kHead

std::string repeat(const std::string& s, int n) {
  std::string out;
  out.reserve(s.size() * n);
  for (int k = 0; k < n; ++k) out += s;
  return out;
}

// The rendered errors of `text`, which must not check; the first error must contain `needle`.
std::string first_error(const std::string& text, const std::string& needle, size_t max_errors = 3) {
  auto start = std::chrono::steady_clock::now();
  Checked c = check_text(text, "deep.ekb");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 5.0) << "checking took too long";
  EXPECT_FALSE(c.program);
  std::string r = c.rendered();
  EXPECT_GE(c.diags.error_count(), 1u);
  EXPECT_LE(c.diags.error_count(), max_errors) << r.substr(0, 4000);
  for (const auto& d : c.diags.items()) {
    if (d.severity != Severity::error) continue;
    EXPECT_NE(render(d).find(needle), std::string::npos) << "the first error is not the expected one:\n" << render(d);
    EXPECT_TRUE(d.loc.valid()) << render(d);
    EXPECT_FALSE(d.fix.empty()) << render(d);
    break;
  }
  EXPECT_LT(r.size(), 8000u) << "a long line must be quoted in part";
  return r;
}

// ---------------------------------------------------------------- the parser stops deep text

TEST(DeepExpression, EveryDeepShapeIsALocatedParseError) {
  const std::string chain = "expression nested more than 64 levels deep: a chain `a + b + c ...` nests one level per `+`";
  const std::string deep = "expression nested more than 64 levels deep";
  const std::string parens = "parentheses nested more than 64 levels deep";
  const int n = 100000;
  struct Shape {
    const char* name;
    std::string text;
    const std::string& needle;
  } shapes[] = {
      {"a sum of 300,000 terms on one line", kHead + "  Y[i] = X[i]" + repeat(" + X[i]", 300000) + "\n", chain},
      {"a sum continued over 300,000 lines", kHead + "  Y[i] = X[i]" + repeat(" +\n    X[i]", 300000) + "\n", chain},
      {"a product chain", kHead + "  Y[i] = X[i]" + repeat(" * X[i]", n) + "\n", deep},
      {"a chain of &&", kHead + "  Y[i] = select(X[i] > 0.0" + repeat(" && X[i] > 0.0", n) + ", 1.0, 0.0)\n", deep},
      {"nested parentheses", kHead + "  Y[i] = " + repeat("(", n) + "X[i]" + repeat(")", n) + "\n", parens},
      {"prefix minus", kHead + "  Y[i] = " + repeat("- ", n) + "X[i]\n", deep},
      {"prefix not", kHead + "  Y[i] = select(" + repeat("!", n) + "(X[i] > 0.0), 1.0, 0.0)\n", deep},
      {"prefix complement", kHead + "  Y[i] = f32(" + repeat("~", n) + "I[i])\n", deep},
      {"nested calls", kHead + "  Y[i] = " + repeat("exp(", n) + "X[i]" + repeat(")", n) + "\n", deep},
      {"nested max calls", kHead + "  Y[i] = " + repeat("max(", n) + "X[i]" + repeat(", 0.0)", n) + "\n", deep},
      {"nested selects", kHead + "  Y[i] = " + repeat("select(X[i] > 0.0, ", n) + "X[i]" + repeat(", 0.0)", n) + "\n", deep},
      {"nested reductions", kHead + "  Y[i] = " + repeat("sum(k < 2) ", n) + "X[i]\n", deep},
      {"a long index", kHead + "  Y[i] = X[i" + repeat(" + 0", 300000) + "]\n", chain},
      {"nested reads", kHead + "  Y[i] = X[" + repeat("I[", n) + "i" + repeat("]", n) + "]\n", deep},
      {"a long reduction extent", kHead + "  Y[i] = sum(k < 1" + repeat(" + 1", 300000) + ") X[i]\n", chain},
      {"a long stage extent", kHead + "  P[h < 8" + repeat(" + 0", 300000) + "] = 1.0\n  Y[i] = X[i]\n", chain},
      {"a long const", kHead + "  const c = 1.0" + repeat(" + 1.0", 300000) + "\n  Y[i] = X[i] * c\n", chain},
      {"nested distribution arguments",
       "kernel deep\n  category elementwise\n  domain general\n  in X : f32[8] ~ uniform(" + repeat("(", n) + "0" +
           repeat(")", n) + ", 1)\n  out Y : f32[8]\n  Y[i] = X[i]\n",
       parens},
  };
  for (const auto& s : shapes) {
    SCOPED_TRACE(s.name);
    first_error(s.text, s.needle);
  }
  // Where the statement itself defines a name, its later uses fail too, but only a few errors follow.
  first_error("kernel deep\n  dim N = 1" + repeat(" + 1", 300000) + "\n  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = X[i]\n", chain, 4);
  first_error("kernel deep\n  in X : f32[1" + repeat(" + 1", 300000) + "]\n  out Y : f32[1]\n  Y[i] = X[0]\n", chain, 4);
  first_error(kHead + "  Y[i] = X[i]\n\nworkloads\n  w1: N = 1" + repeat(" + 1", 300000) + "\n", chain);
}

TEST(DeepExpression, TheErrorPointsAtTheOperatorPastTheLimit) {
  // `X[i]` is two levels (the read and its index); each `+` adds one: the 63rd is level 65.
  std::string r = first_error(kHead + "  Y[i] = X[i]" + repeat(" + 1.0", 100) + "\n", "nested more than 64");
  int col = static_cast<int>(std::string("  Y[i] = X[i]").size() + 62 * std::string(" + 1.0").size() + 2);
  EXPECT_NE(r.find(fmt::format("deep.ekb:{}:{}: error:", kStageLine, col)), std::string::npos) << r;
  EXPECT_NE(r.find("fix: write the terms as a reduction over an index, e.g. `sum(k) X[i, k]`"), std::string::npos) << r;
  // Spread over lines (a trailing `+` continues the statement), the line is the 63rd operator's.
  r = first_error(kHead + "  Y[i] = X[i]" + repeat(" +\n    1.0", 100) + "\n", "nested more than 64");
  EXPECT_NE(r.find(fmt::format("deep.ekb:{}:", kStageLine + 62)), std::string::npos) << r;
}

TEST(DeepExpression, LongLinesAreQuotedAroundTheCaret) {
  std::string r = first_error(kHead + "  Y[i] = X[i]" + repeat(" + X[i]", 300000) + "\n", "nested more than 64");
  // The quoted line is a window with `...` on both sides, and the caret stands under the 63rd `+`.
  size_t quote = r.find(fmt::format("{:>5} | ...", kStageLine));
  ASSERT_NE(quote, std::string::npos) << r;
  size_t line_end = r.find('\n', quote);
  std::string line = r.substr(quote, line_end - quote);
  EXPECT_LT(line.size(), 200u);
  EXPECT_EQ(line.substr(line.size() - 3), "...");
  size_t caret_line = line_end + 1;
  size_t caret = r.find('^', caret_line);
  ASSERT_NE(caret, std::string::npos);
  EXPECT_EQ(line[caret - caret_line], '+') << line << "\n" << r.substr(caret_line, caret - caret_line + 1);
}

TEST(DeepExpression, LaterStatementsAreStillParsed) {
  Checked c = check_text(kHead + "  T[i] = X[i]" + repeat(" + X[i]", 1000) + "\n  Y[i] = X[i] 2.0\n", "deep.ekb");
  EXPECT_FALSE(c.program);
  EXPECT_NE(c.rendered().find("nested more than 64 levels deep"), std::string::npos) << c.rendered();
  EXPECT_NE(c.rendered().find("deep.ekb:9:15: error: unexpected the number `2.0`"), std::string::npos) << c.rendered();
  EXPECT_EQ(c.diags.error_count(), 2u) << c.rendered();
}

// ---------------------------------------------------------------- at the limit, everything works

struct AtTheLimit {
  const char* name;
  std::string ok, too_deep;             // 64 levels, and one more ("": not tested)
  std::function<double(double)> value;  // Y[i] from X[i]
};

std::vector<AtTheLimit> at_the_limit() {
  // X[i] is 2 levels; 62 operators, calls or prefix operators over it make 64.
  return {
      {"a chain", "X[i]" + repeat(" + 1.0", 62), "X[i]" + repeat(" + 1.0", 63), [](double x) { return x + 62; }},
      {"calls", repeat("abs(", 62) + "X[i]" + repeat(")", 62), repeat("abs(", 63) + "X[i]" + repeat(")", 63),
       [](double x) { return std::abs(x); }},
      {"prefix operators", repeat("-", 62) + "X[i]", repeat("-", 63) + "X[i]", [](double x) { return x; }},
      {"right-nested sums", repeat("(1.0 + ", 62) + "X[i]" + repeat(")", 62), repeat("(1.0 + ", 63) + "X[i]" + repeat(")", 63),
       [](double x) { return x + 62; }},
      {"parentheses", repeat("(", 64) + "X[i] * 2.0" + repeat(")", 64), repeat("(", 65) + "X[i] * 2.0" + repeat(")", 65),
       [](double x) { return 2 * x; }},
  };
}

TEST(DeepExpression, SixtyFourLevelsCheckPrintRunAndCompileSixtyFiveDoNot) {
  for (const auto& c : at_the_limit()) {
    SCOPED_TRACE(c.name);
    std::string text = kHead + "  Y[i] = " + c.ok + "\n";
    auto p = valid(text);
    ASSERT_TRUE(p);
    // The canonical text parses again (it nests no deeper than what was read) and prints the same.
    DiagnosticList d;
    std::string printed = print_module(parse_module(std::make_shared<SourceFile>("x", text), d));
    DiagnosticList d2;
    Module again = parse_module(std::make_shared<SourceFile>("y", printed), d2);
    EXPECT_FALSE(d2.has_errors()) << d2.render_all();
    EXPECT_EQ(print_module(again), printed);
    // The reference computes it, and the compiled kernel agrees.
    ReferenceResult ref = reference_outputs(*p, 1);
    for (size_t k = 0; k < ref.outputs[0].f.size(); ++k) EXPECT_NEAR(ref.outputs[0].f[k], c.value(ref.inputs[0].f[k]), 1e-9) << k;
    CpuCheck run = check_on_cpu(*p, "default");
    EXPECT_TRUE(run.pass) << run.report;
    first_error(kHead + "  Y[i] = " + c.too_deep + "\n", "nested more than 64 levels deep");
  }
}

// ---------------------------------------------------------------- loop nests

TEST(DeepExpression, DimensionsIndexVariablesAndLoopsAreLimited) {
  first_error("kernel deep\n  in X : f32[" + repeat("1, ", 16) + "1]\n  out Y : f32[1]\n  Y[i] = 1.0\n",
              "`X` has 17 dimensions, more than 16");
  first_error("kernel deep\n  in X : f32[" + repeat("1, ", 100000) + "1]\n  out Y : f32[1]\n  Y[i] = 1.0\n",
              "`X` has 100001 dimensions, more than 16");
  std::string vars;
  for (int k = 0; k < 17; ++k) vars += fmt::format("{}v{}", k ? ", " : "", k);
  first_error("kernel deep\n  out Y : f32[1]\n  T[" + vars + "] = 1.0\n  Y[i] = 1.0\n", "`T` has 17 index variables, more than 16");
  std::string rvars;
  for (int k = 0; k < 100000; ++k) rvars += fmt::format("{}k{} < 1", k ? ", " : "", k);
  first_error(kHead + "  Y[i] = sum(" + rvars + ") X[i]\n", "`Y` has 100001 index variables (with its reductions'), more than 32");
  // A schedule that splits a loop into more than 64 loops.
  std::string splits = "split i 1 -> a0 b0";
  for (int k = 1; k < 70; ++k) splits += fmt::format("; split b{} 1 -> a{} b{}", k - 1, k, k);
  first_error(kHead + "  Y[i] = X[i]\n\nschedule cpu\n  Y: " + splits + "\n", "`Y` now has 65 loops, more than 64");
  std::string churn = "split i 2 -> a b";
  for (int k = 0; k < 40; ++k) churn += fmt::format("; fuse a b -> f{}; split f{} 2 -> a b", k, k);
  first_error(kHead + "  Y[i] = X[i]\n\nschedule cpu\n  Y: " + churn + "\n", "`Y`'s loops are now split or fused 65 times");
}

// `n` stages, each `S{k}[i] = step` with `{p}` read as `S{k-1}[i]`, and Y = `out` of the last.
std::string stage_chain(int n, const std::string& first, const std::string& step, const std::string& head = kHead,
                        const std::string& out = "{p}") {
  auto with = [](const std::string& f, int k) { return fmt::format(fmt::runtime(f), fmt::arg("p", fmt::format("S{}[i]", k))); };
  std::string t = head + "  S0[i] = " + first + "\n";
  for (int k = 1; k < n; ++k) t += fmt::format("  S{}[i] = {}\n", k, with(step, k - 1));
  return t + "  Y[i] = " + with(out, n - 1) + "\n";
}

TEST(DeepExpression, ComputeAtChainsDeeperThanTheLimitAreAnError) {
  std::string t = stage_chain(70, "X[i] + 1.0", "{p} + 1.0") + "\nmemory cpu\n";
  for (int k = 0; k < 69; ++k) t += fmt::format("  S{}: compute_at S{} i\n", k, k + 1);
  t += "  S69: compute_at Y i\n";
  first_error(t, "would run inside more than 64 nested loops (its own and those of the stages it is computed inside)", 1);
}

// ---------------------------------------------------------------- inlining

TEST(DeepExpression, InliningRefusesReadersThatWouldNestTooDeep) {
  std::string t = stage_chain(200, "X[i] + 1.0", "{p} + 1.0") + "\nmemory cpu\n";
  for (int k = 0; k < 200; ++k) t += fmt::format("  S{}: inline\n", k);
  // `S94[i] = S93[i] + 1.0` lowers to 3 levels; each inlined stage adds one.
  std::string r = first_error(t, "`S93` cannot be inlined: the expression of `S94` would nest 97 levels deep once lowered, more than 96", 3);
  EXPECT_NE(r.find(fmt::format("deep.ekb:{}:", kStageLine + 200 + 3 + 93)), std::string::npos) << r.substr(0, 600);
  // A stage read twice doubles its reader at each inline: refused before it is built.
  std::string twice = stage_chain(40, "X[i] + 1.0", "{p} * {p}") + "\nmemory cpu\n";
  for (int k = 0; k < 40; ++k) twice += fmt::format("  S{}: inline\n", k);
  first_error(twice, "would hold more than 512 operations", 8);
}

// The deepest expression, loop nest and statement nest (loops, allocations, lets, ifs) of a
// lowered kernel.
struct Nesting {
  int expr = 0, loops = 0, stmts = 0;
};
int expr_depth(const lir::ExprP& e) {
  if (!e) return 0;
  int d = 0;
  for (const auto& a : e->args) d = std::max(d, expr_depth(a));
  return d + 1;
}
void nesting(const lir::StmtP& s, int loops, int stmts, Nesting& out) {
  if (!s) return;
  if (s->kind == lir::SK::for_) out.loops = std::max(out.loops, ++loops);
  if (s->kind != lir::SK::block) out.stmts = std::max(out.stmts, ++stmts);
  for (const auto& e : {s->min, s->extent, s->value}) out.expr = std::max(out.expr, expr_depth(e));
  for (const auto& i : s->indices) out.expr = std::max(out.expr, expr_depth(i));
  for (const auto& b : s->body) nesting(b, loops, stmts, out);
}
Nesting nesting(const lir::StmtP& s) {
  Nesting n;
  nesting(s, 0, 0, n);
  return n;
}

// The deepest nesting of `open`/`close` in a C text.
int bracket_depth(const std::string& c, char open, char close) {
  int d = 0, deepest = 0;
  for (char ch : c) {
    if (ch == open) deepest = std::max(deepest, ++d);
    if (ch == close) --d;
  }
  return deepest;
}

TEST(DeepExpression, TheDefaultScheduleStopsInliningAtTheLimit) {
  struct Case {
    const char* name;
    std::string text;
  } cases[] = {
      {"a chain of 1000 stages", stage_chain(1000, "X[i] + 1.0", "{p} + 1.0")},
      {"a chain of selects", stage_chain(120, "X[i]", "select(X[i] > 0.5, {p} * 0.5, 1.0)")},
      {"integer arithmetic", stage_chain(200, "I[i] + 1", "{p} * 3 + I[i]", kHead, "f32({p})")},
      {"stages read twice", stage_chain(60, "X[i] + 1.0", "{p} * {p} - {p}")},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto p = valid(c.text);
    ASSERT_TRUE(p);
    std::string sched = default_schedule_text(*p, default_target(Backend::cpu));
    size_t inlines = 0;
    for (size_t at = 0; (at = sched.find(": inline", at)) != std::string::npos; ++at) ++inlines;
    EXPECT_GT(inlines, 0u);
    EXPECT_LT(inlines, p->stages.size() - 1) << "every stage was inlined";
    lower::LoweredKernel k = lower_with(*p, default_target(Backend::cpu), choose_schedule(*p, default_target(Backend::cpu), "default"));
    EXPECT_LE(nesting(k.body).expr, kMaxLoweredDepth + 4);  // + the store's conversion and loop-variable offsets
    CpuCheck run = check_on_cpu(*p, "default");
    EXPECT_TRUE(run.pass) << run.report;
    // C compilers accept 256 nested parentheses (clang's default, also PoCL's).
    EXPECT_LT(bracket_depth(run.c_source, '(', ')'), 256);
    lower::LoweredKernel gpu = lower_with(*p, default_target(Backend::opencl), choose_schedule(*p, default_target(Backend::opencl), "default"));
    EXPECT_LT(bracket_depth(codegen::print_for_backend(gpu), '(', ')'), 256);
  }
}

TEST(DeepExpression, FusedReductionChainsStayShallow) {
  // Each stage reduces and is read at its own point by the next: the default schedule computes it
  // inside the loop of the chain's last reader, every stage beside the others there (not each inside
  // the next, which would nest a long chain past the loop limit).
  std::string head = "kernel deep\n  category reduction\n  domain general\n  dim N = 64\n  in X : f32[N]\n  out Y : f32[N]\n";
  auto p = valid(stage_chain(120, "sum(k < 2) X[i] * X[k]", "sum(k < 2) ({p} + X[k]) * 0.5", head));
  ASSERT_TRUE(p);
  std::string sched = default_schedule_text(*p, default_target(Backend::cpu));
  size_t fused = 0;
  for (size_t at = 0; (at = sched.find(": compute_at", at)) != std::string::npos; ++at) ++fused;
  EXPECT_GT(fused, 60u) << sched;
  size_t beside = 0;
  for (size_t at = 0; (at = sched.find(": compute_at Y i", at)) != std::string::npos; ++at) ++beside;
  EXPECT_EQ(beside, fused) << "every fused stage is computed in the last reader's loop, beside the others: " << sched;
  lower::LoweredKernel k = lower_with(*p, default_target(Backend::cpu), choose_schedule(*p, default_target(Backend::cpu), "default"));
  Nesting n = nesting(k.body);
  EXPECT_LE(n.loops, kMaxLoops);
  EXPECT_LE(n.stmts, 2 * kMaxLoops);
  CpuCheck run = check_on_cpu(*p, "default");
  EXPECT_TRUE(run.pass) << run.report;
}

// ---------------------------------------------------------------- the ekb command

using Result = CommandResult;

// Runs the ekb binary; a crash shows as a status above 128 (the shell's 128 + signal).
Result ekb(const std::string& args) { return run_command(std::string(EKB_BINARY) + " " + args + " 2>&1"); }

class DeepExpressionCli : public ::testing::Test {
 protected:
  fs::path dir;
  void SetUp() override {
    dir = fs::temp_directory_path() / ("ekb-deep-" + std::to_string(::getpid()) + "-" +
                                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
};

TEST_F(DeepExpressionCli, EveryCommandReportsDeepTextAndExitsOne) {
  std::string files[] = {
      write("sum.ekb", kHead + "  Y[i] = X[i]" + repeat(" + X[i]", 300000) + "\n"),
      write("parens.ekb", kHead + "  Y[i] = " + repeat("(", 100000) + "X[i]" + repeat(")", 100000) + "\n"),
      write("calls.ekb", kHead + "  Y[i] = " + repeat("exp(", 100000) + "X[i]" + repeat(")", 100000) + "\n"),
  };
  for (const auto& f : files)
    for (const char* cmd : {"check", "fmt", "interp", "compile --emit c", "run"}) {
      SCOPED_TRACE(f + ": ekb " + cmd);
      Result r = ekb(fmt::format("{} {}", cmd, f));
      EXPECT_EQ(r.status, 1) << r.out.substr(0, 2000);
      EXPECT_NE(r.out.find(fmt::format("{}:{}:", f, kStageLine)), std::string::npos) << r.out.substr(0, 2000);
      EXPECT_NE(r.out.find("nested more than 64 levels deep"), std::string::npos) << r.out.substr(0, 2000);
      EXPECT_LT(r.out.size(), 4000u);
    }
}

TEST_F(DeepExpressionCli, ThousandsOfStagesCheckFormatInterpretAndCompile) {
  // Elementwise stages (inlined in runs of at most 96 lowered levels), and reductions (each at the
  // root, one buffer each: the C declares them in one block, not one block per buffer).
  std::string chain = write("chain.ekb", stage_chain(2000, "X[i] + 1.0", "{p} * 0.5 + 1.0"));
  std::string reductions = write("reductions.ekb", stage_chain(1000, "sum(k < 2) X[i] * X[k]", "sum(k < 2) ({p} + X[k]) * 0.5"));
  for (const auto& f : {chain, reductions}) {
    SCOPED_TRACE(f);
    Result r = ekb("check " + f);
    EXPECT_EQ(r.status, 0) << r.out.substr(0, 2000);
    r = ekb("fmt " + f);
    EXPECT_EQ(r.status, 0) << r.out.substr(0, 2000);
    std::ifstream in(f);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(r.out, text) << "the file is canonical";
    r = ekb("interp " + f);
    EXPECT_EQ(r.status, 0) << r.out.substr(0, 2000);
    EXPECT_NE(r.out.find("Y"), std::string::npos) << r.out.substr(0, 2000);
    r = ekb("compile " + f + " --emit c");
    ASSERT_EQ(r.status, 0) << r.out.substr(0, 2000);
    EXPECT_LT(bracket_depth(r.out, '(', ')'), 256);
    EXPECT_LT(bracket_depth(r.out, '{', '}'), 64);
  }
}

TEST_F(DeepExpressionCli, HundredsOfRootStagesRunAndMatchTheReference) {
  // More root buffers than C compilers accept nested blocks (256), compiled and run end to end.
  std::string f = write("reductions.ekb", stage_chain(260, "sum(k < 2) X[i] * X[k]", "sum(k < 2) ({p} + X[k]) * 0.5"));
  Result r = ekb("run " + f);
  EXPECT_EQ(r.status, 0) << r.out.substr(0, 3000);
  EXPECT_NE(r.out.find("PASS"), std::string::npos) << r.out.substr(0, 3000);
}

}  // namespace
}  // namespace ekb::test
