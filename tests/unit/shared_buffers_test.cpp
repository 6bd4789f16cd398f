// The argument slots shared with a worker (harness/shared_buffers.h): both sides' pages are given
// their memory in turn and keep their content; outputs compare byte for byte across the two sides.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness/shared_buffers.h"
#include "ir/check.h"
#include "runtime/kernel_args.h"
#include "util/source.h"

namespace ekb {
namespace {

std::shared_ptr<Program> program() {
  static std::shared_ptr<Program> p = load_program(std::make_shared<SourceFile>("copy.ekb", R"(kernel copy
  dim N = 65536
  in X : f32[N]
  out Y : f32[N]
  Y[i] = X[i]
)"));
  return p;
}

// How many of the pages in [p, p + n) are resident.
size_t resident_pages(const void* p, size_t n) {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> v((n + page - 1) / page);
  EXPECT_EQ(mincore(const_cast<void*>(p), n, v.data()), 0);
  size_t k = 0;
  for (unsigned char c : v) k += c & 1;
  return k;
}

HostBuffer ramp(float from) {
  HostBuffer h(DType::f32, {65536});
  for (int i = 0; i < 65536; ++i) static_cast<float*>(h.data())[i] = from + static_cast<float>(i);
  return h;
}

TEST(SharedBuffers, BothSidesPagesAreFaultedInAndKeepTheirContent) {
  SharedBuffers a(*program(), 2), b(*program(), 2);
  size_t pages = a.bytes() / static_cast<size_t>(sysconf(_SC_PAGESIZE));
  // Only the guard zones are written at first: most data pages have no memory yet.
  ASSERT_LT(resident_pages(a.mapped(), a.bytes()), pages / 2);
  a.write_inputs(0, {ramp(1)});
  SharedBuffers::fault_in_alternately(a, b);
  EXPECT_EQ(resident_pages(a.mapped(), a.bytes()), pages);
  EXPECT_EQ(resident_pages(b.mapped(), b.bytes()), pages);
  EXPECT_TRUE(a.inputs_equal(0, {ramp(1)}));
  EXPECT_TRUE(a.guards_intact());
  EXPECT_TRUE(b.guards_intact());
}

TEST(SharedBuffers, OutputsAreIdenticalOnlyWhenEveryByteIs) {
  SharedBuffers a(*program(), 2), b(*program(), 2);
  a.poison_outputs(1, 0);
  b.poison_outputs(1, 0);
  EXPECT_TRUE(a.outputs_identical(1, b));
  a.write_inputs(1, {ramp(0)});  // inputs are not outputs: they do not count
  EXPECT_TRUE(a.outputs_identical(1, b));
  // One byte of the last element's output differs.
  unsigned char* last = b.mapped() + b.layout()[1][1].get<size_t>() + 65536 * 4 - 1;
  *last ^= 1;
  EXPECT_FALSE(a.outputs_identical(1, b));
}

}  // namespace
}  // namespace ekb
