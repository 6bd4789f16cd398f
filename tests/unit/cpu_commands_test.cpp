// `ekb run`, `ekb compile` and `ekb show --abi` end to end, with generated and raw (C and C++) kernels,
// including a wrong raw kernel that must fail; and the GPU side of the same commands: the CUDA and
// OpenCL ABIs, a raw OpenCL kernel run on the OpenCL device here (PoCL in CI), a raw source given to
// the wrong backend.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>

#include "command_util.h"
#include "cpu_test_util.h"

namespace ekb::test {
namespace {

namespace fs = std::filesystem;

using Result = CommandResult;

Result ekb_cmd(const std::string& args) {
  return run_command(std::string(EKB_BINARY) + " --suite " + EKB_SOURCE_DIR + "/suite " + args + " 2>&1");
}

fs::path temp(const std::string& name, const std::string& text) {
  fs::path dir = fs::temp_directory_path() / ("ekb-cmd-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / name) << text;
  return dir / name;
}

const char* kSoftmaxC = R"(#include <math.h>
#include <stdint.h>
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  float m = -INFINITY, s = 0;
  for (int i = 0; i < 1000; ++i) m = X[i] > m ? X[i] : m;
  for (int i = 0; i < 1000; ++i) { Y[i] = expf(X[i] - m); s += Y[i]; }
  for (int i = 0; i < 1000; ++i) Y[i] /= s;
}
)";

TEST(CpuCommands, ShowAbiGivesTheSignature) {
  Result r = ekb_cmd("show softmax_imagenet_1x1000 --abi cpu");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("void ekb_kernel(\n    const float* restrict X /* f32[1][1000] */,\n    float* restrict Y /* f32[1][1000] */,\n"
                       "    int32_t num_threads);"),
            std::string::npos)
      << r.out;
  EXPECT_NE(ekb_cmd("show softmax_imagenet_1x1000 --abi tpu").status, 0);
}

