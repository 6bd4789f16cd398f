// Block shapes of the default GPU schedule (default_gpu_shapes.h).
#include "schedule/default_gpu_shapes.h"

#include <algorithm>

namespace ekb::default_schedule {

namespace {

int64_t pow2_floor(int64_t n) {
  int64_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

int64_t pow2_ceil(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

// The most threads a block may have: the target's limit, as a power of two (a tree halves evenly).
int64_t block_cap(const Target& t) { return pow2_floor(std::max<int64_t>(1, t.max_threads_per_block)); }

// Row layouts aim at this many threads per block (several short rows per block), and a long row's
// threads at about this many elements each.
constexpr int64_t kRowBlockThreads = 256;
constexpr int64_t kMaxRowThreads = 512;
constexpr int64_t kElementsPerRowThread = 8;
constexpr int64_t kWarpRowMax = 256;  // rows up to this long get a warp (or less)

}  // namespace

int64_t point_threads(int64_t points, const Target& t) {
  int64_t threads = std::min(kPointThreads, block_cap(t));
  while (threads > kMinPointThreads && points < threads * kMinBlocks) threads /= 2;
  return std::max<int64_t>(1, std::min(threads, points));
}

int64_t elements_per_thread(int64_t points) {
  if (points >= (int64_t{1} << 20)) return 4;
  if (points >= (int64_t{1} << 18)) return 2;
  return 1;
}

RowLayout row_layout(int64_t rows, int64_t row_len, int reductions, int value_bytes, const Target& t) {
  RowLayout l;
  if (row_len < kMinSharedReduction) {
    l.rows_per_block = point_threads(rows, t);
    return l;
  }
  // The block's threads: the target's cap, and the shared memory of its reduction trees.
  int64_t cap = block_cap(t);
  const int64_t per_thread = int64_t{2} * std::max(4, value_bytes) * std::max(1, reductions);
  while (cap > 1 && cap * per_thread > t.shared_memory_per_block) cap /= 2;
  if (row_len > kWarpRowMax) {  // a block per row
    l.row_threads = std::max<int64_t>(t.warp_size, pow2_ceil((row_len + kElementsPerRowThread - 1) / kElementsPerRowThread));
    l.row_threads = std::min({l.row_threads, kMaxRowThreads, cap});
    return l;
  }
  l.row_threads = std::min<int64_t>({t.warp_size, pow2_ceil(row_len), cap});
  // Rows per block: the largest divisor of the rows that keeps the block within kRowBlockThreads.
  int64_t most = std::max<int64_t>(1, std::min(kRowBlockThreads, cap) / l.row_threads);
  for (int64_t d = std::min(most, rows); d >= 1; --d)
    if (rows % d == 0) {
      l.rows_per_block = d;
      break;
    }
  return l;
}

}  // namespace ekb::default_schedule
