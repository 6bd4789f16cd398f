// Checking an input's declared distribution (or choosing its default) into a DistSpec.
#pragma once
#include <optional>

#include "ir/ast.h"
#include "ir/const_eval.h"
#include "ir/program.h"
#include "util/diagnostics.h"

namespace ekb {

// The distribution of input `t`: its `~ ...` checked (known kind, arguments, range fits the type),
// or the default for its type. Reports errors and returns nullopt when invalid.
std::optional<DistSpec> check_distribution(const TensorStmt& t, const ConstLookup& lookup, const SourcePtr& src,
                                          DiagnosticList& d);

}  // namespace ekb
