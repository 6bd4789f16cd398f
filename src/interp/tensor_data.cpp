// TensorData helpers.
#include "interp/tensor_data.h"

#include <fmt/format.h>

#include <cstring>

namespace ekb {

TensorData::TensorData(std::string n, DType t, std::vector<int64_t> s) : name(std::move(n)), dtype(t), shape(std::move(s)) {
  if (holds_float()) f.assign(static_cast<size_t>(size()), 0.0);
  else i.assign(static_cast<size_t>(size()), 0);
}

int64_t TensorData::size() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

bool TensorData::same_values(const TensorData& o) const {
  if (dtype != o.dtype || shape != o.shape) return false;
  if (holds_float()) return f.size() == o.f.size() && std::memcmp(f.data(), o.f.data(), f.size() * sizeof(double)) == 0;
  return i == o.i;
}

std::string TensorData::shape_text() const { return fmt::format("{}[{}]", dtype_name(dtype), fmt::join(shape, ", ")); }

}  // namespace ekb
