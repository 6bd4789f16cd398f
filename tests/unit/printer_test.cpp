// The canonical printer: minimal parentheses that keep meaning, comments kept, and a fixed point.
#include <random>

#include "test_util.h"

namespace ekb::test {
namespace {

std::string fmt_text(const std::string& text) {
  DiagnosticList d;
  Module m = parse_module(std::make_shared<SourceFile>("f.ekb", text), d);
  EXPECT_FALSE(d.has_errors()) << d.render_all();
  return print_module(m);
}

std::string expr_of(const std::string& e) {
  std::string out = fmt_text("kernel k\n  Y = " + e + "\n");
  size_t p = out.find("Y = ");
  return out.substr(p + 4, out.size() - p - 5);
}

TEST(Printer, KeepsOnlyNeededParentheses) {
  EXPECT_EQ(expr_of("(a + b) * c"), "(a + b) * c");
  EXPECT_EQ(expr_of("a + (b * c)"), "a + b * c");
  EXPECT_EQ(expr_of("a - (b - c)"), "a - (b - c)");
  EXPECT_EQ(expr_of("(a - b) - c"), "a - b - c");
  EXPECT_EQ(expr_of("-(a + b)"), "-(a + b)");
  EXPECT_EQ(expr_of("(a < b) == (c < d)"), "a < b == c < d");
  EXPECT_EQ(expr_of("(a < b) < c"), "(a < b) < c");  // comparisons do not chain
  EXPECT_EQ(expr_of("a * (sum(k) X[k]) + 1"), "a * (sum(k) X[k]) + 1");
  EXPECT_EQ(expr_of("(sum(k) X[k] * 2)"), "sum(k) X[k] * 2");
  EXPECT_EQ(expr_of("exp( sum(k<3) X[k] )"), "exp(sum(k < 3) X[k])");
  EXPECT_EQ(expr_of("sum(k < N+1) X[k]"), "sum(k < N + 1) X[k]");
}

TEST(Printer, KeepsCommentsAndBlankLines) {
  std::string text =
      "# header\nkernel k  # the kernel\n  dim N = 4\n\n  # inputs\n  in X : f32[N]\n  out Y : f32[N]\n"
      "  Y[i] = X[i] +  # continued\n    1.0\n# trailing\n";
  std::string out = fmt_text(text);
  EXPECT_EQ(out,
            "# header\nkernel k  # the kernel\n  dim N = 4\n\n  # inputs\n  in X : f32[N]\n  out Y : f32[N]\n"
            "  # continued\n  Y[i] = X[i] + 1.0\n\n# trailing\n");
  EXPECT_EQ(fmt_text(out), out);
}

TEST(Printer, FixedPointOnDocsStyleFile) {
  std::string text =
      "kernel   k\n pattern p\n category gemm\ndomain vision\n dim M=4,N=4\n in A:f32[M,N]~normal( 0,1 )\n out Y:f32[M]\n"
      " Y[m]=max(n)A[m,n]*2\nschedule cpu\n Y : split m 2->mo mi;parallel mo\nmemory cpu\n Y:cache_write local at mo\n"
      "workloads\n w:M=8,domain=audio\n";
  std::string once = fmt_text(text);
  EXPECT_EQ(fmt_text(once), once);
  EXPECT_NE(once.find("  Y: split m 2 -> mo mi; parallel mo\n"), std::string::npos) << once;
  EXPECT_NE(once.find("  w: M = 8, domain = audio\n"), std::string::npos) << once;
}

// Random expression trees: printing then parsing must give back the same tree (same printed text
// with all parentheses made explicit).
std::string random_expr(std::mt19937& rng, int depth) {
  const char* leaves[] = {"a", "b", "2", "0.5", "X[i]", "true"};
  if (depth == 0 || rng() % 4 == 0) return leaves[rng() % 6];
  const char* bin[] = {"+", "-", "*", "/", "%", "<", "==", "&&", "||", "&", "|", "^", "<<", ">>"};
  switch (rng() % 6) {
    case 0: return "-" + random_expr(rng, depth - 1);
    case 1: return "exp(" + random_expr(rng, depth - 1) + ")";
    case 2: return "(sum(k) " + random_expr(rng, depth - 1) + ")";
    case 3: return "select(" + random_expr(rng, depth - 1) + ", " + random_expr(rng, depth - 1) + ", " +
                   random_expr(rng, depth - 1) + ")";
    default: return "(" + random_expr(rng, depth - 1) + " " + bin[rng() % 14] + " " + random_expr(rng, depth - 1) + ")";
  }
}

std::string explicit_parens(const Expr& e) {
  std::string s = "{" + std::to_string(static_cast<int>(e.kind)) + ":" + e.text;
  if (e.kind == ExprKind::binary) s += "#" + std::to_string(static_cast<int>(e.binop));
  if (e.kind == ExprKind::unary) s += "#" + std::to_string(static_cast<int>(e.unop));
  for (const auto& a : e.args) s += explicit_parens(*a);
  return s + "}";
}

const Expr& stage_rhs(const Module& m) { return *std::get<StageStmt>(m.kernel->stmts[0].node).rhs; }

TEST(Printer, RandomTreesSurviveARoundTrip) {
  std::mt19937 rng(42);
  for (int n = 0; n < 2000; ++n) {
    std::string e = random_expr(rng, 5);
    DiagnosticList d1, d2;
    Module m1 = parse_module(std::make_shared<SourceFile>("a", "kernel k\n  Y = " + e + "\n"), d1);
    ASSERT_FALSE(d1.has_errors()) << e << "\n" << d1.render_all();
    std::string printed = print_module(m1);
    Module m2 = parse_module(std::make_shared<SourceFile>("b", printed), d2);
    ASSERT_FALSE(d2.has_errors()) << printed << "\n" << d2.render_all();
    ASSERT_EQ(explicit_parens(stage_rhs(m1)), explicit_parens(stage_rhs(m2))) << e << "\nprinted: " << printed;
    ASSERT_EQ(print_module(m2), printed);
  }
}

}  // namespace
}  // namespace ekb::test
