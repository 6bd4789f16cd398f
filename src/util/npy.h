// Writing tensors as NumPy .npy files (format version 1.0), so that references can be inspected
// with numpy or compared with other tools.
#pragma once
#include <filesystem>

#include "interp/tensor_data.h"

namespace ekb {

// Float tensors are written as float64 when `as_float64` (reference outputs), else in their dtype
// (f32 as <f4, f16 as <f2, bf16 as <f4 since numpy has no bfloat16). Integers and bool use their
// dtype. Throws std::runtime_error naming the path on failure.
void write_npy(const std::filesystem::path& path, const TensorData& t, bool as_float64);

}  // namespace ekb
