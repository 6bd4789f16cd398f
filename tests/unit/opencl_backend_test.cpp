// The OpenCL backend (runtime/gpu/opencl_backend.cpp) on whatever OpenCL device is here: PoCL on the
// CPU in CI, a GPU's OpenCL elsewhere. Where there is no ICD loader or no device the tests are
// skipped with the reason, never passed.
#include <gtest/gtest.h>
#include <link.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "runtime/gpu/gpu_backend.h"
#include "runtime/gpu/opencl_api.h"

namespace ekb::gpu {
namespace {

// Whether this process holds a libclang-cpp before any OpenCL is loaded: ekb's LLVM, with which
// PoCL's compiler would clash (tests/CMakeLists.txt keeps these tests in an executable without it).
bool holds_clang() {
  bool found = false;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* found) {
        if (info->dlpi_name && std::strstr(info->dlpi_name, "libclang-cpp")) *static_cast<bool*>(found) = true;
        return 0;
      },
      &found);
  return found;
}

// PoCL keeps compiled kernels under $POCL_CACHE_DIR (default ~/.cache/pocl, which may not be
// writable here); it reads the variable when the platform starts, so this runs before any backend.
std::unique_ptr<GpuBackend> make(const std::string& platform_match, std::string* why) {
  static const bool clang_here = [] {
    if (!std::getenv("POCL_CACHE_DIR")) {
      auto dir = std::filesystem::temp_directory_path() / "ekb-pocl-cache";
      std::filesystem::create_directories(dir);
      setenv("POCL_CACHE_DIR", dir.c_str(), 0);
    }
    return holds_clang();
  }();
  if (clang_here) {
    ADD_FAILURE() << "this test executable links LLVM's libclang-cpp, which PoCL's own would bind to; "
                     "run the OpenCL tests in ekb_opencl_tests";
    *why = "libclang-cpp in process";
    return nullptr;
  }
  return make_opencl_backend(platform_match, why);
}

const char* kTwoKernels = R"(__kernel void ekb_k0(__global const float* x, __global float* y) {
  int i = get_global_id(0);
  if (i < 1000) y[i] = 2.0f * x[i];
}
__kernel void ekb_k1(__global const float* x, __global float* y) {
  int i = get_global_id(0);
  if (i < 1000) y[i] += 1.0f;
}
)";

TEST(OpenClBackend, DeviceInfoIsSensible) {
  std::string why;
  auto b = make("", &why);
  if (!b) GTEST_SKIP() << why;
  const DeviceInfo& d = b->device();
  EXPECT_EQ(d.api, "opencl");
  EXPECT_FALSE(d.name.empty());
  EXPECT_FALSE(d.platform.empty());
  EXPECT_NE(d.version.find("OpenCL"), std::string::npos) << d.version;
  EXPECT_GT(d.max_threads_per_block, 0);
  EXPECT_GT(d.shared_memory_per_block, 0u);
  EXPECT_GT(d.total_memory, 0u);
  EXPECT_GT(d.compute_units, 0);
  EXPECT_NE(b->compiler().find("OpenCL C ("), std::string::npos) << b->compiler();
}

TEST(OpenClBackend, RunsATwoKernelProgramAndTimesIt) {
  std::string why;
  auto b = make("", &why);
  if (!b) GTEST_SKIP() << why;
  if (b->device().max_threads_per_block < 256) GTEST_SKIP() << "the device's work-groups are below 256";
  auto infos = b->compile(kTwoKernels, "two.cl", {"ekb_k0", "ekb_k1"});
  ASSERT_EQ(infos.size(), 2u);
  EXPECT_EQ(infos[0].name, "ekb_k0");
  EXPECT_EQ(infos[1].name, "ekb_k1");
  EXPECT_GT(infos[0].max_threads_per_block, 0);
  const int n = 1000;
  std::vector<float> x(n), y(n, -7.0f);
  for (int i = 0; i < n; ++i) x[i] = float(i) * 0.5f;
  size_t bx = b->alloc(n * sizeof(float)), by = b->alloc(n * sizeof(float));
  b->upload(bx, x.data(), n * sizeof(float));
  b->fill(by, 0, n * sizeof(float));
  Launch l0{"ekb_k0", {4, 1, 1}, {256, 1, 1}}, l1{"ekb_k1", {4, 1, 1}, {256, 1, 1}};
  double ms = b->run({l0, l1}, {bx, by});
  EXPECT_GT(ms, 0.0);
  b->download(by, y.data(), n * sizeof(float));
  for (int i = 0; i < n; ++i) ASSERT_EQ(y[i], 2.0f * x[i] + 1.0f) << "at " << i;
  // Again, after a cache flush: the same input gives the same output.
  b->flush_cache();
  b->flush_cache();
  b->upload(by, std::vector<float>(n, 0.0f).data(), n * sizeof(float));
  EXPECT_GT(b->run({l0, l1}, {bx, by}), 0.0);
  b->download(by, y.data(), n * sizeof(float));
  EXPECT_EQ(y[999], 2.0f * x[999] + 1.0f);
}

