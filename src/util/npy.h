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

// Reads a .npy file (format 1.0 to 3.0, little-endian, C order) of a type write_npy writes (<f8, <f4,
// <f2, <i8, <i4, <i2, |i1, |u1, |b1) as a tensor of that type named `name` (f8 -> f64, f4 -> f32,
// f2 -> f16, b1 -> bool). Throws std::runtime_error naming the path and what is wrong.
TensorData read_npy(const std::filesystem::path& path, const std::string& name);

}  // namespace ekb
