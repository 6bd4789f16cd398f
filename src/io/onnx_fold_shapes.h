// Shape arithmetic at import: the small integer tensors (rank 0 or 1) that exporters compute from
// static shapes (Shape -> Slice / Gather -> Unsqueeze -> Concat -> Reshape), evaluated directly. A
// result may be empty (the dims before axis 0), which no L0 tensor can be; everything else known
// at import is evaluated through the node's own L0 kernel instead (onnx_import.cpp).
#pragma once
#include <optional>
#include <vector>

#include "interp/tensor_data.h"
#include "io/onnx_model.h"

namespace ekb::onnx_io {

struct Value;

// The node's outputs when it is shape arithmetic on known integer vectors; nullopt when not (the
// caller then takes the general path). Throws ImportError naming the node for a malformed one.
std::optional<std::vector<TensorData>> fold_shape_op(const Node& n, int64_t opset, const std::string& model,
                                                     const std::vector<const Value*>& ins);

}  // namespace ekb::onnx_io