TEST(CpuCommands, RunGeneratedAndRawKernels) {
  Result gen = ekb_cmd("run softmax_imagenet_1x1000 --threads 1");
  EXPECT_EQ(gen.status, 0) << gen.out;
  EXPECT_NE(gen.out.find("schedule default"), std::string::npos) << gen.out;
  EXPECT_NE(gen.out.find("PASS"), std::string::npos);
  EXPECT_NE(gen.out.find("median"), std::string::npos);

  fs::path c = temp("softmax_imagenet_1x1000.c", kSoftmaxC);
  Result raw = ekb_cmd("run " + c.string() + " --threads 1");
  EXPECT_EQ(raw.status, 0) << raw.out;
  EXPECT_NE(raw.out.find("raw C for task softmax_imagenet_1x1000"), std::string::npos) << raw.out;

  // The same kernel in C++ (extern "C"), named by --task.
  fs::path cpp = temp("mine.cpp", R"(#include <algorithm>
#include <cmath>
#include <cstdint>
extern "C" void ekb_kernel(const float* X, float* Y, int32_t) {
  float m = *std::max_element(X, X + 1000), s = 0;
  for (int i = 0; i < 1000; ++i) s += (Y[i] = std::exp(X[i] - m));
  for (int i = 0; i < 1000; ++i) Y[i] /= s;
}
)");
  Result rawpp = ekb_cmd("run " + cpp.string() + " --task softmax_imagenet_1x1000 --threads 1");
  EXPECT_EQ(rawpp.status, 0) << rawpp.out;

  // A wrong kernel (forgets to normalise) fails with the worst element named.
  std::string wrong = kSoftmaxC;
  wrong.replace(wrong.find("Y[i] /= s;"), 10, "Y[i] *= 1;");
  fs::path w = temp("softmax_imagenet_1x1000.s1.c", wrong);
  Result bad = ekb_cmd("run " + w.string() + " --threads 1");
  EXPECT_EQ(bad.status, 1) << bad.out;
  EXPECT_NE(bad.out.find("FAIL"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("worst at flat index"), std::string::npos) << bad.out;

  // A raw kernel that does not compile is a clear error naming the line.
  fs::path broken = temp("softmax_imagenet_1x1000.s2.c", "void ekb_kernel(const float* X, float* Y, int n) { Y[0] = X[0] }\n");
  Result cerr = ekb_cmd("run " + broken.string());
  EXPECT_EQ(cerr.status, 1) << cerr.out;
  EXPECT_NE(cerr.out.find("kernel.c:1:"), std::string::npos) << cerr.out;
}

TEST(CpuCommands, CompileEmitsEveryStage) {
  fs::path f = temp("mm.ekb", "kernel mm\n  dim M = 12, N = 20, K = 7\n  in A : f32[M, K]\n  in B : f32[K, N]\n  out C : f32[M, N]\n"
                              "  C[m, n] = sum(k) A[m, k] * B[k, n]\n\nschedule cpu\n  C: vectorize n 16; parallel m\n");
  Result loops = ekb_cmd("compile " + f.string() + " --emit loops");
  ASSERT_EQ(loops.status, 0) << loops.out;
  EXPECT_NE(loops.out.find("parallel for C.m"), std::string::npos) << loops.out;
  EXPECT_NE(loops.out.find("vectorized for C.n_v"), std::string::npos) << loops.out;
  Result c = ekb_cmd("compile " + f.string() + " --emit c");
  EXPECT_NE(c.out.find("#pragma omp parallel num_threads(num_threads)"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("#pragma omp for schedule(static)"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("ekb_load_f32x16"), std::string::npos) << c.out;
  Result ll = ekb_cmd("compile " + f.string() + " --emit ll");
#if EKB_WITH_LLVM
  EXPECT_NE(ll.out.find("define"), std::string::npos) << ll.out;
#else
  // Built without the in-process LLVM: the system compiler emits LLVM IR only if it is a clang.
  if (ll.status == 0) EXPECT_NE(ll.out.find("define"), std::string::npos) << ll.out;
  else EXPECT_NE(ll.out.find("clang"), std::string::npos) << "a clear error: " << ll.out;
#endif
  EXPECT_NE(ekb_cmd("compile " + f.string() + " --emit asm").out.find("vfmadd"), std::string::npos);
  fs::path obj = f;
  obj.replace_extension(".o");
  EXPECT_EQ(ekb_cmd("compile " + f.string() + " --emit obj -o " + obj.string()).status, 0);
  std::ifstream in(obj, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  EXPECT_EQ(std::string(magic, 4), "\x7f" "ELF");
  Result def = ekb_cmd("compile softmax_imagenet_1x1000 --emit schedule");
  EXPECT_NE(def.out.find("schedule cpu"), std::string::npos) << def.out;
  EXPECT_NE(ekb_cmd("compile " + f.string() + " --emit nonsense").status, 0);
  // An illegal schedule file is reported against that file.
  fs::path sched = temp("bad.sched.ekb", "schedule cpu\n  C: parallel k\n");
  Result bad = ekb_cmd("run " + f.string() + " --schedule " + sched.string());
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.out.find("bad.sched.ekb:2:15: error: `k` is a reduction axis"), std::string::npos) << bad.out;
}

TEST(GpuCommands, ShowAbiGivesTheCudaAndOpenClContracts) {
  Result cu = ekb_cmd("show hardswish_nchw_16x112x112 --abi cuda");
  ASSERT_EQ(cu.status, 0) << cu.out;
  EXPECT_NE(cu.out.find("@launch KERNEL grid(X,Y,Z) block(X,Y,Z)"), std::string::npos) << cu.out;
  EXPECT_NE(cu.out.find("extern \"C\" __global__ void ekb_k0(\n    const float* __restrict__ X /* f32[1][16][112][112] */,\n"
                        "    float* __restrict__ Y /* f32[1][16][112][112] */);"),
            std::string::npos)
      << cu.out;
  EXPECT_NE(cu.out.find("@launch ekb_k0 grid(784,1,1) block(256,1,1)"), std::string::npos) << cu.out;
  Result cl = ekb_cmd("show hardswish_nchw_16x112x112 --abi opencl");
  ASSERT_EQ(cl.status, 0) << cl.out;
  EXPECT_NE(cl.out.find("__kernel void ekb_k0(\n    __global const float* restrict X"), std::string::npos) << cl.out;
}

const char* kHardswishCl = R"(// @launch ekb_k0 grid(784) block(256)
__kernel void ekb_k0(__global const float* restrict X, __global float* restrict Y) {
  int i = get_global_id(0);
  if (i < 200704) Y[i] = X[i] * clamp(X[i] + 3.0f, 0.0f, 6.0f) / 6.0f;
}
)";

TEST(GpuCommands, RawOpenClRunsOnTheOpenClDevice) {
  fs::path cl = temp("hardswish_nchw_16x112x112.cl", kHardswishCl);
  Result r = ekb_cmd("run " + cl.string() + " --backend opencl");
  if (r.out.find("unavailable") != std::string::npos) GTEST_SKIP() << r.out;
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("raw OpenCL C for task hardswish_nchw_16x112x112"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("device time of the launches"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("PASS"), std::string::npos) << r.out;
  // Without its launch contract it is refused before anything runs, with the contract's form.
  fs::path bare = temp("hardswish_nchw_16x112x112.s1.cl", std::string(kHardswishCl).substr(std::string(kHardswishCl).find('\n') + 1));
  Result b = ekb_cmd("run " + bare.string() + " --backend opencl");
  EXPECT_NE(b.status, 0) << b.out;
  EXPECT_NE(b.out.find("@launch KERNEL"), std::string::npos) << b.out;
}

TEST(GpuCommands, ARawSourceForAnotherBackendIsRefused) {
  fs::path cl = temp("hardswish_nchw_16x112x112.s2.cl", kHardswishCl);
  Result r = ekb_cmd("run " + cl.string() + " --backend cuda");
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("takes raw .cu sources"), std::string::npos) << r.out;
  Result d = ekb_cmd("run hardswish_nchw_16x112x112 --device pocl-cpu --backend cuda");
  EXPECT_NE(d.status, 0) << d.out;
  EXPECT_NE(d.out.find("is for the opencl backend, not cuda"), std::string::npos) << d.out;
}

}  // namespace
}  // namespace ekb::test
