// The meaning of ekb's scalar operations, in one place: the interpreter, constant folding and (later)
// code generation tests all follow these definitions, which docs/ir.md states in words.
#pragma once
#include <cmath>
#include <cstdint>

#include "ir/ast.h"
#include "ir/dtype.h"

namespace ekb::sem {

// Integer floor division and modulo (Python semantics: the quotient rounds toward -infinity, the
// remainder has the sign of the divisor). The divisor must not be zero.
inline int64_t floor_div(int64_t a, int64_t b) {
  if (b == -1) return static_cast<int64_t>(0ull - static_cast<uint64_t>(a));  // INT64_MIN / -1 wraps
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int64_t floor_mod(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
inline double float_mod(double a, double b) {  // the same floor rule for floats
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

// Wrapping integer arithmetic in 64 bits (then wrapped to the node's type by the caller).
inline int64_t wadd(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
inline int64_t wsub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
inline int64_t wmul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }
inline int64_t wneg(int64_t a) { return static_cast<int64_t>(0ull - static_cast<uint64_t>(a)); }

// Float to integer: rounds toward zero, saturates at the type's range, NaN becomes 0.
inline int64_t float_to_int(double x, DType to) {
  if (std::isnan(x)) return 0;
  if (to == DType::boolean) return x != 0;
  double t = std::trunc(x);
  double lo = static_cast<double>(int_min(to)), hi = static_cast<double>(int_max(to));
  if (t <= lo) return int_min(to);
  if (t >= hi) return int_max(to);
  return static_cast<int64_t>(t);
}

// round: halves go to the even neighbour (as ONNX Round and numpy.round).
inline double round_half_even(double x) { return std::nearbyint(x); }

inline double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// Applies a one-argument float function.
inline double apply_unary_fn(Fn fn, double x) {
  switch (fn) {
    case Fn::abs: return std::fabs(x);
    case Fn::sign: return x > 0 ? 1.0 : x < 0 ? -1.0 : x;  // keeps 0, -0 and NaN
    case Fn::exp: return std::exp(x);
    case Fn::exp2: return std::exp2(x);
    case Fn::expm1: return std::expm1(x);
    case Fn::log: return std::log(x);
    case Fn::log2: return std::log2(x);
    case Fn::log10: return std::log10(x);
    case Fn::log1p: return std::log1p(x);
    case Fn::sqrt: return std::sqrt(x);
    case Fn::rsqrt: return 1.0 / std::sqrt(x);
    case Fn::cbrt: return std::cbrt(x);
    case Fn::tanh: return std::tanh(x);
    case Fn::sigmoid: return sigmoid(x);
    case Fn::erf: return std::erf(x);
    case Fn::sin: return std::sin(x);
    case Fn::cos: return std::cos(x);
    case Fn::tan: return std::tan(x);
    case Fn::asin: return std::asin(x);
    case Fn::acos: return std::acos(x);
    case Fn::atan: return std::atan(x);
    case Fn::sinh: return std::sinh(x);
    case Fn::cosh: return std::cosh(x);
    case Fn::floor: return std::floor(x);
    case Fn::ceil: return std::ceil(x);
    case Fn::round: return round_half_even(x);
    case Fn::trunc: return std::trunc(x);
    default: return NAN;
  }
}

// min/max on floats propagate NaN (as IEEE maximum/minimum and numpy.maximum).
inline double fmax_nan(double a, double b) { return (std::isnan(a) || std::isnan(b)) ? NAN : (a > b ? a : b); }
inline double fmin_nan(double a, double b) { return (std::isnan(a) || std::isnan(b)) ? NAN : (a < b ? a : b); }

}  // namespace ekb::sem
