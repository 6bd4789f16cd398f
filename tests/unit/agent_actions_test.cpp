// LEKA's action tables over the whole suite: every program round-trips through its text, every
// layer's revisions are distinct from the program, and those that pass ekb's checker and lowering
// (the only ones a search measures) exist at L1 for every task; the factor sets fit the target.
#include <gtest/gtest.h>

#include <optional>

#include "agent/action_util.h"
#include "agent/actions.h"
#include "cpu_test_util.h"
#include "codegen/c_printer.h"
#include "harness/device_profiles.h"
#include "ir/check.h"
#include "suite/suite.h"

namespace ekb::agent {
namespace {

const Suite& suite() {
  static Suite s = Suite::load(std::string(EKB_SOURCE_DIR) + "/suite");
  return s;
}

// A 256^3 matmul, the GPU tables' test kernel.
std::shared_ptr<Program> matmul_256() {
  return load_program(std::make_shared<SourceFile>("mm.ekb", R"(kernel mm
  category gemm
  domain general
  dim M = 256, N = 256, K = 256
  in A : f32[M, K]
  in B : f32[K, N]
  out C : f32[M, N]
  C[m, n] = sum(k) A[m, k] * B[k, n]
)"));
}

Target avx2() {
  Target t = default_target(Backend::cpu);
  set_isa(t, Isa::avx2);
  t.threads = 2;
  return t;
}

TEST(AgentActions, EveryTaskHasLegalScheduleRevisionsAndProgramsRoundTrip) {
  Target t = avx2();
  for (const auto& task : suite().tasks()) {
    AgentProgram p = default_program(*task.program, t);
    AgentProgram back = program_from(p.kernel, p.schedule_text(), p.backend);
    EXPECT_EQ(back.text(), p.text()) << task.name;
    auto a = analyze(p, t);
    ASSERT_TRUE(a) << task.name;
    int legal = 0, total = 0;
    for (AgentLayer layer : {AgentLayer::compute, AgentLayer::schedule, AgentLayer::memory}) {
      auto actions = enumerate_actions(p, *a, layer, t);
      for (const auto& x : actions) {
        EXPECT_NE(x.program.hash(), p.hash()) << task.name << ": " << x.name;
        EXPECT_EQ(x.layer, layer) << task.name << ": " << x.name;
        EXPECT_EQ(action_kind_info(x.kind).layer, layer) << task.name << ": " << x.name;
        ++total;
        if (layer == AgentLayer::schedule && analyze(x.program, t)) ++legal;
      }
    }
    EXPECT_GT(legal, 0) << task.name << ": no legal L1 revision among " << total;
  }
}

TEST(AgentActions, RegisterTilesFitTheVectorRegisters) {
  Target t = avx2();
  const Task* task = suite().find("linear_qkv_64x128x384");
  ASSERT_TRUE(task);
  // Its reduction sits inside `(sum ...) + Bias`: the L0 rewrite gives it a stage of its own first.
  AgentProgram start = default_program(*task->program, t);
  auto a0 = analyze(start, t);
  ASSERT_TRUE(a0);
  std::optional<AgentProgram> split;
  for (const auto& x : enumerate_actions(start, *a0, AgentLayer::compute, t))
    if (x.kind == ActionKind::split_reduction) split = x.program;
  ASSERT_TRUE(split);
  AgentProgram p = *split;
  auto a = analyze(p, t);
  ASSERT_TRUE(a) << p.text();
  int tiles = 0;
  for (const auto& x : enumerate_actions(p, *a, AgentLayer::memory, t)) {
    if (x.kind != ActionKind::register_tile) continue;
    ++tiles;
    int mi = 0, ni = 0;
    ASSERT_EQ(std::sscanf(x.name.c_str() + x.name.find("register tile ") + 14, "%dx%d", &mi, &ni), 2) << x.name;
    EXPECT_EQ(ni % 8, 0) << x.name;                                 // whole AVX2 registers of f32
    EXPECT_LE(mi * (ni / 8) + ni / 8 + 1, t.vector_registers) << x.name;  // accumulators, operand, broadcast
    EXPECT_TRUE(analyze(x.program, t)) << x.name << "\n" << x.program.text();
  }
  EXPECT_GT(tiles, 4);
}

// A depthwise convolution's sum followed by its bias and ReLU6 (bench/suite/dwconv3x3.ekb's shape):
// its register tiles at the consumer's tiles keep the accumulators in registers and write the
// result once, each fits the vector registers, lowers, and computes what the reference does.
TEST(AgentActions, AReductionsRegisterTileCanBeComputedAtItsElementWiseConsumersTiles) {
  auto program = load_program(std::make_shared<SourceFile>("dw.ekb", test::depthwise3x3_text(6, 70, 32)));
  // W is more than the 64 copies an unroll may make: the tile's rows are unrolled by its height.
  Target t = avx2();
  AgentProgram p = default_program(*program, t);
  auto a = analyze(p, t);
  ASSERT_TRUE(a);
  std::vector<Action> tiles;
  for (auto& x : enumerate_actions(p, *a, AgentLayer::memory, t))
    if (x.kind == ActionKind::fused_register_tile) tiles.push_back(x);
  ASSERT_FALSE(tiles.empty());
  bool seven_by_eight = false;
  for (const auto& x : tiles) {
    int mi = 0, ni = 0;
    ASSERT_EQ(std::sscanf(x.name.c_str() + x.name.find("register tile ") + 14, "%dx%d", &mi, &ni), 2) << x.name;
    EXPECT_EQ(70 % mi, 0) << x.name;
    EXPECT_EQ(ni % 8, 0) << x.name;
    EXPECT_LE(mi * (ni / 8) + ni / 8 + 1, t.vector_registers) << x.name;
    EXPECT_NE(x.program.text().find("compute_at Y"), std::string::npos) << x.program.text();
    EXPECT_TRUE(analyze(x.program, t)) << x.name << "\n" << x.program.text();
    // (The default schedule may inline the padded copy already; the action then keeps it so.)
    if (mi == 7 && ni == 8 && x.program.text().find("Xp: inline") != std::string::npos) {
      seven_by_eight = true;
      test::CpuCheck run = test::check_on_cpu(*program, x.program.schedule_text());
      EXPECT_TRUE(run.pass) << run.report << "\n" << x.program.text();
      EXPECT_NE(run.c_source.find("float b_S[56]"), std::string::npos) << "S is a 7 x 8 tile per tile of Y:\n" << run.c_source;
    }
  }
  EXPECT_TRUE(seven_by_eight);
  // No such tile for a reduction whose reader is not element-wise (the matmul's C is the output).
  AgentProgram mm = default_program(*matmul_256(), t);
  auto am = analyze(mm, t);
  ASSERT_TRUE(am);
  for (const auto& x : enumerate_actions(mm, *am, AgentLayer::memory, t)) EXPECT_NE(x.kind, ActionKind::fused_register_tile) << x.name;
}

// A parallel loop inside a serial one (the threads start once per iteration of it) can be split in
// as many pieces as threads, the piece loop outermost and parallel; the memory directives placed at
// the old loop follow it to the share each thread runs, and the program lowers with one parallel loop,
// the outermost.
TEST(AgentActions, AParallelLoopInsideASerialOneCanBeHoistedAsThreadPieces) {
  const char* text = R"(kernel mm
  dim M = 64, N = 64, K = 32
  in A : f32[M, K]
  in B : f32[K, N]
  out C : f32[M, N]
  C[m, n] = sum(k) A[m, k] * B[k, n]
)";
  const char* sections = R"(schedule cpu
  C: tile m n 4 16 -> m_o n_o m_i n_i; reorder n_o m_o m_i n_i; parallel m_o
  C_l: reorder k m_i; unroll m_i
memory cpu
  C: pack B 1 16 -> B_p; cache_write local at m_o -> C_l
  B_p: compute_at C n_o
)";
  Target t = avx2();
  auto prog = load_program(std::make_shared<SourceFile>("mm.ekb", text));
  AgentProgram p = program_from(default_program(*prog, t).kernel, sections, Backend::cpu);
  auto a = analyze(p, t);
  ASSERT_TRUE(a) << p.schedule_text();
  int found = 0;
  for (const auto& x : enumerate_actions(p, *a, AgentLayer::schedule, t)) {
    if (x.name != "C: parallel m_o in 2 pieces, outermost") continue;
    ++found;
    std::string st = x.program.schedule_text();
    EXPECT_NE(st.find("split m_o 8 -> m_o_t m_o_s; reorder m_o_t n_o m_o_s m_i n_i; parallel m_o_t"), std::string::npos) << st;
    EXPECT_NE(st.find("cache_write local at m_o_s -> C_l"), std::string::npos) << st;
    EXPECT_NE(st.find("B_p: compute_at C n_o"), std::string::npos) << st;  // (not at the moved loop: unchanged)
    auto b = analyze(x.program, t);
    ASSERT_TRUE(b) << st;
    std::string c = codegen::print_for_backend(b->kernel);
    size_t omp = c.find("#pragma omp parallel num_threads");
    ASSERT_NE(omp, std::string::npos) << c;
    EXPECT_EQ(c.find("#pragma omp parallel num_threads", omp + 1), std::string::npos) << c;
    EXPECT_NE(c.find("for (int64_t v_C_m_o_t = 0; v_C_m_o_t < 2;", omp), std::string::npos) << c;
  }
  EXPECT_EQ(found, 1);
  // Already outermost: nothing to hoist.
  AgentProgram outer = program_from(p.kernel, std::string(sections).replace(std::string(sections).find("parallel m_o"), 12, "parallel n_o"),
                                    Backend::cpu);
  auto o = analyze(outer, t);
  ASSERT_TRUE(o);
  for (const auto& x : enumerate_actions(outer, *o, AgentLayer::schedule, t)) EXPECT_EQ(x.name.find("pieces, outermost"), std::string::npos) << x.name;
}

TEST(AgentActions, TheReciprocalRewriteKeepsTheInterface) {
  Target t = avx2();
  const Task* task = suite().find("softmax_attn_4x64x64");
  AgentProgram p = default_program(*task->program, t);
  auto a = analyze(p, t);
  bool found = false;
  for (const auto& x : enumerate_actions(p, *a, AgentLayer::compute, t)) {
    if (x.kind != ActionKind::reciprocal) continue;
    found = true;
    auto b = analyze(x.program, t);
    ASSERT_TRUE(b) << x.program.text();
    EXPECT_EQ(b->program->inputs.size(), task->program->inputs.size());
    EXPECT_EQ(b->program->stages.size(), task->program->stages.size() + 1) << x.program.kernel;
    EXPECT_EQ(x.program.text().find("_rcp: inline"), std::string::npos) << "the reciprocal went back into every element";
  }
  EXPECT_TRUE(found);
}

TEST(AgentActions, TileFactorsAreDivisorsAndPowersOfTwoSpreadOverTheRange) {
  auto f = tile_factors(112, 2, 64, 8);
  EXPECT_LE(f.size(), 8u);
  for (int64_t x : f) {
    EXPECT_TRUE(112 % x == 0 || (x & (x - 1)) == 0) << x;
    EXPECT_GE(x, 2);
    EXPECT_LE(x, 64);
  }
  EXPECT_EQ(f.front(), 2);
  EXPECT_EQ(f.back(), 64);
  EXPECT_TRUE(tile_factors(3, 2, 64).size() == 1);  // 2 (below 3, a power of two)
}

}  // namespace
}  // namespace ekb::agent

