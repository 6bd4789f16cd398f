// Inlining a stage into the expressions that read it, shared by the `inline` directive and the
// default schedule, and the measure that keeps the result within ir/limits.h: a consumer grows by
// its producer's depth at each read, and by the producer's size once per read.
#pragma once
#include <cstdint>
#include <string>

#include "loops/graph.h"

namespace ekb::lower {

// `consumer` with every read of `producer` replaced by the producer's value at the read's indices (a
// reduction becomes a nested reduction whose variables are renamed per read; `site` numbers the
// reads across the kernel, for unique names).
lir::ExprP inline_reads(const lir::ExprP& consumer, const LStage& producer, int& site);

// How deep a lowered expression nests and how many operations it holds, counted as a tree (an
// expression shared by two reads counts twice); `nodes` stops counting past kMaxLoweredNodes.
struct ExprSize {
  int depth = 0;
  int64_t nodes = 0;
};
ExprSize expr_size(const lir::ExprP& e);
bool within_limits(const ExprSize& s);

// What inlining `producer` into every stage of `g` that reads it would break: empty when every
// result stays within the limits, else a sentence naming the first consumer that would not
// ("the expression of `Y` would nest 140 levels deep, more than 128"). `results` receives the
// inlined values, by stage index, for the caller to keep.
std::string try_inline(const Graph& g, const LStage& producer, int& site, std::vector<std::pair<int, lir::ExprP>>* results);

}  // namespace ekb::lower
