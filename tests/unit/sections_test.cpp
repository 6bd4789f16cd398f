// L1/L2 well-formedness: backends, one section each, known directives with arities, axes that exist.
#include "test_util.h"

namespace ekb::test {
namespace {

const std::string kMatmul =
    "kernel mm\n  dim M = 64, N = 64, K = 32\n  in A : f32[M, K]\n  in B : f32[K, N]\n  out Y : f32[M, N]\n"
    "  C[m, n] = sum(k) A[m, k] * B[k, n]\n  Y[m, n] = max(C[m, n], 0.0)\n";

TEST(Sections, AValidScheduleTracksNewAxes) {
  valid(kMatmul +
        "schedule cpu\n  C: tile m n 32 32 -> mo no mi ni; reorder mo no k mi ni; split k 8 -> ko ki; fuse mo no -> t\n"
        "  C: parallel t; vectorize ni 16; unroll ki\n  Y: split m 16 shift -> a b\n"
        "memory cpu\n  C: compute_at Y a; cache_read B local at ko -> Bl; pack A 1 16\n  Y: cache_write local at a -> Yl\n"
        "schedule cuda\n  Y: split m 16 -> bx tx; bind bx block.x; bind tx thread.x\n"
        "memory cuda\n  C: cache_read A shared at k -> As\n");
}

TEST(Sections, AxesCreatedByMemoryDirectivesCanBeScheduled) {
  valid(kMatmul + "schedule cpu\n  C: split k 8 -> ko ki\n  Cf: parallel ki\n  Bl: vectorize ax1\nmemory cpu\n"
                  "  C: rfactor ki -> Cf\n  Cf: cache_read B local -> Bl\n");
  expect_error(kMatmul + "schedule cpu\n  Bl: vectorize n\nmemory cpu\n  C: cache_read B local -> Bl\n",
               "the axes of `Bl` are now `ax0` and `ax1`");
}

TEST(Sections, NamesAndAritiesAreChecked) {
  expect_error(kMatmul + "schedule cpu\n  C: split q 8 -> a b\n", "`q` is not a loop axis of `C`");
  expect_error(kMatmul + "schedule cpu\n  C: split m 8 -> a\n", "write `split AXIS FACTOR [guard|pad|shift] -> OUTER INNER`");
  expect_error(kMatmul + "schedule cpu\n  C: split m 0 -> a b\n", "must be a positive integer");
  expect_error(kMatmul + "schedule cpu\n  C: split m 8 -> n b\n", "axis name `n` is already used");
  expect_error(kMatmul + "schedule cpu\n  C: split m 8 -> a b; split m 2 -> c d\n", "`m` is not a loop axis of `C`");
  expect_error(kMatmul + "schedule cpu\n  C: fuse m k -> f\n", "needs `m` directly outside `k`");
  expect_error(kMatmul + "schedule cpu\n  C: splt m 8 -> a b\n", "did you mean `split`?");
  expect_error(kMatmul + "schedule cpu\n  C: inline\n", "`inline` is a memory (L2) directive");
  expect_error(kMatmul + "schedule cpu\n  Q: parallel m\n", "unknown stage `Q`");
  expect_error(kMatmul + "schedule cpu\n  A: parallel m\n", "`A` is an input, not a stage");
  expect_error(kMatmul + "schedule cpu\n  C: split m 8 wrap -> a b\n", "unknown tail policy `wrap`");
  expect_error(kMatmul + "schedule cuda\n  C: bind m warp.x\n", "unknown bind target `warp.x`");
}

TEST(Sections, MemoryDirectives) {
  expect_error(kMatmul + "memory cpu\n  Y: inline\n", "`Y` is an output and must be stored");
  expect_error(kMatmul + "memory cpu\n  C: compute_at Y q\n", "`q` is not a loop axis of `Y`");
  expect_error(kMatmul + "memory cpu\n  C: compute_at C m\n", "cannot be placed inside its own loops");
  expect_error(kMatmul + "memory cpu\n  Y: cache_read A local\n", "`Y` does not read `A`");
  expect_error(kMatmul + "memory cpu\n  C: cache_read A shared\n", "`shared` is not a memory scope on cpu");
  expect_error(kMatmul + "memory cpu\n  Y: rfactor m -> F\n", "`m` is not a reduction axis of `Y`");
  expect_error(kMatmul + "memory cpu\n  C: pack B 2 16\n", "`B` has dimensions 0..1");
  expect_error(kMatmul + "memory cpu\n  C: double_buffer B\n", "not a buffer made by cache_read");
  expect_error(kMatmul + "memory cpu\n  C: cache_read B local -> A\n", "already names a tensor or stage");
}

TEST(Sections, OneSectionPerLayerAndBackend) {
  expect_error(kMatmul + "schedule cpu\n  C: parallel m\nschedule cpu\n  Y: parallel m\n", "a second `schedule cpu` section");
  expect_error(kMatmul + "schedule gpu\n  C: parallel m\n", "unknown backend `gpu`");
  expect_error(kMatmul + "schedule cpu\n  C: split m 8 -> a b; bind a block.x\n", "the cpu backend has none");
}

}  // namespace
}  // namespace ekb::test
