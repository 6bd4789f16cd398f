// Bounds inference: the box of a buffer that a statement reads and/or writes, as expressions in the
// variables bound outside the statement (loops inside it range over their extents). This is how a
// stage computed inside another stage's loop learns which region to compute, and how a buffer's
// size is found. Unknown bounds stay null: callers fall back to the whole tensor, which is always
// correct.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "loops/loop_ir.h"
#include "lower/simplify.h"

namespace ekb::lower {

struct SymInterval {
  lir::ExprP lo, hi;  // inclusive; null = unbounded
};
using Box = std::vector<SymInterval>;

// The numeric range of values a load of `buffer` can return (integer inputs with a declared
// distribution), used when an index is read from data.
using ValueRange = std::function<std::optional<Range>(const std::string& buffer)>;

// The box of `buffer` touched by `s`; nullopt when `s` does not touch it.
std::optional<Box> box_touched(const lir::StmtP& s, const std::string& buffer, bool loads, bool stores,
                               const ValueRange& value_range);

}  // namespace ekb::lower
