// Element types of ekb tensors, their names, sizes and value ranges, and the promotion rule that
// decides the type of a binary expression.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ekb {

enum class DType : uint8_t { f64, f32, f16, bf16, i64, i32, i16, i8, u8, boolean };

inline constexpr DType kAllDTypes[] = {DType::f64, DType::f32, DType::f16, DType::bf16, DType::i64,
                                       DType::i32, DType::i16, DType::i8,  DType::u8,   DType::boolean};

std::string_view dtype_name(DType t);  // "f32", ..., "bool"
std::optional<DType> dtype_from_name(std::string_view name);
int dtype_bytes(DType t);
int dtype_bits(DType t);
bool is_float(DType t);
bool is_int(DType t);  // integer types, not bool
bool is_signed_int(DType t);
// The representable range of an integer type (bool: 0..1).
int64_t int_min(DType t);
int64_t int_max(DType t);
// The largest finite value of a float type.
double float_max(DType t);

// The common type of two operands of an arithmetic or comparison operator, or nullopt when they
// cannot be combined (bool with a number). Floats win over integers; wider wins; a signed and an
// unsigned integer meet in a signed type that holds both.
std::optional<DType> promote(DType a, DType b);

// Wraps an integer into the range of `t` (two's complement), as ekb's integer arithmetic does.
int64_t wrap_int(int64_t v, DType t);

}  // namespace ekb
