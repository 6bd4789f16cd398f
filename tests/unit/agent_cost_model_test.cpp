// LEKA's cost model on programs whose measured order is known: what it must rank right for the search
// to measure the right candidates first (measurements are the budget).
#include <gtest/gtest.h>

#include "agent/cost_model.h"
#include "agent/program.h"
#include "test_util.h"

namespace ekb::agent {
namespace {

// The fused 8x16 register tile, with the zero-padded copy of the input either made whole first or
// inlined into guarded loads. On an AVX-512 Zen 5 (1 thread, the harness's cold caches) the inlined
// one measured 2.29x over the default schedule and the other 1.18x: the copy is 4.9 MB written and
// read back, and the guard is a lane-invariant scalar test, not vector work.
const char* kTile = R"(schedule cpu
  S: reorder kh kw oh ow c; unroll ow 8; unroll kh; unroll kw; vectorize c 16
  Y: tile ow c 8 16 -> ow_o c_o ow_i c_i; reorder ow_o oh; unroll ow_i; vectorize c_i 16

memory cpu
  S: compute_at Y c_o
)";

TEST(AgentCostModel, APaddedCopyLargerThanL2CostsItsTrafficAndItsInlinedGuardIsScalarWork) {
  Target t = default_target(Backend::cpu);
  set_isa(t, Isa::avx512);
  t.threads = 1;
  auto predict = [&](const std::string& sections) {
    std::string error;
    auto a = analyze(program_from(test::depthwise3x3_text(112, 112, 96), sections, Backend::cpu), t, &error);
    EXPECT_TRUE(a) << error;
    return a ? std::optional<CostTerms>(cost_terms(a->kernel, t)) : std::nullopt;
  };
  auto copied = predict(kTile), inlined = predict(std::string(kTile) + "  Xp: inline\n");
  ASSERT_TRUE(copied && inlined);
  CostModel m(t);
  EXPECT_LT(m.combine(*inlined), m.combine(*copied));
  // The copy's 2 x 4.9 MB are memory time the inlined program does not have.
  EXPECT_GT(copied->memory - inlined->memory, 2 * 4.9e6 / 32.0 * 0.9);
}

}  // namespace
}  // namespace ekb::agent
