// Parser: statements, continuation lines, comments, reductions, error locations and recovery.
#include <fmt/format.h>

#include "test_util.h"

namespace ekb::test {
namespace {

Module parse(const std::string& text, DiagnosticList& d) {
  return parse_module(std::make_shared<SourceFile>("p.ekb", text), d);
}

TEST(Parser, ParsesAllKernelStatements) {
  DiagnosticList d;
  Module m = parse(
      "kernel k\n  pattern pat\n  category gemm\n  domain vision\n  dim M = 4, N = 2 * M\n  const eps = 1e-5\n"
      "  in A : f32[M, N] ~ normal(0, 1)\n  out Y : f32[M]\n  Y[m] = sum(n) A[m, n] + eps\n",
      d);
  ASSERT_FALSE(d.has_errors()) << d.render_all();
  ASSERT_TRUE(m.kernel);
  EXPECT_EQ(m.kernel->name, "k");
  ASSERT_EQ(m.kernel->stmts.size(), 8u);
  const auto& dims = std::get<DimStmt>(m.kernel->stmts[3].node);
  EXPECT_EQ(dims.defs.size(), 2u);
  const auto& in = std::get<TensorStmt>(m.kernel->stmts[5].node);
  EXPECT_FALSE(in.is_output);
  ASSERT_TRUE(in.dist);
  EXPECT_EQ(in.dist->kind, "normal");
  const auto& st = std::get<StageStmt>(m.kernel->stmts[7].node);
  EXPECT_EQ(st.rhs->kind, ExprKind::reduce);  // the body extends to the end: sum(n) (A[m, n] + eps)
  EXPECT_EQ(st.rhs->args[0]->kind, ExprKind::binary);
}

TEST(Parser, ContinuesLinesInsideBracketsAndAfterOperators) {
  DiagnosticList d;
  Module m = parse("kernel k\n  dim N = 4\n  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = X[i] +\n    select(i > 0,\n"
                   "      X[i], 1.0)\n",
                   d);
  ASSERT_FALSE(d.has_errors()) << d.render_all();
  EXPECT_EQ(m.kernel->stmts.size(), 4u);
}

TEST(Parser, MaxWithOperandAfterIsAReduction) {
  DiagnosticList d;
  Module m = parse("kernel k\n  Y[i] = max(j) X[i, j]\n  Z[i] = max(X[i, 0], X[i, 1])\n  W[i] = max(j, k) - X[j]\n", d);
  ASSERT_FALSE(d.has_errors()) << d.render_all();
  EXPECT_EQ(std::get<StageStmt>(m.kernel->stmts[0].node).rhs->kind, ExprKind::reduce);
  EXPECT_EQ(std::get<StageStmt>(m.kernel->stmts[1].node).rhs->kind, ExprKind::call);
  // max(j, k) - X[j]: the binary function minus a read (not a reduction over j, k).
  EXPECT_EQ(std::get<StageStmt>(m.kernel->stmts[2].node).rhs->kind, ExprKind::binary);
}

TEST(Parser, ReportsEveryBadLineAndRecovers) {
  DiagnosticList d;
  Module m = parse("kernel k\n  dim N = \n  in X : f32[N]\n  out Y f32[N]\n  Y[i] = X[i] * 2.0\n", d);
  EXPECT_EQ(d.error_count(), 2u) << d.render_all();
  std::string r = d.render_all();
  EXPECT_NE(r.find("p.ekb:2:11: error: expected an expression"), std::string::npos) << r;  // the missing value
  EXPECT_NE(r.find("p.ekb:4:9:"), std::string::npos) << r;   // the missing `:`
  EXPECT_NE(r.find("fix:"), std::string::npos) << r;
  // The good statements survive.
  ASSERT_TRUE(m.kernel);
  EXPECT_EQ(m.kernel->stmts.size(), 2u);
}

TEST(Parser, CaretPointsAtTheOffendingToken) {
  DiagnosticList d;
  parse("kernel k\n  Y[i] = X[i] $ 2\n", d);
  std::string r = d.render_all();
  EXPECT_NE(r.find("p.ekb:2:15: error: unexpected character `$`"), std::string::npos) << r;
  EXPECT_NE(r.find("    2 |   Y[i] = X[i] $ 2\n      |               ^\n"), std::string::npos) << r;
}

TEST(Parser, RejectsChainedComparisons) {
  DiagnosticList d;
  parse("kernel k\n  Y[i] = select(0 < i < 3, 1.0, 0.0)\n", d);
  EXPECT_NE(d.render_all().find("comparisons cannot be chained"), std::string::npos) << d.render_all();
}

TEST(Parser, DeepNestingIsAnErrorNotACrash) {
  std::string e(5000, '(');
  e += "1";
  e += std::string(5000, ')');
  DiagnosticList d;
  parse("kernel k\n  Y = " + e + "\n", d);
  EXPECT_NE(d.render_all().find("nested more than"), std::string::npos);
  DiagnosticList d2;
  parse("kernel k\n  Y = " + std::string(100000, '-') + "1\n", d2);
  EXPECT_NE(d2.render_all().find("nested more than"), std::string::npos);
}

TEST(Parser, ALongOperatorChainIsTooDeep) {
  // `a + b + c` is `(a + b) + c`: a tree one level deeper per operator, however flat it is written.
  std::string sum = "1";
  for (int k = 0; k < 100000; ++k) sum += " + 1";
  DiagnosticList d;
  Module m = parse("kernel k\n  Y = " + sum + "\n  Z = 2\n", d);
  std::string r = d.render_all();
  EXPECT_EQ(d.error_count(), 1u) << r.substr(0, 2000);
  // The 64th `+` would make the 65th level: `1` is level 1, each `+` one more.
  EXPECT_NE(r.find(fmt::format("p.ekb:2:{}: error: expression nested more than 64 levels deep", 7 + 64 * 4 - 2)),
            std::string::npos)
      << r.substr(0, 2000);
  ASSERT_TRUE(m.kernel);
  EXPECT_EQ(m.kernel->stmts.size(), 1u) << "the next statement is still parsed";
  DiagnosticList ok;
  parse("kernel k\n  Y = " + sum.substr(0, 1 + 63 * 4) + "\n", ok);
  EXPECT_FALSE(ok.has_errors()) << ok.render_all();
}

TEST(Parser, SectionsAndWorkloads) {
  DiagnosticList d;
  Module m = parse("kernel k\n  out Y : f32[4]\n  Y[i] = 1.0\nschedule cuda\n  Y: split i 2 pad -> a b; bind a block.x\n"
                   "memory cuda\n  Y: cache_write local\nworkloads\n  w1: N = 4, domain = audio\n",
                   d);
  ASSERT_FALSE(d.has_errors()) << d.render_all();
  ASSERT_EQ(m.sections.size(), 2u);
  EXPECT_EQ(m.sections[0].backend, "cuda");
  const auto& dirs = m.sections[0].lines[0].directives;
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[0].args.size(), 3u);
  EXPECT_EQ(dirs[0].outs.size(), 2u);
  EXPECT_EQ(dirs[1].args[1].text, "block.x");
  ASSERT_TRUE(m.workloads);
  EXPECT_EQ(m.workloads->items[0].items[1].word, "audio");
}

TEST(Parser, TwoKernelsInOneFileIsAnError) {
  DiagnosticList d;
  parse("kernel a\n  out Y : f32[1]\nkernel b\n", d);
  EXPECT_NE(d.render_all().find("a second `kernel`"), std::string::npos);
}

}  // namespace
}  // namespace ekb::test
