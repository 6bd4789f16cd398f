// Simplification of loop-IR index expressions: constants folded, sums of constant multiples
// collected (so `(mo * 64 + 63) - mo * 64 + 1` becomes 64), floor division and modulo by constants
// resolved where the ranges of the variables allow, min/max decided where ranges prove one side.
#pragma once
#include <map>
#include <optional>
#include <string>

#include "loops/loop_ir.h"

namespace ekb::lower {

struct Range {
  int64_t lo, hi;  // inclusive
};

// Known numeric ranges of variables (loop variables and lets) at some point of the program.
class RangeScope {
 public:
  void set(const std::string& v, Range r) { ranges_[v] = r; }
  void erase(const std::string& v) { ranges_.erase(v); }
  std::optional<Range> get(const std::string& v) const;

 private:
  std::map<std::string, Range> ranges_;
};

// The numeric range of an integer expression, or nullopt when unbounded (unknown variables, data,
// overflow).
std::optional<Range> numeric_range(const lir::ExprP& e, const RangeScope& scope);

lir::ExprP simplify(const lir::ExprP& e, const RangeScope& scope);
inline lir::ExprP simplify(const lir::ExprP& e) { return simplify(e, RangeScope{}); }

// Does `e` mention variable `v`?
bool uses_var(const lir::ExprP& e, const std::string& v);

}  // namespace ekb::lower

namespace ekb::lower {
// Writes an i64 expression as coef * v + rest with `rest` free of `v`; nullopt when `v` appears
// non-linearly.
std::optional<std::pair<int64_t, lir::ExprP>> solve_for(const lir::ExprP& e, const std::string& v);
}  // namespace ekb::lower
