// GPU on-chip memory and cooperation between threads: caches in shared memory (__shared__ / __local,
// declared at the kernel's top, filled by the block's threads together, with barriers), register
// tiles (local), cross-thread reductions (a shared-memory tree, warp shuffles on CUDA), and the
// errors for schedules a GPU block cannot run. The bench/gpu schedules print and compile with NVRTC
// (skipped where NVRTC is missing).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "codegen/c_printer.h"
#include "codegen/dialect.h"
#include "ir/check.h"
#include "lower/lower.h"
#include "runtime/gpu/nvrtc.h"
#include "util/diagnostics.h"
#include "util/source.h"

namespace ekb {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::shared_ptr<Program> bench_program(const std::string& file) {
  std::string path = std::string(EKB_SOURCE_DIR) + "/bench/gpu/" + file;
  return load_program(std::make_shared<SourceFile>(path, read_text(path)));
}

codegen::GpuProgram print(const Program& p, const std::string& backend) {
  auto k = lower::lower_kernel(p, default_target(parse_backend(backend)));
  return codegen::print_gpu(k, backend == "cuda" ? codegen::cuda_dialect() : codegen::opencl_dialect());
}

void expect_nvrtc_compiles(const codegen::GpuProgram& g, const std::string& name) {
  std::string why;
  if (!gpu::nvrtc_available(&why)) GTEST_SKIP() << why;
  gpu::NvrtcResult r = gpu::nvrtc_compile(g.source, name + ".cu", "sm_90");
  EXPECT_TRUE(r.ok) << r.log << "\n" << g.source.substr(0, 8000);
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// The error lowering reports for a kernel with these sections (empty when it lowers).
std::string lowering_error(const std::string& text, const std::string& backend = "cuda") {
  try {
    auto p = load_program(std::make_shared<SourceFile>("t.ekb", text));
    auto k = lower::lower_kernel(*p, default_target(parse_backend(backend)));
    codegen::print_gpu(k, backend == "cuda" ? codegen::cuda_dialect() : codegen::opencl_dialect());
  } catch (const DiagnosticError& e) {
    std::string out;
    for (const auto& d : e.diagnostics().items()) out += d.message + " | fix: " + d.fix + "\n";
    return out;
  }
  return "";
}

TEST(GpuMemory, SgemmCachesInSharedMemoryWithBarriersCuda) {
  auto p = bench_program("sgemm_256.ekb");
  codegen::GpuProgram g = print(*p, "cuda");
  ASSERT_EQ(g.contract.launches.size(), 1u);
  const auto& l = g.contract.launches[0];
  EXPECT_EQ(l.grid[0], 2u);
  EXPECT_EQ(l.grid[1], 2u);
  EXPECT_EQ(l.block[0], 16u);
  EXPECT_EQ(l.block[1], 16u);
  EXPECT_NE(g.source.find("__shared__ float b_As[2048] __attribute__((aligned(16)));"), std::string::npos) << g.source;
  EXPECT_NE(g.source.find("__shared__ float b_Bs[2048] __attribute__((aligned(16)));"), std::string::npos) << g.source;
  EXPECT_EQ(count(g.source, "__syncthreads();"), 2u) << g.source;  // after the copies, and at the end of each k step
  EXPECT_NE(g.source.find("float b_Cl[64]"), std::string::npos) << g.source;  // the register tile
  expect_nvrtc_compiles(g, "sgemm_256");
}

// A thread's register tile over strided columns (thread t: t*4 + {0..3} and 64 + t*4 + {0..3}) is
// its 8 x 8 points, not the 8 x 68 box around them; the copy-out reads it densely; the kernel tells
// the compiler its buffers are 16-byte aligned (and its header says so).
TEST(GpuMemory, AStridedRegisterTileHoldsOnlyItsPoints) {
  auto p = load_program(std::make_shared<SourceFile>("s.ekb", R"(kernel sgemm
  dim M = 256, N = 256, K = 64
  in A : f32[M, K]
  in B : f32[K, N]
  out C : f32[M, N]
  C[m, n] = sum(k) A[m, k] * B[k, n]

schedule cuda
  C: tile m n 128 128 -> bm bn mi ni; split mi 8 -> ty my; split ni 64 -> no nq; split nq 4 -> tx ny; reorder bm bn ty tx my no ny; bind bm block.y; bind bn block.x; bind ty thread.y; bind tx thread.x
  Cl: split k 16 -> ko ki; reorder ko ki m n; unroll ki; unroll m 8; unroll n 8
  As: fuse ax0 ax1 -> f; split f 256 -> fo fi; split fi 16 -> ty tx; bind ty thread.y; bind tx thread.x
  Bs: fuse ax0 ax1 -> f; split f 256 -> fo fi; split fi 16 -> ty tx; bind ty thread.y; bind tx thread.x

memory cuda
  C: cache_write local at tx -> Cl
  Cl: cache_read A shared at ko -> As; cache_read B shared at ko -> Bs
)"));
  codegen::GpuProgram g = print(*p, "cuda");
  EXPECT_NE(g.source.find("float b_Cl[64]"), std::string::npos) << g.source.substr(0, 4000);
  EXPECT_NE(g.source.find("__shared__ float b_Bs[2048]"), std::string::npos);  // the block's panel: 16 x 128
  EXPECT_NE(g.source.find("every buffer 16-byte aligned"), std::string::npos);
  EXPECT_NE(g.source.find("A = (const float*)__builtin_assume_aligned(A, 16);"), std::string::npos);
  EXPECT_NE(g.source.find("C = (float*)__builtin_assume_aligned(C, 16);"), std::string::npos);
  expect_nvrtc_compiles(g, "sgemm_strided");
}

TEST(GpuMemory, SgemmLocalArraysAtTheKernelsTopOpenCL) {
  auto p = bench_program("sgemm_256.ekb");
  codegen::GpuProgram g = print(*p, "opencl");
  size_t kernel = g.source.find("__kernel void ekb_k0(");
  ASSERT_NE(kernel, std::string::npos);
  size_t body = g.source.find("{\n", kernel) + 2;
  const std::string decl = "  __local float b_As[2048] __attribute__((aligned(16)));\n  ";
  EXPECT_EQ(g.source.compare(body, decl.size(), decl), 0) << g.source.substr(body, 200);
  EXPECT_EQ(count(g.source, "barrier(CLK_LOCAL_MEM_FENCE);"), 2u) << g.source;
  EXPECT_EQ(g.source.find("__shared__"), std::string::npos);
}

TEST(GpuMemory, SoftmaxReducesAcrossThreadsWithWarpShufflesCuda) {
  auto p = bench_program("softmax_rows_64x1024.ekb");
  codegen::GpuProgram g = print(*p, "cuda");
  ASSERT_EQ(g.contract.launches.size(), 1u);
  EXPECT_EQ(g.contract.launches[0].grid[0], 64u);
  EXPECT_EQ(g.contract.launches[0].block[0], 128u);
  EXPECT_EQ(count(g.source, "__shfl_down_sync"), 10u) << g.source;  // 5 steps for each of the 2 reductions
  EXPECT_NE(g.source.find("__shared__ float red_"), std::string::npos) << g.source;
  expect_nvrtc_compiles(g, "softmax_rows_64x1024");
}

TEST(GpuMemory, SoftmaxTreeWithoutShufflesOpenCL) {
  auto p = bench_program("softmax_rows_64x1024.ekb");
  codegen::GpuProgram g = print(*p, "opencl");
  EXPECT_EQ(g.source.find("shfl"), std::string::npos);
  EXPECT_NE(g.source.find("__local float red_"), std::string::npos) << g.source;
  // 128 threads: the write, 7 halvings, the result: 9 barriers per reduction.
  EXPECT_EQ(count(g.source, "barrier(CLK_LOCAL_MEM_FENCE);"), 18u) << g.source;
}

TEST(GpuMemory, BenchSchedulesCompileWithNvrtc) {
  for (const char* f : {"sgemm_4096.ekb", "sgemm_4096_cols.ekb", "softmax_rows_8192.ekb", "layernorm_8192.ekb", "layernorm_64x1024.ekb"}) {
    SCOPED_TRACE(f);
    auto p = bench_program(f);
    expect_nvrtc_compiles(print(*p, "cuda"), f);
  }
}

const std::string kMM =
    "kernel t\n"
    "  dim M = 256, N = 256, K = 256\n"
    "  in A : f32[M, K]\n"
    "  in B : f32[K, N]\n"
    "  out C : f32[M, N]\n"
    "  C[m, n] = sum(k) A[m, k] * B[k, n]\n";

TEST(GpuMemory, TooManyThreadsIsAnError) {
  std::string e = lowering_error(kMM + "schedule cuda\n  C: bind m block.x; bind n thread.x\n" +
                                 "memory cuda\n  C: cache_write local at n -> Cl\n");
  EXPECT_EQ(e, "");  // 256 threads are fine
  e = lowering_error(kMM + "schedule cuda\n  C: split m 8 -> mo mi; bind mo block.x; bind mi thread.y; bind n thread.x\n");
  EXPECT_NE(e.find("256 x 8 x 1 = 2048 threads, more than the 1024"), std::string::npos) << e;
  EXPECT_NE(e.find("fix: bind smaller loops"), std::string::npos) << e;
}

TEST(GpuMemory, SharedCacheOver48KiBIsAnError) {
  std::string e = lowering_error(kMM +
                                 "schedule cuda\n  C: split m 64 -> mo mi; bind mo block.x; bind n thread.x\n"
                                 "memory cuda\n  C: cache_read A shared at mo -> As\n");
  EXPECT_NE(e.find("needs 65536 bytes, more than the 49152"), std::string::npos) << e;
}

TEST(GpuMemory, SharedCacheOutsideTheBlocksIsAnError) {
  std::string e = lowering_error(kMM + "schedule cuda\n  C: bind m block.x; bind n thread.x\nmemory cuda\n  C: cache_read A shared -> As\n");
  EXPECT_NE(e.find("stored in shared memory, which exists once per GPU block"), std::string::npos) << e;
}

TEST(GpuMemory, BarrierInsideALoopWithFewerThreadsIsAnError) {
  // The copy binds 32 threads on x while C binds 16: C's thread loop runs on half the threads, and
  // the barrier after the copy inside it would not be reached by the others.
  std::string e = lowering_error(kMM +
                                 "schedule cuda\n"
                                 "  C: tile m n 16 16 -> mo no mi ni; split k 16 -> ko ki; reorder mo no mi ni ko ki; "
                                 "bind mo block.y; bind no block.x; bind mi thread.y; bind ni thread.x\n"
                                 "  As: split ax1 32 -> a b; bind b thread.x\n"
                                 "memory cuda\n  C: cache_read A shared at ko -> As\n");
  EXPECT_NE(e.find("barrier (after a shared-memory copy) would not be reached by every thread"), std::string::npos) << e;
}

TEST(GpuMemory, CrossThreadReductionNeedsItsLoopOutermost) {
  std::string e = lowering_error(kMM + "schedule cuda\n  C: split k 32 -> ko ki; bind m block.x; bind ki thread.x\n");
  EXPECT_NE(e.find("reduces across GPU threads over `ki`, but its loop `ko` is a reduction loop outside it"), std::string::npos) << e;
  EXPECT_NE(e.find("fix: reorder `C`'s loops"), std::string::npos) << e;
  e = lowering_error(kMM + "schedule cuda\n  C: split k 32 -> ko ki; reorder m ki ko n; bind m block.x; bind ki thread.x\n");
  EXPECT_NE(e.find("its loop `n` is a pure loop inside it"), std::string::npos) << e;
  e = lowering_error(kMM + "schedule cuda\n  C: split k 32 -> ko ki; reorder m n ki ko; bind m block.x; bind ki block.y\n");
  EXPECT_NE(e.find("bind it to a thread axis"), std::string::npos) << e;
}

TEST(GpuMemory, CrossThreadDotProductCompiles) {
  std::string text = kMM + "schedule cuda\n  C: split k 64 -> ko ki; reorder m n ki ko; fuse m n -> mn; bind mn block.x; bind ki thread.x\n";
  EXPECT_EQ(lowering_error(text), "");
  auto p = load_program(std::make_shared<SourceFile>("t.ekb", text));
  codegen::GpuProgram g = print(*p, "cuda");
  EXPECT_EQ(count(g.source, "__shfl_down_sync"), 5u) << g.source;
  expect_nvrtc_compiles(g, "dot");
}

}  // namespace
}  // namespace ekb
