// Work figures computed from L0, never typed by hand: the arithmetic operation count ("flops") and
// the minimum bytes a kernel must move (each input read once, each output written once; an input
// read only through data-dependent indices counts nothing: a gather may read one row many times).
#pragma once
#include <cstdint>

#include "ir/program.h"

namespace ekb {

struct Figures {
  double flops = 0;     // arithmetic operations (docs/ir.md, "Figures")
  int64_t bytes = 0;    // minimum bytes moved
  int stages = 0;
};

Figures compute_figures(const Program& p);

}  // namespace ekb
