// Row groups of the default GPU schedule (default_gpu.cpp): which stages are computed inside
// another stage's rows instead of in kernels of their own. A row group is a stage at the root
// without a reduction of its own (the anchor: softmax's or layer norm's output) whose outer
// `outer` loops are its rows, with the intermediate stages that are read only inside those rows,
// one value per row: reductions (softmax's max and sum, layer norm's mean and variance, an L2 norm)
// and per-row values computed from them. They are computed for each row inside the anchor's block,
// the reductions shared by the row's threads, so the chain is one launch and its rows are read
// from memory once, not once per kernel. Element-wise stages that only the group reads, once per
// element and reader (softmax's exp, a mask's select), are recomputed by their readers (inlined)
// rather than stored and read back: a few instructions against a round trip through memory.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "schedule/default_common.h"
#include "schedule/default_gpu_shapes.h"

namespace ekb::default_schedule {

struct RowGroup {
  std::string anchor;
  size_t outer = 0;                  // the anchor's leading variables that index its rows (>= 1)
  std::vector<std::string> members;  // computed at the anchor's row loop, producers first
  int64_t rows = 1, row_len = 1;     // the anchor's points: rows x row_len
  int reductions = 0;                // members with a reduction (float, shared by the row's threads)
  int value_bytes = 4;               // the widest type among those reductions
};

// The row groups of `sim` (the graph with the inlined stages gone). The element-wise stages that
// only a group reads, once per element and reader, are inlined first: in `sim`, in `plan` (an
// `inline` line) and in `inlined`.
std::vector<RowGroup> find_row_groups(Graph& sim, Plan& plan, std::set<std::string>& inlined);

// A row group's L1 lines for layout `l` (the agent varies it): the anchor's rows (its first `outer`
// variables, fused) on blocks, or `l.rows_per_block` rows per block on thread.y, its columns (the
// rest, fused) over each row's threads on thread.x, each thread looping over the rest; each member
// with a reduction spreads it over the same threads. `at` is the anchor's loop the members are
// computed at (the row's), `inner` its innermost loop (a point's).
struct RowGroupLines {
  std::vector<std::string> anchor;
  std::vector<std::pair<std::string, std::vector<std::string>>> members;  // (stage, its L1 directives)
  std::string at, inner;
};
RowGroupLines row_group_lines(const LStage& anchor, size_t outer, const std::vector<const LStage*>& members, const RowLayout& l);

// The directives that spread loop `col` over `threads` threads on thread.x, consecutive threads on
// consecutive iterations, each thread looping over the rest (`col`_o inside `col`_t).
void spread_over_threads(const std::string& col, int64_t threads, std::vector<std::string>& dirs);
// The directives that put loop `row` (of `rows` iterations) on blocks, or `rows_per_block` of its
// iterations per block on thread.y (all of them in one block: no loop on blocks); the innermost loop
// they leave bound to a row.
std::string bind_rows(const std::string& row, int64_t rows, int64_t rows_per_block, std::vector<std::string>& dirs);

}  // namespace ekb::default_schedule
