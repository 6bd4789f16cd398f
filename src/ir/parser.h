// Parsing .ekb text into a Module. Syntax errors are collected (the parser skips to the next line
// and goes on), so one run reports every one of them.
#pragma once
#include "ir/ast.h"
#include "util/diagnostics.h"

namespace ekb {

Module parse_module(const SourcePtr& src, DiagnosticList& diags);

// Words that cannot name a tensor, dim, constant or index variable.
bool is_reserved_word(const std::string& name);

// Built-in function lookup by name (casts excluded); nullopt when `name` is not a function.
std::optional<Fn> function_from_name(const std::string& name);
const char* function_name(Fn fn);

}  // namespace ekb
