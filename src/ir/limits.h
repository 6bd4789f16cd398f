// How deep and large a program may grow: expressions in L0 and once lowered, and loop nests. Every
// pass over a program (checker, printer, interpreter, lowering, code generation) recurses over its
// trees, so they are kept shallow where they are made: the parser and checker reject deeper L0
// text, the schedule's replay deeper loop nests, and inlining (the `inline` directive, the default
// schedule) refuses, or stops, before a lowered expression grows past its limits. docs/ir.md
// ("Expressions", **Depth**) states the rules.
#pragma once
#include <cstdint>

namespace ekb {

// An L0 expression nests at most this many levels: a name or a number is one level, an operator,
// call, tensor read or reduction one more than its deepest operand (a chain `a + b + c` nests one
// level per operator), and parentheses nest at most this deep too. The suite's deepest expression
// has 11 levels. ekb's own stack is not what bounds it: at these limits the deepest walk (the
// checker, the C printer) uses about 110 KiB of stack in a RelWithDebInfo build and 440 KiB in a
// Debug one (up to 6 KiB a level), of the 8 MiB a thread has. The C compilers ekb feeds are: clang
// (in process, and in PoCL) accepts at most 256 nested parentheses, and the C printer spends up to
// two per lowered level (`((int8_t)((uint32_t)a + (uint32_t)b))`, a vector select's
// `({ ... ekb_blend(m, a, b); })`).
inline constexpr int kMaxExprDepth = 64;

// Inlining (the `inline` directive, the default schedule) stops where a lowered (loop-IR) expression
// would nest deeper than this, which keeps the generated C within those 256 parentheses. A stage
// lowers about as deep as it is written (the type rules add a conversion where a type widens), so
// an L0 expression within kMaxExprDepth leaves room for a few levels of inlining.
inline constexpr int kMaxLoweredDepth = 96;

// A lowered expression holds at most this many operations, counted as a tree (a stage inlined at
// two reads counts twice, and the C text repeats it): inlining a stage that reads its producer
// twice doubles the size, so a chain of such stages would grow exponentially. The suite's largest
// inlined, lowered expression holds 336; C compilers take about a second for one of this size made
// of vectorized selects (each a masked read per lane).
inline constexpr int64_t kMaxLoweredNodes = 512;

// Loop nests are trees too: a tensor has at most kMaxRank dimensions, a stage at most kMaxStageVars
// index variables (its left side's and every reduction's), and its schedule at most kMaxLoops loops
// (splits and tiles add loops), counting those of the stages it is computed inside.
inline constexpr int kMaxRank = 16;
inline constexpr int kMaxStageVars = 32;
inline constexpr int kMaxLoops = 64;

}  // namespace ekb
