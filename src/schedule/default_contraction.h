// The default schedule's register tiles for contractions on the cpu (default_cpu.cpp): a stage that
// sums products of two reads — a matrix product, a convolution, a batched or attention product, a
// depthwise convolution — where one read (B) runs contiguously along the stage's innermost pure
// variable n and the other (A) does not move with it, while some other pure variable m moves A but
// not B. A tile of MI x NI outputs (NI a few vector registers along n, MI rows along m) accumulates
// over all of the reduction in registers: per step MI broadcasts of A, NI / lanes loads of B and
// MI x NI / lanes fused multiply-adds, instead of a load and a store of the output per product.
// When B is a plain [.., K, N] input and the product is large, B is packed in panels of NI columns
// (each panel contiguous, packed by the thread that uses it). When the stage's only reader is
// element-wise at its own point (a bias and an activation), the tile is the reader's and the sum is
// computed at each of its tiles, so the sum never goes to memory.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "loops/graph.h"
#include "target/target.h"

namespace ekb::default_schedule {

struct Contraction {
  std::string m, n;        // the tile's variables: rows (moves A only) and columns (contiguous in B)
  size_t mi = 0, ni = 0;   // their positions in the stage's variables
  int lanes = 1;
  int64_t rows = 1, cols = 1;  // MI and NI
  std::string b_input;     // B, when it is an input read as B[..., k, n] (packable), else ""
  int b_dim = 0;           // the dimension of B that n indexes
  bool pack = false;
};

// The stage's register tile, if it is a contraction the rule applies to.
std::optional<Contraction> find_contraction(const lower::Graph& g, const lower::LStage& s, const Target& t);

// The directives of the tile on the stage itself (`s` at the root, accumulating in a local tile:
// cache_write local). `l1` gets the stage's and its local stage's lines, `l2` its memory line and
// the pack's; `outer` receives the stage's pure loops outside the tile, outermost first, and
// `schedule_of` lines for created stages.
struct TilePlan {
  std::vector<std::string> dirs;                 // the stage's L1 directives (without parallel)
  std::vector<std::pair<std::string, std::vector<std::string>>> created;  // L1 lines of stages the tile creates
  std::vector<std::string> memory;               // the stage's L2 directives
  std::vector<std::pair<std::string, std::string>> created_memory;        // L2 lines of created stages
  std::vector<std::string> outer;                // pure loops outside the tile, outermost first
};
TilePlan tile_at_root(const lower::LStage& s, const Contraction& c);

// The tile on the stage's element-wise reader `y` (same variables in the same positions), the sum
// computed at each of its tiles: `y_dirs` for the reader, `s_dirs` for the sum, and the reader's
// loop the sum is computed at.
struct FusedTilePlan {
  std::vector<std::string> y_dirs, s_dirs;
  std::string at;
  std::vector<std::string> outer;  // the reader's pure loops outside the tile
};
FusedTilePlan tile_at_reader(const lower::LStage& s, const lower::LStage& y, const Contraction& c);

}  // namespace ekb::default_schedule
