// The GPU stacks loaded at run time (runtime/gpu/): NVRTC compiles CUDA C to a cubin wherever the
// CUDA toolkit is installed (no GPU needed); the driver runs it wherever a GPU is. Where either is
// missing the tests are skipped with the reason, never passed.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "runtime/gpu/cuda_driver.h"
#include "runtime/gpu/nvrtc.h"

namespace ekb::gpu {
namespace {

const char* kAxpy = R"(extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)";

TEST(Nvrtc, CompilesCudaCToACubinForSm90) {
  std::string why;
  if (!nvrtc_available(&why)) GTEST_SKIP() << why;
  NvrtcResult r = nvrtc_compile(kAxpy, "axpy.cu", "sm_90");
  ASSERT_TRUE(r.ok) << r.log;
  ASSERT_GT(r.cubin.size(), 4u);
  EXPECT_EQ(std::memcmp(r.cubin.data(), "\x7f" "ELF", 4), 0) << "a cubin is an ELF file";
  EXPECT_NE(nvrtc_version(), "unavailable");
}

TEST(Nvrtc, ErrorsComeBackWithTheirLine) {
  std::string why;
  if (!nvrtc_available(&why)) GTEST_SKIP() << why;
  NvrtcResult r = nvrtc_compile("extern \"C\" __global__ void k(float* y) {\n  y[0] = undefined_name;\n}\n", "bad.cu", "sm_90");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("bad.cu(2)"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("undefined_name"), std::string::npos) << r.log;
}

TEST(CudaDriver, RunsACompiledKernel) {
  std::string why;
  const CudaDriver* cu = cuda_driver(&why);
  if (!cu) GTEST_SKIP() << why;
  if (!nvrtc_available(&why)) GTEST_SKIP() << why;
  CUdevice dev = 0;
  ASSERT_EQ(cu->cuDeviceGet(&dev, 0), 0);
  int major = 0, minor = 0;
  cu->cuDeviceGetAttribute(&major, kComputeCapabilityMajor, dev);
  cu->cuDeviceGetAttribute(&minor, kComputeCapabilityMinor, dev);
  CUcontext ctx = nullptr;
  ASSERT_EQ(cu->cuDevicePrimaryCtxRetain(&ctx, dev), 0);
  ASSERT_EQ(cu->cuCtxSetCurrent(ctx), 0);
  NvrtcResult r = nvrtc_compile(kAxpy, "axpy.cu", "sm_" + std::to_string(major * 10 + minor));
  ASSERT_TRUE(r.ok) << r.log;
  CUmodule mod = nullptr;
  CUfunction fn = nullptr;
  ASSERT_EQ(cu->cuModuleLoadData(&mod, r.cubin.data()), 0);
  ASSERT_EQ(cu->cuModuleGetFunction(&fn, mod, "axpy"), 0);
  const int n = 1000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i), y[i] = 1.0f;
  CUdeviceptr dx = 0, dy = 0;
  ASSERT_EQ(cu->cuMemAlloc(&dx, n * sizeof(float)), 0);
  ASSERT_EQ(cu->cuMemAlloc(&dy, n * sizeof(float)), 0);
  cu->cuMemcpyHtoD(dx, x.data(), n * sizeof(float));
  cu->cuMemcpyHtoD(dy, y.data(), n * sizeof(float));
  float a = 2.0f;
  int count = n;
  void* args[] = {&a, &dx, &dy, &count};
  ASSERT_EQ(cu->cuLaunchKernel(fn, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr), 0);
  ASSERT_EQ(cu->cuCtxSynchronize(), 0);
  cu->cuMemcpyDtoH(y.data(), dy, n * sizeof(float));
  for (int i = 0; i < n; ++i) ASSERT_EQ(y[i], 2.0f * static_cast<float>(i) + 1.0f) << i;
  cu->cuMemFree(dx);
  cu->cuMemFree(dy);
  cu->cuModuleUnload(mod);
}

TEST(CudaDriver, WithoutAGpuItSaysWhy) {
  std::string why;
  if (cuda_driver(&why)) GTEST_SKIP() << "this machine has a GPU";
  EXPECT_FALSE(why.empty());
}

}  // namespace
}  // namespace ekb::gpu
