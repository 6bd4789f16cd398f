// The distribution an imported task declares for an input, fitted to values the model holds (its
// weights) or computes (the activations a node reads): docs/import.md states the rule.
#pragma once
#include <string>

#include "interp/tensor_data.h"

namespace ekb::onnx_io {

// `~ ...` text for a tensor of these values (at least one element, not all equal for floats):
//   integers: int(min, max); bool: bernoulli(share of true);
//   floats all > 0: positive(min, max); all >= 0 with a 0: uniform(0, max);
//   else uniform(min, max) when the values look uniform (at least 16 of them, excess kurtosis
//   below -0.8: a uniform's is -1.2, a normal's 0), normal(mean, std) otherwise.
std::string fit_distribution(const TensorData& t);

// Whether every element of `t` is the same (such a weight is written as a literal, not an input).
bool all_equal(const TensorData& t);

}  // namespace ekb::onnx_io
