// Register-staged double buffering of shared-memory caches (`double_buffer CACHE`): while a block's
// threads compute on one copy of a panel, each thread has already loaded its part of the next panel
// into registers, and stores it into the other copy afterwards; one barrier per step instead of two,
// and the global loads' latency hidden behind the step's arithmetic.
#pragma once
#include <set>
#include <string>

#include "loops/loop_ir.h"

namespace ekb::lower {

struct DoubleBuffered {
  lir::StmtP body;    // the pipelined loop body (null on error)
  std::string error;  // what stood in the way
};

// `body` is the body of loop `var` (from 0 to `extent`) as realization made it: the allocations of
// the caches (and of any other buffer stored there) around a block [copies of the caches, barrier,
// the step's work, barrier]. `caches` are the shared buffers to double-buffer: every cache copied
// in this loop. The result: each cache with a leading dimension of two copies (step i uses copy
// i mod 2), its copy split into a load of step i + 1 into registers before the work and a store
// into the other copy after it, the first panel copied in step 0.
DoubleBuffered double_buffer_copies(const lir::StmtP& body, const std::string& loop_var, const lir::ExprP& extent,
                                    const std::set<std::string>& caches);

}  // namespace ekb::lower
