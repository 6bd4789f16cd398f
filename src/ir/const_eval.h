// Folding of constant expressions: dims, consts, shapes, extents and distribution arguments.
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "ir/ast.h"
#include "util/diagnostics.h"

namespace ekb {

struct ConstValue {
  bool is_float = false;
  int64_t i = 0;
  double f = 0;
  double as_double() const { return is_float ? f : static_cast<double>(i); }
};

// Looks up a name in a constant expression (a dim or a const); nullopt when unknown.
using ConstLookup = std::function<std::optional<ConstValue>(const std::string&)>;

// Evaluates `e`, reporting errors (unknown names, overflow, division by zero, non-constant parts)
// against `src`; `what` names the context in messages ("the extent of `k`").
std::optional<ConstValue> eval_const(const Expr& e, const ConstLookup& lookup, const SourcePtr& src,
                                     DiagnosticList& diags, const std::string& what);

}  // namespace ekb
