// Lowering behaviour that is not one primitive's: regions that cannot be bounded, nested parallel
// loops, and bounds inference sizing buffers to their tiles.
#include "cpu_test_util.h"
#include "lower/lower.h"

namespace ekb::test {
namespace {

std::string lower_error(const std::string& text) {
  auto p = valid(text);
  if (!p) return "invalid";
  try {
    lower::lower_kernel(*p, default_target(Backend::cpu));
  } catch (const DiagnosticError& e) {
    return e.what();
  }
  return "";
}

TEST(Lowering, ADataDependentRegionIsRejectedNotGuessed) {
  std::string r = lower_error(
      "kernel g\n  in T : f32[100, 8]\n  in I : i32[16] ~ int(0, 49)\n  out Y : f32[16, 8]\n  J[i] = I[i] * 2\n"
      "  Y[i, j] = T[J[i], j] * 2.0\n\nmemory cpu\n  Y: cache_read T local at i -> Tl\n");
  EXPECT_NE(r.find("t.ekb:9:6: error: the region of `Tl` read inside `Y`'s loop `i` cannot be bounded in dimension 0"),
            std::string::npos)
      << r;
  // Read through an input with a declared range, the region is bounded (the whole table) and runs.
  auto p = valid("kernel g\n  in T : f32[100, 8]\n  in I : i32[16] ~ int(0, 99)\n  out Y : f32[16, 8]\n  Y[i, j] = T[I[i], j] * 2.0\n");
  ASSERT_TRUE(p);
  EXPECT_TRUE(check_on_cpu(*p, "memory cpu\n  Y: cache_read T local at i -> Tl\n").pass);
}

TEST(Lowering, ComputeAtSizesTheBufferToTheTile) {
  auto p = valid("kernel mm\n  dim M = 100, N = 70, K = 30\n  in A : f32[M, K]\n  in B : f32[K, N]\n  out Y : f32[M, N]\n"
                 "  C[m, n] = sum(k) A[m, k] * B[k, n]\n  Y[m, n] = max(C[m, n], 0.0)\n");
  ASSERT_TRUE(p);
  std::string sched = "schedule cpu\n  Y: tile m n 32 32 -> mo no mi ni; parallel mo; vectorize ni 16\n"
                      "memory cpu\n  C: compute_at Y no\n";
  CpuCheck c = check_on_cpu(*p, sched);
  EXPECT_TRUE(c.pass) << c.report;
  EXPECT_NE(c.c_source.find("float b_C[1024]"), std::string::npos) << "C should hold one 32x32 tile";
}

TEST(Lowering, OnlyTheOutermostParallelLoopForks) {
  auto p = valid("kernel t\n  in X : f32[8, 8, 16]\n  out Y : f32[8, 8, 16]\n  Y[a, b, c] = X[a, b, c] * 2.0\n");
  ASSERT_TRUE(p);
  // A cache computed inside a parallel loop keeps no parallel loops of its own.
  CpuCheck c = check_on_cpu(*p, "schedule cpu\n  Y: parallel a\n  Yc: parallel a\nmemory cpu\n  Y: cache_write local at b -> Yc\n");
  EXPECT_TRUE(c.pass) << c.report;
  size_t first = c.c_source.find("#pragma omp parallel num_threads");
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(c.c_source.find("#pragma omp parallel num_threads", first + 1), std::string::npos) << c.c_source;
}

}  // namespace
}  // namespace ekb::test
