// Bit-exact f16 / bf16 rounding (round to nearest even), written against the IEEE 754 layouts.
#include "ir/float16.h"

#include <cmath>
#include <cstring>

namespace ekb {
namespace {

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace

uint16_t f16_bits_from_double(double x) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x)) return sign | 0x7e00;
  double a = std::fabs(x);
  if (a >= 65520.0) return sign | 0x7c00;  // rounds to infinity (max finite 65504, half-ulp 16)
  if (a < std::ldexp(1.0, -25)) {
    // Below half of the smallest subnormal: zero, except exactly-half ties go to even (zero).
    return sign;
  }
  int e;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int exp = e - 1;    // a = 1.f * 2^exp
  if (exp < -14) {
    // Subnormal: value = mant * 2^-24, mant < 1024.
    double mant = std::nearbyint(std::ldexp(a, 24));  // default rounding mode: ties to even
    return sign | static_cast<uint16_t>(mant);  // mant may become 1024 = smallest normal; encoding works
  }
  double scaled = std::nearbyint(std::ldexp(a, 10 - exp));  // in [1024, 2048]
  int m = static_cast<int>(scaled);
  if (m == 2048) {
    m = 1024;
    ++exp;
  }
  if (exp > 15) return sign | 0x7c00;
  return sign | static_cast<uint16_t>(((exp + 15) << 10) | (m - 1024));
}

double double_from_f16_bits(uint16_t h) {
  int sign = (h >> 15) & 1;
  int exp = (h >> 10) & 0x1f;
  int mant = h & 0x3ff;
  double v;
  if (exp == 0)
    v = std::ldexp(mant, -24);
  else if (exp == 31)
    v = mant ? NAN : INFINITY;
  else
    v = std::ldexp(mant + 1024, exp - 25);
  return sign ? -v : v;
}

uint16_t bf16_bits_from_double(double x) {
  if (std::isnan(x)) return std::signbit(x) ? 0xffc0 : 0x7fc0;
  // At or beyond (2 - 2^-8) * 2^127 a value rounds to infinity (the tie goes to the even infinity).
  if (std::fabs(x) >= std::ldexp(2.0 - std::ldexp(1.0, -8), 127)) return std::signbit(x) ? 0xff80 : 0x7f80;
  // Casting to float may round, but bf16's grid is a subset of float's, so the two bf16 neighbours
  // of the float are the neighbours of x; pick between them by exact distance in double.
  float f = static_cast<float>(x);  // may round; fix up below by comparing against x
  uint32_t u = bits_of(f);
  uint32_t lo = u & 0xffff0000u;
  uint32_t hi = lo + 0x10000u;
  double dlo = float_of(lo), dhi = float_of(hi);
  // Choose by distance to x in double (exact), ties to even mantissa.
  double dist_lo = std::fabs(x - dlo), dist_hi = std::fabs(x - dhi);
  uint32_t pick;
  if (std::isinf(f)) {
    pick = u;  // overflow to infinity
  } else if (dist_lo < dist_hi) {
    pick = lo;
  } else if (dist_hi < dist_lo) {
    pick = hi;
  } else {
    pick = ((lo >> 16) & 1) ? hi : lo;
  }
  return static_cast<uint16_t>(pick >> 16);
}

double double_from_bf16_bits(uint16_t h) { return float_of(static_cast<uint32_t>(h) << 16); }

}  // namespace ekb