TEST(OpenClBackend, BuffersOfZeroBytesAndFills) {
  std::string why;
  auto b = make("", &why);
  if (!b) GTEST_SKIP() << why;
  size_t empty = b->alloc(0);
  b->upload(empty, nullptr, 0);
  b->fill(empty, 0xab, 0);
  b->download(empty, nullptr, 0);
  size_t buf = b->alloc(37);
  b->fill(buf, 0xab, 37);
  std::vector<unsigned char> out(37);
  b->download(buf, out.data(), out.size());
  for (unsigned char c : out) ASSERT_EQ(c, 0xab);
  EXPECT_THROW(b->download(buf, out.data(), 38), GpuError);
  // A range from an offset on.
  b->fill(buf, 0x5c, 10, 20);
  std::vector<unsigned char> part(12);
  b->download(buf, part.data(), part.size(), 19);
  EXPECT_EQ(part[0], 0xab);
  for (size_t i = 1; i <= 10; ++i) EXPECT_EQ(part[i], 0x5c) << i;
  EXPECT_EQ(part[11], 0xab);
  EXPECT_THROW(b->download(buf, part.data(), 12, 26), GpuError);  // past the end
  EXPECT_THROW(b->fill(99, 0, 1), GpuError);
}

TEST(OpenClBackend, CompileErrorsComeBackWithTheirLine) {
  std::string why;
  auto b = make("", &why);
  if (!b) GTEST_SKIP() << why;
  try {
    b->compile("__kernel void ekb_k0(__global float* y) {\n  y[0] = undefined_name;\n}\n", "bad.cl", {"ekb_k0"});
    FAIL() << "the build succeeded";
  } catch (const GpuCompileError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.cl"), std::string::npos) << e.what();
    EXPECT_NE(e.log.find("undefined_name"), std::string::npos) << e.log;
    EXPECT_NE(e.log.find(":2:"), std::string::npos) << e.log;
    // The source is named as the caller named it, not as the implementation's temporary file.
    EXPECT_EQ(e.log.find("tempfile_"), std::string::npos) << e.log;
    if (b->device().platform.find("Portable Computing Language") != std::string::npos) {
      EXPECT_NE(e.log.find("bad.cl:2:"), std::string::npos) << e.log;
    }
  }
}

TEST(OpenClBackend, AnUnknownKernelNameThrows) {
  std::string why;
  auto b = make("", &why);
  if (!b) GTEST_SKIP() << why;
  try {
    b->compile(kTwoKernels, "two.cl", {"ekb_k0", "ekb_k7"});
    FAIL() << "ekb_k7 was found";
  } catch (const GpuCompileError& e) {
    EXPECT_NE(std::string(e.what()).find("'ekb_k7'"), std::string::npos) << e.what();
  }
  // A launch of a kernel the program was not asked for, or a work-group beyond the device's, is a GpuError.
  b->compile(kTwoKernels, "two.cl", {"ekb_k0"});
  size_t buf = b->alloc(4000);
  EXPECT_THROW(b->run({Launch{"ekb_k1", {1, 1, 1}, {1, 1, 1}}}, {buf, buf}), GpuError);
  uint32_t too_big = uint32_t(b->device().max_threads_per_block) * 2;
  try {
    b->run({Launch{"ekb_k0", {1, 1, 1}, {too_big, 1, 1}}}, {buf, buf});
    FAIL() << "a work-group of " << too_big << " ran";
  } catch (const GpuError& e) {
    EXPECT_NE(std::string(e.what()).find("CL_INVALID_"), std::string::npos) << e.what();
  }
}

TEST(OpenClBackend, NoSuchPlatformListsThePlatforms) {
  std::string why;
  auto any = make("", &why);
  if (!any) GTEST_SKIP() << why;
  EXPECT_EQ(make("no-such-platform", &why), nullptr);
  EXPECT_NE(why.find("no-such-platform"), std::string::npos) << why;
  EXPECT_NE(why.find(any->device().platform), std::string::npos) << why;
  // The match is case-insensitive.
  std::string upper = any->device().platform;
  for (char& c : upper) c = char(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_NE(make(upper, &why), nullptr) << why;
}

TEST(OpenClApi, ErrorNames) {
  EXPECT_EQ(cl_error_name(-5), "CL_OUT_OF_RESOURCES (-5)");
  EXPECT_EQ(cl_error_name(-54), "CL_INVALID_WORK_GROUP_SIZE (-54)");
  EXPECT_EQ(cl_error_name(-9999), "OpenCL error -9999");
}

}  // namespace
}  // namespace ekb::gpu
