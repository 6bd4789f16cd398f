// The inputs every correct kernel must read whole, found by a static analysis of L0. It exists so
// that the harness can call a time impossible only with a proof (harness/time_verdict.h): bytes that
// a kernel must bring from memory, at the fastest rate this machine reads memory, take a time no
// honest kernel can beat. A flop count proves nothing (a kernel may compute less than the task's
// statement: an FFT for a DFT, skipped zeros, narrower arithmetic); bytes it may skip prove nothing
// either. So the analysis is sound, never complete: when in doubt it counts nothing.
//
// The rules (docs/ir.md, "Figures"):
//  - An input counts when some read of it lies on a non-absorbing path into a stage whose every
//    element is needed, and that read covers the input: each index is a distinct bare index variable
//    whose range equals that dimension's extent (a transpose is fine; a shifted, strided, windowed,
//    sliced or data-dependent index is not). A scalar input read by name covers itself. A read
//    whose tensor and index variables the stage reads again elsewhere counts nothing: an element
//    read twice at one point can cancel itself (`A[i] + B[i] - A[i]`; `X + (C - X) * s` is
//    X * (1 - s), which s = 1 absorbs); except where the other reads are in the branches of a
//    select whose condition holds it (`select(X > 0, X, 0.1 * X)`).
//  - A stage's elements are all needed when it is an output, or when it is read with such a covering
//    read on a non-absorbing path into a stage whose elements are all needed (a recurrence's reads
//    of its own earlier steps count for nothing). A stage read only partially makes nothing upstream
//    of it count.
//  - The path from a read to its stage's value is non-absorbing when no operation on it can make the
//    read's value irrelevant. Non-absorbing: `+ -`, unary `- ~ !`, `^`, comparisons, conversions,
//    `min max clamp abs sign`, the one-argument math functions (`exp`, `floor`, `round`...), `sum
//    max min` reductions over it, a division's numerator, a `select`'s condition. Absorbing unless
//    the other operand provably cannot be zero: either side of `*` and `&`, a division's
//    denominator, the body of a `prod` reduction (its other points are the other operand). Provably
//    nonzero: a finite nonzero constant, an input whose declared distribution excludes 0
//    (`positive(lo, hi)`, `uniform(lo, hi)` with lo > 0 or hi < 0, `int(lo, hi)` without 0,
//    `mixed(...)`, whenever the type holds its smallest magnitude as a normal number), and `-` or
//    `abs` of one of these. Always absorbing: a `select`'s branches, `&& ||`, `%`, `|` (unless with a
//    constant that is not all ones), a shift's amount (its value too unless shifted by a constant
//    within the type's width), `pow` (its base is fine with a nonzero constant exponent) and
//    `atan2`, an index of a read (a data-dependent index), and reads through a data-dependent
//    index themselves.
//  - Exact values: the analysis asks whether an element can change the exact result. Comparisons
//    and `min max clamp select` are taken to go both ways, which the suite's degeneracy rules check
//    on the harness's inputs (suite/degenerate.h: no select always taking one branch, no clamp that
//    never clamps, no output insensitive to an input). A kernel that estimates (a sum of positive
//    values from a sample of its terms) can pass the tolerance while reading less: the verdict's
//    margin (half) leaves room for any kernel that reads at least half of what is counted here.
#pragma once
#include <cstdint>
#include <vector>

#include "ir/program.h"

namespace ekb {

struct MustRead {
  std::vector<int> inputs;  // the inputs counted (tensor ids, in declaration order)
  int64_t bytes = 0;        // their bytes, each element once, in its declared type
};

MustRead must_read(const Program& p);

}  // namespace ekb
