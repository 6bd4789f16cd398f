// The default schedule: the baseline every candidate is measured against, what a reasonable compiler
// does untuned. Deterministic; written as ordinary L1/L2 text, so it goes through the same primitives
// (and `ekb compile --schedule default --emit schedule` shows it).
//  - intermediate stages without a reduction are inlined into their readers (unless they are costly
//    and read at several places, or a reader would grow past the limits of ir/limits.h: then the
//    stage keeps loops of its own);
//  - a stage with a reduction read by one consumer at its own point is computed inside that
//    consumer's loops (fusion; a long chain of such stages starts again at the root before its
//    loops nest deeper than ir/limits.h allows), otherwise at the root;
//  - on cpu, every stage at the root runs its outermost pure loop in parallel (fusing the two
//    outermost when the first is short) and vectorizes its innermost pure loop, the contiguous one,
//    by one vector register of the target's ISA (8 f32 lanes on AVX2, 16 on AVX-512, 4 on NEON;
//    none on a CPU without a vector unit);
//  - on cuda and opencl (default_gpu.cpp, docs/baseline.md), a chain whose reductions are read per
//    row by an element-wise stage (softmax, layer norm) is one kernel: a block per row, or several
//    short rows per block, the row's columns over its threads, the reductions computed in the block
//    for each row and shared by the row's threads (default_gpu_rows.h); a float reduction at the
//    root that is read along its length, or long into few points, is shared by threads the same way;
//    every other stage at the root gets a thread per point (its pure loops fused), in blocks of 256
//    or fewer threads when the points are few, several points per thread for a large streaming
//    stage; the shapes' figures are in default_gpu_shapes.h.
#pragma once
#include <string>

#include "ir/program.h"
#include "loops/graph.h"
#include "target/target.h"

namespace ekb {

std::string default_schedule_text(const Program& p, const Target& target);

namespace default_schedule {
// Each backend's rules over the program's stage graph (default_cpu.cpp, default_gpu.cpp).
std::string cpu_default_schedule(const lower::Graph& g, const Target& target);
std::string gpu_default_schedule(const lower::Graph& g, const Target& target);
}  // namespace default_schedule

}  // namespace ekb
