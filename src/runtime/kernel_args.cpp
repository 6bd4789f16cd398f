// Conversions between TensorData (double / int64 per element) and storage bytes.
#include "runtime/kernel_args.h"

#include <cstring>

#include "ir/float16.h"

namespace ekb {

HostBuffer::HostBuffer(DType t, std::vector<int64_t> s) : type(t), shape(std::move(s)) { allocate(); }

HostBuffer::HostBuffer(const HostBuffer& o) : type(o.type), shape(o.shape) {
  allocate();
  std::memcpy(aligned_, o.aligned_, size_);
}

HostBuffer& HostBuffer::operator=(const HostBuffer& o) {
  if (this == &o) return *this;
  type = o.type;
  shape = o.shape;
  allocate();
  std::memcpy(aligned_, o.aligned_, size_);
  return *this;
}

void HostBuffer::allocate() {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  size_ = n * static_cast<size_t>(dtype_bytes(type));
  bytes.assign(size_ + 64, 0);
  auto p = reinterpret_cast<uintptr_t>(bytes.data());
  aligned_ = bytes.data() + ((64 - p % 64) % 64);
}

HostBuffer to_host(const TensorData& t) {
  HostBuffer b(t.dtype, t.shape);
  int64_t n = t.size();
  auto* p = static_cast<unsigned char*>(b.data());
  for (int64_t k = 0; k < n; ++k) {
    switch (t.dtype) {
      case DType::f64: { double v = t.f[k]; std::memcpy(p + k * 8, &v, 8); break; }
      case DType::f32: { float v = static_cast<float>(t.f[k]); std::memcpy(p + k * 4, &v, 4); break; }
      case DType::f16: { uint16_t v = f16_bits_from_double(t.f[k]); std::memcpy(p + k * 2, &v, 2); break; }
      case DType::bf16: { uint16_t v = bf16_bits_from_double(t.f[k]); std::memcpy(p + k * 2, &v, 2); break; }
      case DType::i64: { int64_t v = t.i[k]; std::memcpy(p + k * 8, &v, 8); break; }
      case DType::i32: { int32_t v = static_cast<int32_t>(t.i[k]); std::memcpy(p + k * 4, &v, 4); break; }
      case DType::i16: { int16_t v = static_cast<int16_t>(t.i[k]); std::memcpy(p + k * 2, &v, 2); break; }
      case DType::i8: { int8_t v = static_cast<int8_t>(t.i[k]); std::memcpy(p + k, &v, 1); break; }
      case DType::u8: case DType::boolean: { uint8_t v = static_cast<uint8_t>(t.i[k]); p[k] = v; break; }
    }
  }
  return b;
}

TensorData from_host(const HostBuffer& b, const std::string& name) {
  TensorData t(name, b.type, b.shape);
  int64_t n = t.size();
  const auto* p = static_cast<const unsigned char*>(b.data());
  for (int64_t k = 0; k < n; ++k) {
    switch (b.type) {
      case DType::f64: { double v; std::memcpy(&v, p + k * 8, 8); t.f[k] = v; break; }
      case DType::f32: { float v; std::memcpy(&v, p + k * 4, 4); t.f[k] = v; break; }
      case DType::f16: { uint16_t v; std::memcpy(&v, p + k * 2, 2); t.f[k] = double_from_f16_bits(v); break; }
      case DType::bf16: { uint16_t v; std::memcpy(&v, p + k * 2, 2); t.f[k] = double_from_bf16_bits(v); break; }
      case DType::i64: { int64_t v; std::memcpy(&v, p + k * 8, 8); t.i[k] = v; break; }
      case DType::i32: { int32_t v; std::memcpy(&v, p + k * 4, 4); t.i[k] = v; break; }
      case DType::i16: { int16_t v; std::memcpy(&v, p + k * 2, 2); t.i[k] = v; break; }
      case DType::i8: { int8_t v; std::memcpy(&v, p + k, 1); t.i[k] = v; break; }
      case DType::u8: t.i[k] = p[k]; break;
      case DType::boolean: t.i[k] = p[k] != 0; break;
    }
  }
  return t;
}

}  // namespace ekb
