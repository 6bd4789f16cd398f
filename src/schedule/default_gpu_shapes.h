// The block shapes of the default GPU schedule (default_gpu.cpp) and the figures they are decided
// by, in one place: threads per block for a stage with one thread per point, elements per thread
// for a streaming element-wise stage, whether a reduction is long enough to share among threads,
// and the layout of rows whose reductions a row's threads share (threads per row, rows per block).
// Every shape stays within the target's limits (threads and shared memory per block). They depend
// on the sizes and those limits only (not on the device's multiprocessor count), so `ekb compile
// --backend cuda` shows the schedule an H200 profile's baseline runs.
#pragma once
#include <cstdint>

#include "target/target.h"

namespace ekb::default_schedule {

// Threads per block of a stage with a thread per point: 256, halved down to 64 while the points
// would fill fewer than kMinBlocks blocks (a small grid of heavy threads spreads over more of a large
// GPU's multiprocessors), never more than the points or the target allows.
inline constexpr int64_t kPointThreads = 256;
inline constexpr int64_t kMinPointThreads = 64;
inline constexpr int64_t kMinBlocks = 128;
int64_t point_threads(int64_t points, const Target& t);

// Elements per thread of a streaming element-wise stage (no reduction in its value), each a block's
// width apart (every access stays coalesced): 4 from 2^20 points, 2 from 2^18, else 1. On the H200,
// 4 elements per thread in blocks of 256 moved 4.08 TB/s on 64M floats against 2.70 for one
// (bench/results/gpu_h200.md); below a few blocks per multiprocessor the grid would thin out.
int64_t elements_per_thread(int64_t points);

// A reduction is shared by threads only when it is long enough: at least kMinSharedReduction terms.
inline constexpr int64_t kMinSharedReduction = 8;

// How rows (points of a reduction, and the consumer points that read them) are spread over a block.
struct RowLayout {
  int64_t row_threads = 1;     // threads per row, on thread.x (1: a thread per row, its reductions serial)
  int64_t rows_per_block = 1;  // rows per block, on thread.y (a divisor of the rows: no guarded tail
                               // around a cross-thread reduction); with row_threads 1, the block's threads
  int64_t threads() const { return row_threads * rows_per_block; }
};
// `rows` rows of `row_len` elements each, with `reductions` cross-thread reductions per block whose
// values take `value_bytes`:
//  - rows shorter than kMinSharedReduction: a thread per row (point_threads of them per block);
//  - up to 256 elements: a warp (32 threads) per row, or the power of two that covers a shorter
//    one, several rows per block (up to 256 threads);
//  - longer: a thread per 8 elements or so (a power of two, at least 32, at most 512), a block per row.
// Threads per row and per block are capped by the target's threads per block, and by its shared
// memory: each cross-thread reduction takes two values per thread of the block (the printer's tree).
RowLayout row_layout(int64_t rows, int64_t row_len, int reductions, int value_bytes, const Target& t);

}  // namespace ekb::default_schedule
