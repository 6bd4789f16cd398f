// The binary operators' spelling and precedence, in one table shared by the parser, the printer and
// the checker's messages (docs/ir.md, "Expressions", shows the same table).
#pragma once
#include "ir/ast.h"

namespace ekb {

// 1 (`||`, lowest) .. 10 (`*` `/` `%`); prefix operators bind at 11.
int precedence(BinOp op);
inline constexpr int kPrefixPrecedence = 11;
const char* spelling(BinOp op);
bool is_comparison(BinOp op);  // < <= > >= == != : these do not chain

}  // namespace ekb
