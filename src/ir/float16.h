// Conversions between double and the 16-bit float formats (IEEE half and bfloat16), rounding to
// nearest, ties to even. The interpreter rounds f16/bf16 inputs through these at generation, so the
// reference sees exactly the values a candidate receives.
#pragma once
#include <cstdint>

namespace ekb {

uint16_t f16_bits_from_double(double x);
double double_from_f16_bits(uint16_t h);
uint16_t bf16_bits_from_double(double x);
double double_from_bf16_bits(uint16_t h);

inline double round_to_f16(double x) { return double_from_f16_bits(f16_bits_from_double(x)); }
inline double round_to_bf16(double x) { return double_from_bf16_bits(bf16_bits_from_double(x)); }

}  // namespace ekb
