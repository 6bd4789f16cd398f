// Work figures computed from L0, never typed by hand: the arithmetic operation count ("flops"), the
// bytes the task's statement moves (each input read once, each output written once; an input read
// only through data-dependent indices counts nothing: a gather may read one row many times), and
// the bytes every correct kernel must read (must_read.h). Only the last is a lower bound on what a
// kernel does: a kernel may compute fewer flops than stated (a faster algorithm, skipped zeros,
// narrower arithmetic) and skip inputs that the statement reads.
#pragma once
#include <cstdint>

#include "ir/program.h"

namespace ekb {

struct Figures {
  double flops = 0;             // arithmetic operations as stated (docs/ir.md, "Figures")
  int64_t bytes = 0;            // inputs read once and outputs written once, as stated
  int64_t must_read_bytes = 0;  // the inputs every correct kernel must read whole (must_read.h)
  int stages = 0;
};

Figures compute_figures(const Program& p);

}  // namespace ekb
