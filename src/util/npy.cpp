// The .npy writer: a header dict padded to 64 bytes, then little-endian C-order data.
#include "util/npy.h"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

#include "ir/float16.h"

namespace ekb {

void write_npy(const std::filesystem::path& path, const TensorData& t, bool as_float64) {
  std::string descr;
  std::string data;
  int64_t n = t.size();
  auto append = [&](const void* p, size_t bytes) { data.append(static_cast<const char*>(p), bytes); };
  if (t.holds_float()) {
    DType out = as_float64 ? DType::f64 : t.dtype;
    if (out == DType::bf16) out = DType::f32;
    for (int64_t k = 0; k < n; ++k) {
      double v = t.f[k];
      if (out == DType::f64) append(&v, 8);
      else if (out == DType::f32) {
        float x = static_cast<float>(v);
        append(&x, 4);
      } else {
        uint16_t h = f16_bits_from_double(v);
        append(&h, 2);
      }
    }
    descr = out == DType::f64 ? "<f8" : out == DType::f32 ? "<f4" : "<f2";
  } else {
    for (int64_t k = 0; k < n; ++k) {
      int64_t v = t.i[k];
      switch (t.dtype) {
        case DType::i64: append(&v, 8); break;
        case DType::i32: { int32_t x = static_cast<int32_t>(v); append(&x, 4); break; }
        case DType::i16: { int16_t x = static_cast<int16_t>(v); append(&x, 2); break; }
        case DType::i8: { int8_t x = static_cast<int8_t>(v); append(&x, 1); break; }
        default: { uint8_t x = static_cast<uint8_t>(v); append(&x, 1); break; }  // u8, bool
      }
    }
    switch (t.dtype) {
      case DType::i64: descr = "<i8"; break;
      case DType::i32: descr = "<i4"; break;
      case DType::i16: descr = "<i2"; break;
      case DType::i8: descr = "|i1"; break;
      case DType::u8: descr = "|u1"; break;
      default: descr = "|b1"; break;
    }
  }
  std::string shape = fmt::format("{}", fmt::join(t.shape, ", "));
  if (t.shape.size() == 1) shape += ',';  // a one-element tuple: (3,)
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", descr, shape);
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream o(path, std::ios::binary | std::ios::trunc);
  if (!o) throw std::runtime_error("cannot write " + path.string());
  const unsigned char magic[] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  o.write(reinterpret_cast<const char*>(magic), 8);
  uint16_t hlen = static_cast<uint16_t>(header.size());
  o.write(reinterpret_cast<const char*>(&hlen), 2);
  o << header;
  o.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!o) throw std::runtime_error("error while writing " + path.string());
}

}  // namespace ekb
