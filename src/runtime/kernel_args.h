// Tensors as a compiled kernel sees them: dense bytes in the tensor's storage type (f16 as IEEE half
// bits, bf16 as bfloat16 bits, bool as one byte), converted from and to the harness's TensorData.
#pragma once
#include <cstdint>
#include <vector>

#include "interp/tensor_data.h"

namespace ekb {

struct HostBuffer {
  DType type = DType::f32;
  std::vector<int64_t> shape;
  std::vector<unsigned char> bytes;  // 64-byte aligned data starts at data()
  void* data() { return aligned_; }
  const void* data() const { return aligned_; }
  HostBuffer() = default;
  HostBuffer(DType t, std::vector<int64_t> s);
  HostBuffer(const HostBuffer& o);
  HostBuffer& operator=(const HostBuffer& o);
  size_t size_bytes() const { return size_; }

 private:
  void* aligned_ = nullptr;
  size_t size_ = 0;
  void allocate();
};

HostBuffer to_host(const TensorData& t);
TensorData from_host(const HostBuffer& b, const std::string& name);

}  // namespace ekb
