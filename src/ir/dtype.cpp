// Element type tables and the promotion rule (documented in docs/ir.md, "Types").
#include "ir/dtype.h"

#include <cfloat>

namespace ekb {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f64: return "f64";
    case DType::f32: return "f32";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::i64: return "i64";
    case DType::i32: return "i32";
    case DType::i16: return "i16";
    case DType::i8: return "i8";
    case DType::u8: return "u8";
    case DType::boolean: return "bool";
  }
  return "?";
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (DType t : kAllDTypes)
    if (dtype_name(t) == name) return t;
  return std::nullopt;
}

int dtype_bits(DType t) {
  switch (t) {
    case DType::f64: case DType::i64: return 64;
    case DType::f32: case DType::i32: return 32;
    case DType::f16: case DType::bf16: case DType::i16: return 16;
    case DType::i8: case DType::u8: case DType::boolean: return 8;
  }
  return 0;
}

int dtype_bytes(DType t) { return dtype_bits(t) / 8; }

bool is_float(DType t) {
  return t == DType::f64 || t == DType::f32 || t == DType::f16 || t == DType::bf16;
}
bool is_int(DType t) { return !is_float(t) && t != DType::boolean; }
bool is_signed_int(DType t) { return is_int(t) && t != DType::u8; }

int64_t int_min(DType t) {
  switch (t) {
    case DType::i64: return INT64_MIN;
    case DType::i32: return INT32_MIN;
    case DType::i16: return INT16_MIN;
    case DType::i8: return INT8_MIN;
    default: return 0;
  }
}

int64_t int_max(DType t) {
  switch (t) {
    case DType::i64: return INT64_MAX;
    case DType::i32: return INT32_MAX;
    case DType::i16: return INT16_MAX;
    case DType::i8: return INT8_MAX;
    case DType::u8: return UINT8_MAX;
    case DType::boolean: return 1;
    default: return 0;
  }
}

double float_max(DType t) {
  switch (t) {
    case DType::f64: return DBL_MAX;
    case DType::f32: return FLT_MAX;
    case DType::f16: return 65504.0;
    case DType::bf16: return 3.3895313892515355e38;
    default: return 0;
  }
}

namespace {
int float_rank(DType t) {
  switch (t) {
    case DType::f64: return 3;
    case DType::f32: return 2;
    default: return 1;  // f16, bf16
  }
}
}  // namespace

std::optional<DType> promote(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::boolean || b == DType::boolean) return std::nullopt;
  if (is_float(a) && is_float(b)) {
    int ra = float_rank(a), rb = float_rank(b);
    if (ra == 1 && rb == 1) return DType::f32;  // f16 meets bf16: neither holds the other
    return ra > rb ? a : b;
  }
  if (is_float(a)) return a;
  if (is_float(b)) return b;
  // Both integers.
  bool sa = is_signed_int(a), sb = is_signed_int(b);
  if (sa == sb) return dtype_bits(a) >= dtype_bits(b) ? a : b;
  DType s = sa ? a : b, u = sa ? b : a;  // u is u8, the only unsigned type
  if (dtype_bits(s) > dtype_bits(u)) return s;
  return DType::i16;
}

int64_t wrap_int(int64_t v, DType t) {
  switch (t) {
    case DType::i64: return v;
    case DType::i32: return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
    case DType::i16: return static_cast<int16_t>(static_cast<uint16_t>(static_cast<uint64_t>(v)));
    case DType::i8: return static_cast<int8_t>(static_cast<uint8_t>(static_cast<uint64_t>(v)));
    case DType::u8: return static_cast<uint8_t>(static_cast<uint64_t>(v));
    case DType::boolean: return v != 0;
    default: return v;
  }
}

}  // namespace ekb
