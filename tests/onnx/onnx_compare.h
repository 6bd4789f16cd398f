// Comparing ekb's outputs with an ONNX test's expected tensors (the node tests, the PyTorch-converted
// modules, the whole models): tolerances per element type and a message naming the worst element.
// Shared by the cross-check of hand-written cases and the import tests.
#pragma once
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "interp/tensor_data.h"
#include "ir/dtype.h"

namespace ekb::onnx_test {

// |got - want| <= atol + rtol * |want| (NaN only equal to NaN, infinities exactly); see
// onnx_crosscheck_test.cpp for why each type's default is what it is.
struct Tolerance {
  double atol = 0;
  double rtol = 0;
};

inline Tolerance default_tolerance(DType t) {
  switch (t) {
    case DType::f32: return {1e-6, 1e-5};
    case DType::f64: return {1e-12, 1e-12};
    case DType::f16: return {6e-8, std::ldexp(1.0, -11)};
    case DType::bf16: return {0, std::ldexp(1.0, -8)};
    default: return {0, 0};
  }
}


inline std::string index_text(const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  std::ostringstream o;
  o << "[";
  for (size_t d = 0; d < idx.size(); ++d) o << (d ? ", " : "") << idx[d];
  o << "]";
  return o.str();
}

inline std::string shape_text(DType t, const std::vector<int64_t>& shape) {
  TensorData d;
  d.dtype = t;
  d.shape = shape;
  return d.shape_text();
}

// Returns an empty string when `got` matches `want`, else what differs.
inline std::string compare(const std::string& what, const TensorData& got, const TensorData& want, Tolerance tol) {
  std::ostringstream o;
  o.precision(17);
  if (got.dtype != want.dtype || got.shape != want.shape) {
    o << what << ": ekb gives " << shape_text(got.dtype, got.shape) << ", ONNX expects "
      << shape_text(want.dtype, want.shape) << "\n";
    return o.str();
  }
  int64_t bad = 0, worst = -1;
  double worst_excess = -1;
  for (int64_t k = 0; k < want.size(); ++k) {
    double g = got.value(k), w = want.value(k);
    double excess;  // how far beyond the tolerance (> 0 is a mismatch)
    if (!want.holds_float()) {
      // exact unless an entry of kLooserTolerance allows a difference
      double err = std::fabs(g - w), allowed = tol.atol + tol.rtol * std::fabs(w);
      excess = got.i[k] == want.i[k] ? 0 : err <= allowed ? 0 : err - allowed;
    } else if (std::isnan(w) || std::isnan(g)) {
      excess = (std::isnan(w) && std::isnan(g)) ? 0 : INFINITY;
    } else if (std::isinf(w) || std::isinf(g)) {
      excess = g == w ? 0 : INFINITY;
    } else {
      double err = std::fabs(g - w), allowed = tol.atol + tol.rtol * std::fabs(w);
      excess = err <= allowed ? 0 : err - allowed;
    }
    if (excess > 0) {
      ++bad;
      if (excess > worst_excess) worst_excess = excess, worst = k;
    }
  }
  if (bad == 0) return "";
  o << what << " " << shape_text(want.dtype, want.shape) << ": " << bad << " of " << want.size()
    << " elements differ (atol " << std::setprecision(3) << tol.atol << ", rtol " << tol.rtol << std::setprecision(17)
    << "); worst at " << index_text(want.shape, worst)
    << " (flat " << worst << "): got " << got.value(worst) << ", want " << want.value(worst) << "\n";
  return o.str();
}

}  // namespace ekb::onnx_test
