// Input generation: deterministic per (task, seed, input), following each input's declared
// distribution in one of three shapes chosen by the seed (so that the harness's reference sets 1, 2
// and 3 differ in distribution, not only in values); f16/bf16/f32 values are rounded to their type at
// generation, so the float64 reference sees exactly what a candidate receives.
#pragma once
#include <cstdint>
#include <vector>

#include "interp/tensor_data.h"
#include "ir/program.h"

namespace ekb {

// The shape of the declared distribution for a seed: seeds 1, 4, 7... as declared; 2, 5, 8... pushed
// to the ends of the declared range; 3, 6, 9... gathered in its middle. The range never changes (a
// domain such as log's positive inputs holds in every shape); normal(mean, std) is widened 3x or
// narrowed to a quarter instead, and bernoulli(p) keeps p.
enum class InputShape { declared, ends, middle };
InputShape input_shape(uint64_t seed);
const char* input_shape_name(InputShape s);

// One input of `p`, for `seed`. Inputs are independent streams: changing one input's seed changes
// only that input.
TensorData generate_input(const Program& p, int tensor, uint64_t seed);
std::vector<TensorData> generate_inputs(const Program& p, uint64_t seed);

}  // namespace ekb
