// Tensor values as the interpreter and the harness hold them: float types as double (the reference
// computes in float64), integer and bool types as int64 in the type's range.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace ekb {

struct TensorData {
  std::string name;
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  std::vector<double> f;   // when is_float(dtype)
  std::vector<int64_t> i;  // otherwise

  TensorData() = default;
  TensorData(std::string n, DType t, std::vector<int64_t> s);
  bool holds_float() const { return is_float(dtype); }
  int64_t size() const;
  double value(int64_t k) const { return holds_float() ? f[k] : static_cast<double>(i[k]); }
  bool same_values(const TensorData& o) const;  // bit-identical (NaN equal to NaN)
  std::string shape_text() const;                // "f32[2, 3]"
};

}  // namespace ekb
