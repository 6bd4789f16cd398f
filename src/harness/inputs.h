// Input generation: deterministic per (task, seed, input), following each input's declared
// distribution; f16/bf16/f32 values are rounded to their type at generation, so the float64
// reference sees exactly what a candidate receives.
#pragma once
#include <cstdint>
#include <vector>

#include "interp/tensor_data.h"
#include "ir/program.h"

namespace ekb {

// One input of `p`, for `seed`. Inputs are independent streams: changing one input's seed changes
// only that input.
TensorData generate_input(const Program& p, int tensor, uint64_t seed);
std::vector<TensorData> generate_inputs(const Program& p, uint64_t seed);

}  // namespace ekb
