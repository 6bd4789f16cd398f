// The launch contract of a GPU program: which kernels run, in order, with which grid and block
// sizes, and which scratch buffers the host allocates for them. Every kernel takes every buffer as a
// parameter: the task's inputs, then its outputs, then the scratch buffers, in that order. The
// contract is written in the program's source, in a comment, one line per item:
//
//   @launch ekb_k0 grid(64,1,1) block(256,1,1)
//   @scratch M 1024
//
// ekb's printer writes it; a raw .cu or .cl submission writes it itself (`ekb show TASK --abi cuda`).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/gpu/gpu_backend.h"

namespace ekb::gpu {

struct Scratch {
  std::string name;
  uint64_t bytes = 0;
};

struct LaunchContract {
  std::vector<Launch> launches;
  std::vector<Scratch> scratch;
  uint64_t scratch_bytes() const;
  std::vector<std::string> kernel_names() const;  // each kernel once, in first-launch order
};

// The contract's lines, each prefixed with `prefix` (" * " inside a block comment).
std::string format_launch_contract(const LaunchContract& c, const std::string& prefix);

// Reads the @launch and @scratch lines of `source`. Throws std::runtime_error naming the line and
// what is wrong (a malformed line, a zero size, no @launch line at all).
LaunchContract parse_launch_contract(const std::string& source);

}  // namespace ekb::gpu
