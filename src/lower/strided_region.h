// Regions with gaps, for stages cached per thread. Bounds inference gives a stage computed inside a
// loop the box of what that loop's body reads. When a GPU thread's register tile owns strided
// columns (thread t of a warp owns columns t*4 + {0..3} and 64 + t*4 + {0..3}, so that neighbouring
// threads read neighbouring pieces of a shared panel), that box is 68 columns wide for 8 points:
// 8.5 times the registers and work. Here the reads are solved exactly instead: when every read of
// the stage has, in some dimension, the index `base + sum of c_v * v` over the loops v inside the
// body, with constant coefficients whose ranges nest without overlapping (each stride a multiple of
// the span below it), the region in that dimension is those points, stored densely.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "loops/loop_ir.h"

namespace ekb::lower {

// One run of equally spaced points: `extent` of them, `stride` apart.
struct Piece {
  int64_t stride, extent;
};

// The points of one dimension: base + sum over pieces of digit_p * stride_p, digit_p < extent_p,
// pieces ordered by stride (the first varies fastest in the dense numbering).
struct StridedDim {
  lir::ExprP base;
  std::vector<Piece> pieces;
  int64_t count() const;
  // Offset from `base` of point number `dense` (0 <= dense < count()).
  lir::ExprP expand(const lir::ExprP& dense) const;
};

// For each dimension of `buffer`: the points `body` reads when they have gaps (nullopt where the
// reads are a box, or cannot be solved; then bounds inference's box applies). Nullopt overall when
// no dimension has gaps or some read cannot be solved. Loops inside `body` need constant extents.
std::optional<std::vector<std::optional<StridedDim>>> strided_reads(const lir::StmtP& body, const std::string& buffer);

// `body` with every load of `buffer` indexed densely in the strided dimensions (point number
// instead of coordinate), matching a buffer that stores StridedDim::count() points there.
lir::StmtP pack_strided_loads(const lir::StmtP& body, const std::string& buffer,
                              const std::vector<std::optional<StridedDim>>& dims);

}  // namespace ekb::lower