namespace ekb::agent {
namespace {

TEST(AgentActions, GpuTablesGiveLegalRevisionsForEveryTask) {
  Target t = default_target(Backend::cuda);
  int tasks_with_memory_actions = 0;
  for (const auto& task : suite().tasks()) {
    AgentProgram p = default_program(*task.program, t);
    auto a = analyze(p, t);
    ASSERT_TRUE(a) << task.name;
    int legal = 0;
    auto actions = enumerate_actions(p, *a, AgentLayer::schedule, t);
    for (const auto& x : actions) legal += analyze(x.program, t).has_value();
    if (actions.empty()) {
      // Nothing to vary only where every kernel is one block of one warp (32 points or fewer, and
      // no reduction of the stage's own to spread over threads): the default is the table's only entry.
      for (const auto& v : detail::stage_views(*a)) {
        if (!v.root() || v.stage->created) continue;
        int64_t points = 1;
        for (int64_t e : v.stage->extents) points *= e;
        EXPECT_TRUE(points <= 32 && !v.stage->has_reduction()) << task.name << ": no schedule action for stage " << v.stage->name;
      }
      continue;
    }
    EXPECT_GT(legal, 0) << task.name;
    tasks_with_memory_actions += !enumerate_actions(p, *a, AgentLayer::memory, t).empty();
  }
  EXPECT_GT(tasks_with_memory_actions, 10);
}

TEST(AgentActions, GpuBlockTilesLowerWithinAProfilesLimits) {
  auto prog = matmul_256();
  for (const char* profile : {"h200-cuda", "mali-g57-opencl"}) {
    Target t = find_device(profile).target();
    AgentProgram p = default_program(*prog, t);
    auto a = analyze(p, t);
    ASSERT_TRUE(a);
    int tiles = 0, legal = 0;
    for (const auto& x : enumerate_actions(p, *a, AgentLayer::memory, t)) {
      if (x.kind != ActionKind::gpu_block_tile) continue;
      if (++tiles > 6) continue;  // (lowering a block tile unrolls a lot: a few are enough)
      auto b = analyze(x.program, t);
      legal += b.has_value();
      if (b) EXPECT_NE(codegen::print_for_backend(b->kernel).find("@launch"), std::string::npos);
    }
    EXPECT_GT(tiles, 3) << profile;
    EXPECT_GT(legal, 0) << profile;
  }
}

// After a block tile, the next round of L2 actions double-buffers its shared panels; the program
// lowers (two copies of each panel in shared memory, the next one staged in registers).
TEST(AgentActions, ABlockTilesPanelsCanBeDoubleBuffered) {
  auto prog = matmul_256();
  Target t = find_device("h200-cuda").target();
  AgentProgram p = default_program(*prog, t);
  auto a = analyze(p, t);
  ASSERT_TRUE(a);
  std::optional<AgentProgram> tiled;
  for (const auto& x : enumerate_actions(p, *a, AgentLayer::memory, t))
    if (x.kind == ActionKind::gpu_block_tile && x.name.find("block tile 32x32, 4x4 per thread, k by 16") != std::string::npos) tiled = x.program;
  ASSERT_TRUE(tiled);
  for (const auto& x : enumerate_actions(p, *a, AgentLayer::memory, t)) EXPECT_NE(x.kind, ActionKind::gpu_double_buffer) << x.name;
  auto b = analyze(*tiled, t);
  ASSERT_TRUE(b);
  int doubled = 0;
  for (const auto& x : enumerate_actions(*tiled, *b, AgentLayer::memory, t)) {
    if (x.kind != ActionKind::gpu_double_buffer) continue;
    ++doubled;
    EXPECT_NE(x.program.schedule_text().find("double_buffer A_s; double_buffer B_s"), std::string::npos) << x.program.schedule_text();
    auto c = analyze(x.program, t);
    ASSERT_TRUE(c) << x.program.schedule_text();
    EXPECT_NE(codegen::print_for_backend(c->kernel).find("A_s_staged"), std::string::npos);
    // Once double-buffered, it is not offered again.
    for (const auto& y : enumerate_actions(x.program, *c, AgentLayer::memory, t)) EXPECT_NE(y.kind, ActionKind::gpu_double_buffer);
  }
  EXPECT_EQ(doubled, 1);
}

}  // namespace
}  // namespace ekb::agent
