// Static bounds: interval arithmetic over index variables, narrowed by select / && / || guards.
#include "test_util.h"

namespace ekb::test {
namespace {

const std::string kHead = "kernel t\n  dim H = 8, W = 6\n  in X : f32[H, W]\n";

TEST(Bounds, UnguardedShiftIsAnErrorWithTheRange) {
  std::string r = expect_error(kHead + "  out Y : f32[H, W]\n  Y[h, w] = X[h + 1, w]\n",
                               "`X[h + 1, w]` can read index 8 of dimension 0 of `X`, which has size 8: `h + 1` ranges over 1..8");
  EXPECT_NE(r.find("fix: keep `h + 1` within 0..7"), std::string::npos) << r;
}

TEST(Bounds, GuardsOnVariablesAndOnWholeIndices) {
  valid(kHead + "  out Y : f32[H, W]\n  Y[h, w] = select(h + 1 < H, X[h + 1, w], 0.0)\n");
  valid(kHead + "  out Y : f32[H, W]\n  Y[h, w] = select(h >= 1 && w < W - 1, X[h - 1, w + 1], 0.0)\n");
  // The guard bounds the same affine form as the index (padding with stride).
  valid(kHead + "  out Y : f32[4, 3]\n  Y[o, p] = sum(k < 3) select(o * 2 + k - 1 >= 0 && o * 2 + k - 1 < H, "
                "X[o * 2 + k - 1, p * 2], 0.0)\n");
  // The else branch knows the negation (concatenation).
  valid("kernel t\n  in A : f32[3]\n  in B : f32[5]\n  out Y : f32[8]\n  Y[i] = select(i < 3, A[i], B[i - 3])\n");
  // || guards its right side with the negation of its left.
  valid(kHead + "  out Y : bool[H]\n  Y[h] = h == 0 || X[h - 1, 0] > 0\n");
  // A guard that does not cover the read is still an error.
  expect_error(kHead + "  out Y : f32[H, W]\n  Y[h, w] = select(h >= 1, X[h - 1, w + 1], 0.0)\n", "can read index 6 of dimension 1");
}

TEST(Bounds, ClampingAndModulo) {
  valid(kHead + "  out Y : f32[H, W]\n  Y[h, w] = X[min(h + 1, H - 1), max(w - 1, 0)]\n");
  valid(kHead + "  out Y : f32[H, W]\n  Y[h, w] = X[(h + 3) % H, clamp(w - 2, 0, W - 1)]\n");
  valid(kHead + "  out Y : f32[16, W]\n  Y[h, w] = X[h / 2, w]\n");
  expect_error(kHead + "  out Y : f32[17, W]\n  Y[h, w] = X[h / 2, w]\n", "can read index 8");
}

TEST(Bounds, GuardsOnWholeNonLinearIndices) {
  // The guard bounds exactly the index, even when it divides or reads data (found by the ONNX cases).
  valid("kernel t\n  in X : f32[3]\n  out Y : f32[7]\n  Y[o] = select(o / 2 < 3, X[o / 2], 0.0)\n");
  valid("kernel t\n  in L : i64[4] ~ int(1, 4)\n  in X : f32[4, 4]\n  out Y : f32[4, 4]\n"
        "  Y[b, t] = select(L[b] - 1 - t >= 0, X[b, L[b] - 1 - t], X[b, t])\n");
  // A guard on a different expression does not count.
  expect_error("kernel t\n  in X : f32[3]\n  out Y : f32[7]\n  Y[o] = select(o / 3 < 3, X[o / 2], 0.0)\n", "can read index 3");
}

TEST(Bounds, DataDependentIndicesUseTheDeclaredRange) {
  valid(kHead + "  in I : i32[4] ~ int(0, 7)\n  out Y : f32[4]\n  Y[n] = X[I[n], 0]\n");
  expect_error(kHead + "  in I : i32[4] ~ int(0, 8)\n  out Y : f32[4]\n  Y[n] = X[I[n], 0]\n", "can read index 8");
}

TEST(Bounds, WhatCannotBeProvedIsCheckedAtRunTime) {
  // The index comes from a computed stage: no static verdict, the interpreter checks each read.
  auto p = valid(kHead + "  in I : i32[4] ~ int(0, 7)\n  out Y : f32[4]\n  J[n] = I[n] * 2\n  Y[n] = X[J[n], 0]\n");
  ASSERT_TRUE(p);
  try {
    run(*p, 1);
    FAIL() << "expected a run-time bounds error";
  } catch (const DiagnosticError& e) {
    std::string r = e.what();
    EXPECT_NE(r.find("t.ekb:7:10: error: while evaluating: `X[J[n], 0]` read index"), std::string::npos) << r;
  }
}

TEST(Bounds, DeadBranchesAreNotChecked) {
  valid(kHead + "  out Y : f32[H]\n  Y[h] = select(h < 0, X[h - 100, 0], 1.0) + X[h, 0]\n");
}

}  // namespace
}  // namespace ekb::test
