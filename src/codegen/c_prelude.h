// The C text every generated kernel starts with: includes, the scalar helpers that give C the
// semantics of ekb (floor division, saturating float-to-int, bf16 bits), and per vector type the
// helpers of the vectorized code (splat, unaligned load/store, blend) plus vector exp, log, tanh,
// sigmoid and erf for f32, so vectorized softmax or GELU do not fall back to scalar libm calls.
#pragma once
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "codegen/dialect.h"

namespace ekb::codegen {

// A vector type used by a kernel: its lane type (a C scalar type name) and lane count.
struct VecType {
  std::string lane;  // "float", "double", "int64_t", "int32_t", "int16_t", "int8_t", "uint8_t", "uint16_t"
  int width;
  bool operator<(const VecType& o) const { return std::tie(lane, width) < std::tie(o.lane, o.width); }
};
// e.g. ekb_f32x16; its helpers are ekb_splat_f32x16, ekb_load_f32x16, ... (the name without "ekb_")
std::string vec_name(const VecType& v);
std::string vec_mask_lane(const std::string& lane);  // the integer lane type of masks for that lane type

// The prelude of a translation unit in dialect `d`: for C, the C library's declarations, the scalar
// helpers and the allocator; for GPU dialects, the helpers as device functions (the dialect's
// device_prelude, its fixed-width types and names, goes before them).
std::string c_prelude_scalar(const Dialect& d);
std::string c_prelude_helpers();  // the scalar helpers as `static inline` C
std::string c_prelude_alloc();    // ekb_alloc: aligned heap blocks (C only)
// Helpers for the vector types in `used` (and the mask types they need), in dependency order.
std::string c_prelude_vectors(const std::set<VecType>& used);
// The definitions of `prelude` (text from the functions above) that `code` uses, directly or through
// one another, in the prelude's order: a kernel's translation unit carries only what it calls, which
// keeps the compiler from parsing dozens of unused helpers (about 2 ms of every in-process compile).
std::string prelude_used_by(const std::string& prelude, const std::string& code);

}  // namespace ekb::codegen
