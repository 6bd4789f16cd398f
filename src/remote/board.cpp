// A board's target (board.h).
#include "remote/board.h"

namespace ekb {

Target board_target(const Board& b, int threads) {
  Target t;
  t.backend = Backend::cpu;
  t.arch = b.arch;
  set_isa(t, b.isa.value_or(arch_info(b.arch).default_isa));
  t.threads = std::max(1, threads);
  if (b.l1_bytes > 0) t.l1_bytes = b.l1_bytes;
  if (b.l2_bytes > 0) t.l2_bytes = b.l2_bytes;
  if (b.l3_bytes > 0) t.l3_bytes = b.l3_bytes;
  return t;
}

}  // namespace ekb
