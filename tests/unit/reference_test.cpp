// The on-disk reference cache, and the .npy writer.
#include <cstring>
#include <filesystem>
#include <fstream>

#include "interp/reference.h"
#include "util/npy.h"
#include "test_util.h"

namespace ekb::test {
namespace {

namespace fs = std::filesystem;

const char* kText = "kernel cache_me\n  dim N = 64\n  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = X[i] * X[i] + 1.0\n";

TEST(Reference, SecondCallComesFromTheCacheWithTheSameValues) {
  fs::path dir = fs::temp_directory_path() / ("ekb-ref-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto p = valid(kText);
  ASSERT_TRUE(p);
  ReferenceOptions o;
  o.cache_dir = dir;
  auto a = reference_outputs(*p, 5, o);
  EXPECT_FALSE(a.from_cache);
  auto b = reference_outputs(*p, 5, o);
  EXPECT_TRUE(b.from_cache);
  EXPECT_TRUE(a.outputs[0].same_values(b.outputs[0]));
  auto c = reference_outputs(*p, 6, o);  // another seed: another entry
  EXPECT_FALSE(c.from_cache);
  EXPECT_FALSE(a.outputs[0].same_values(c.outputs[0]));

  // A corrupted entry is recomputed, not trusted.
  for (const auto& e : fs::directory_iterator(dir)) {
    std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-8, std::ios::end);
    f.write("garbage!", 0);  // same size, but truncate below
    f.close();
    fs::resize_file(e.path(), fs::file_size(e.path()) - 8);
  }
  auto d = reference_outputs(*p, 5, o);
  EXPECT_FALSE(d.from_cache);
  EXPECT_TRUE(a.outputs[0].same_values(d.outputs[0]));
  fs::remove_all(dir);
}

TEST(Reference, CacheKeyIgnoresCommentsAndSchedules) {
  auto p = valid(kText);
  auto q = valid(std::string("# a comment\n") + kText + "schedule cpu\n  Y: parallel i\n");
  ASSERT_TRUE(p && q);
  EXPECT_EQ(l0_hash(*p), l0_hash(*q));
  auto r = valid("kernel cache_me\n  dim N = 64\n  in X : f32[N]\n  out Y : f32[N]\n  Y[i] = X[i] * X[i] + 2.0\n");
  ASSERT_TRUE(r);
  EXPECT_NE(l0_hash(*p), l0_hash(*r));
}

TEST(Npy, WritesAHeaderNumpyReads) {
  fs::path path = fs::temp_directory_path() / ("ekb-npy-" + std::to_string(::getpid()) + ".npy");
  TensorData t("T", DType::f32, {2, 3});
  for (int k = 0; k < 6; ++k) t.f[k] = k * 0.5;
  write_npy(path, t, false);
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(1, 5), "NUMPY");
  uint16_t hlen;
  std::memcpy(&hlen, bytes.data() + 8, 2);
  EXPECT_EQ((10 + hlen) % 64, 0);
  std::string header = bytes.substr(10, hlen);
  EXPECT_NE(header.find("'descr': '<f4'"), std::string::npos) << header;
  EXPECT_NE(header.find("'shape': (2, 3)"), std::string::npos) << header;
  ASSERT_EQ(bytes.size(), 10u + hlen + 24);
  float last;
  std::memcpy(&last, bytes.data() + 10 + hlen + 20, 4);
  EXPECT_EQ(last, 2.5f);
  TensorData v("V", DType::i8, {3});
  write_npy(path, v, true);
  std::ifstream in2(path, std::ios::binary);
  std::string b2((std::istreambuf_iterator<char>(in2)), {});
  EXPECT_NE(b2.find("'shape': (3,)"), std::string::npos);
  EXPECT_NE(b2.find("'descr': '|i1'"), std::string::npos);
  fs::remove(path);
}

}  // namespace
}  // namespace ekb::test
