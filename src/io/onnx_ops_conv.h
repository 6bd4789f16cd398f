// What the convolution-like emitters share (Conv, ConvTranspose, QLinearConv, and the pools' window
// arithmetic): the geometry from the attributes and shapes, the padded input's and the window's index
// text, and affine index text.
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

// The padded input [N, C, in + pads...] of a convolution, at index `pv`: its shape, the conditions under
// which `pv` lies inside x (none when no side is padded), and x's index there.
struct PaddedInput {
  std::vector<int64_t> shape;
  std::vector<std::string> inside, x_index;
};
PaddedInput padded_input(const ConvGeometry& g, int64_t n, int64_t c, const std::vector<std::string>& pv);

// The input channel that output channel `oc` reads, with `cg` input and `mg` output channels per
// group: when cg > 1 it takes r0 over the group's input channels, whose bound goes onto `reductions`.
std::string conv_input_channel(const ConvGeometry& g, const std::string& oc, int64_t cg, int64_t mg,
                               std::vector<std::string>& reductions);

// A (forward) convolution's window at output index `ov` [n, m, spatial...]: the reductions (r0 over the
// group's input channels, r1... over the kernel axes longer than 1), the padded input's index (strided,
// dilated) and the weights' index.
struct ConvWindow {
  std::vector<std::string> reductions, x_index, w_index;
};
ConvWindow conv_window(const ConvGeometry& g, const std::vector<std::string>& ov, int64_t cg, int64_t mg);

// "v0 * 2 + v1 - 3": terms with coefficients (a term with an empty name or coefficient 0 is left
// out) plus a constant.
std::string linear(const std::vector<std::pair<std::string, int64_t>>& terms, int64_t c);

}  // namespace ekb::onnx_io
