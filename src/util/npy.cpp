// The .npy writer: a header dict padded to 64 bytes, then little-endian C-order data.
#include "util/npy.h"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <iterator>
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

TensorData read_npy(const std::filesystem::path& path, const std::string& name) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto fail = [&](const std::string& why) { return std::runtime_error(fmt::format("{}: {}", path.string(), why)); };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) throw fail("not a .npy file");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t at = major >= 2 ? 12 : 10;
  if (bytes.size() < at) throw fail("truncated header");
  size_t hlen = static_cast<unsigned char>(bytes[8]) | size_t(static_cast<unsigned char>(bytes[9])) << 8;
  if (major >= 2) hlen |= size_t(static_cast<unsigned char>(bytes[10])) << 16 | size_t(static_cast<unsigned char>(bytes[11])) << 24;
  if (bytes.size() < at + hlen) throw fail("truncated header");
  std::string header = bytes.substr(at, hlen);
  at += hlen;
  auto quoted_after = [&](const std::string& key) -> std::string {
    size_t k = header.find("'" + key + "'");
    if (k == std::string::npos) return "";
    size_t q = header.find('\'', k + key.size() + 2);
    size_t e = q == std::string::npos ? q : header.find('\'', q + 1);
    return e == std::string::npos ? "" : header.substr(q + 1, e - q - 1);
  };
  std::string descr = quoted_after("descr");
  size_t fo = header.find("'fortran_order'");
  if (fo != std::string::npos && header.compare(header.find(':', fo) + 1, 5, " True") == 0) throw fail("Fortran order is not supported");
  size_t sh = header.find("'shape'");
  size_t open = sh == std::string::npos ? sh : header.find('(', sh);
  size_t close = open == std::string::npos ? open : header.find(')', open);
  if (close == std::string::npos) throw fail("no shape in the header");
  std::vector<int64_t> shape;
  for (const char* p = header.c_str() + open + 1; p < header.c_str() + close;) {
    char* end;
    long long v = std::strtoll(p, &end, 10);
    if (end == p) ++p;
    else shape.push_back(v), p = end;
  }
  struct Kind {
    const char* descr;
    DType type;
    size_t bytes;
  };
  static const Kind kinds[] = {{"<f8", DType::f64, 8}, {"<f4", DType::f32, 4}, {"<f2", DType::f16, 2}, {"<i8", DType::i64, 8},
                               {"<i4", DType::i32, 4}, {"<i2", DType::i16, 2}, {"|i1", DType::i8, 1},  {"|u1", DType::u8, 1},
                               {"|b1", DType::boolean, 1}};
  const Kind* kind = nullptr;
  for (const auto& k : kinds)
    if (descr == k.descr) kind = &k;
  if (!kind) throw fail(fmt::format("element type '{}' is not one of ekb's", descr));
  TensorData t(name, kind->type, shape);
  int64_t n = t.size();
  if (bytes.size() < at + size_t(n) * kind->bytes) throw fail("truncated data");
  const char* data = bytes.data() + at;
  for (int64_t k = 0; k < n; ++k) {
    const char* p = data + k * kind->bytes;
    switch (kind->type) {
      case DType::f64: { double v; std::memcpy(&v, p, 8); t.f[k] = v; break; }
      case DType::f32: { float v; std::memcpy(&v, p, 4); t.f[k] = v; break; }
      case DType::f16: { uint16_t v; std::memcpy(&v, p, 2); t.f[k] = double_from_f16_bits(v); break; }
      case DType::i64: { int64_t v; std::memcpy(&v, p, 8); t.i[k] = v; break; }
      case DType::i32: { int32_t v; std::memcpy(&v, p, 4); t.i[k] = v; break; }
      case DType::i16: { int16_t v; std::memcpy(&v, p, 2); t.i[k] = v; break; }
      case DType::i8: t.i[k] = static_cast<int8_t>(*p); break;
      default: t.i[k] = static_cast<uint8_t>(*p); break;
    }
  }
  return t;
}

}  // namespace ekb
