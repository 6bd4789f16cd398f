// The reference outputs of a program for a seed, cached on disk keyed by (hash of the kernel's
// canonical L0 text, seed), so the oracle runs once per task and seed on a machine.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "interp/tensor_data.h"
#include "ir/program.h"

namespace ekb {

// Where caches live: $EKB_CACHE_DIR, else $XDG_CACHE_HOME/ekb, else ~/.cache/ekb.
std::filesystem::path cache_root();

// The canonical L0 text of the program's kernel (no comments): what "the task's text" hashes.
std::string canonical_l0_text(const Program& p);
// 128-bit hash of that text, as 32 hex digits.
std::string l0_hash(const Program& p);

struct ReferenceResult {
  std::vector<TensorData> inputs;
  std::vector<TensorData> outputs;
  bool from_cache = false;
};

struct ReferenceOptions {
  bool use_cache = true;
  std::optional<std::filesystem::path> cache_dir;  // overrides cache_root()/"reference"
};

// Generates the inputs for `seed` and returns them with the interpreter's outputs.
ReferenceResult reference_outputs(const Program& p, uint64_t seed, const ReferenceOptions& opts = {});

}  // namespace ekb
