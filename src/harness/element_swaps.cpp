// Element swaps (element_swaps.h).
#include "harness/element_swaps.h"

#include <algorithm>
#include <cstring>

namespace ekb {

namespace {
constexpr size_t kSwaps = 256;
constexpr size_t kMaxElement = 16;

void swap_bytes(unsigned char* x, unsigned char* y, size_t es) {
  unsigned char tmp[kMaxElement];
  std::memcpy(tmp, x, es);
  std::memcpy(x, y, es);
  std::memcpy(y, tmp, es);
}
}  // namespace

void swap_some_elements(void* data, size_t bytes, size_t es, std::mt19937_64& rng) {
  size_t n = es ? bytes / es : 0;
  if (n < 2 || es > kMaxElement) return;
  auto* b = static_cast<unsigned char*>(data);
  for (size_t k = 0, swaps = std::min(n / 2, kSwaps); k < swaps; ++k) {
    size_t i = rng() % n, j = rng() % n;
    swap_bytes(b + i * es, b + j * es, es);
  }
}

void exchange_some_elements(void* a, void* b, size_t bytes, size_t es, std::mt19937_64& rng) {
  size_t n = es ? bytes / es : 0;
  if (n < 1 || es > kMaxElement) return;
  auto* x = static_cast<unsigned char*>(a);
  auto* y = static_cast<unsigned char*>(b);
  for (size_t k = 0, swaps = std::min(std::max<size_t>(n / 2, 1), kSwaps); k < swaps; ++k) {
    size_t i = rng() % n, j = rng() % n;
    swap_bytes(x + i * es, y + j * es, es);
  }
}

}  // namespace ekb
