// What the convolution-like emitters share (Conv, ConvTranspose, QLinearConv, and the pools' window
// arithmetic): the geometry from the attributes and shapes, and affine index text.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ekb::onnx_io {

class Emit;

struct ConvGeometry {
  int spatial = 0;
  int64_t group = 1;
  std::vector<int64_t> in, kernel, strides, dilations, pad_begin, pad_end, output_padding, out;
};

// From attributes auto_pad, dilations, group, kernel_shape, pads, strides (and output_padding,
// output_shape when `transpose`), input `x` [N, C, spatial...] and weights `w`. Refuses what does
// not fit.
ConvGeometry conv_geometry(const Emit& e, size_t x, size_t w, bool transpose);

// "v0 * 2 + v1 - 3": terms with coefficients (a term with an empty name or coefficient 0 is left
// out) plus a constant.
std::string linear(const std::vector<std::pair<std::string, int64_t>>& terms, int64_t c);

}  // namespace ekb::onnx_io
