// Type rules of L0 expressions that do not depend on names: see type_rules.cpp.
#pragma once
#include "ir/ast.h"
#include "util/diagnostics.h"

namespace ekb {

// The common type of two operands of `op`; weak (literal) operands adopt the other's type. Reports an
// error and returns false when they cannot be combined (bool with a number, ...).
bool combine_types(const Expr& a, const Expr& b, Loc loc, const char* op, DType& type, bool& weak, const SourcePtr& src,
                   DiagnosticList& d);

// Whether a value of type `from` may define output `name` of type `to` without an explicit conversion.
void check_assignable(const Expr& e, DType from, DType to, const std::string& name, const SourcePtr& src,
                      DiagnosticList& d);

// Gives every weak node below `e` the concrete type its position demands (`want` for `e` itself) and
// checks that integer literals fit it.
void settle_types(Expr& e, DType want, const SourcePtr& src, DiagnosticList& d);

}  // namespace ekb
