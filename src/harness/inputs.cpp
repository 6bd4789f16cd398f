// Distribution sampling for inputs (docs/ir.md, "Inputs").
#include "harness/inputs.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "harness/random.h"
#include "ir/float16.h"

namespace ekb {

InputShape input_shape(uint64_t seed) {
  switch (seed % 3) {
    case 1: return InputShape::declared;
    case 2: return InputShape::ends;
    default: return InputShape::middle;
  }
}

const char* input_shape_name(InputShape s) {
  switch (s) {
    case InputShape::declared: return "as declared";
    case InputShape::ends: return "pushed to the ends of the range";
    case InputShape::middle: return "gathered in the middle of the range";
  }
  return "?";
}

namespace {

// A uniform variate in [0, 1), reshaped: most mass near 0 and 1 (ends) or near 1/2 (middle), the
// support unchanged.
double shaped01(Rng& rng, InputShape shape) {
  double u = rng.uniform01();
  if (shape == InputShape::declared) return u;
  double c = 2 * u - 1, m = std::fabs(c);
  double r = shape == InputShape::ends ? std::pow(m, 0.25) : m * m * m;
  return std::min(0.5 + 0.5 * std::copysign(r, c), std::nextafter(1.0, 0.0));
}

int64_t sample_int(const DistSpec& d, Rng& rng, InputShape shape) {
  if (d.kind == DistSpec::Kind::bernoulli) return rng.uniform01() < d.a ? 1 : 0;
  auto lo = static_cast<int64_t>(d.a), hi = static_cast<int64_t>(d.b);
  uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
  uint64_t off;
  if (shape == InputShape::declared || span == 0) {
    uint64_t x = rng.next();
    off = span == 0 ? x : static_cast<uint64_t>((static_cast<unsigned __int128>(x) * span) >> 64);
  } else {
    off = std::min(span - 1, static_cast<uint64_t>(shaped01(rng, shape) * static_cast<double>(span)));
  }
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + off);
}

double sample(const DistSpec& d, Rng& rng, InputShape shape) {
  using K = DistSpec::Kind;
  switch (d.kind) {
    case K::uniform:
      return d.a + (d.b - d.a) * shaped01(rng, shape);
    case K::normal: {
      double u1 = 1.0 - rng.uniform01();  // (0, 1]
      double u2 = rng.uniform01();
      // Unbounded support: the shapes widen (3x) or narrow (a quarter) the spread instead.
      double spread = shape == InputShape::ends ? 3.0 : shape == InputShape::middle ? 0.25 : 1.0;
      return d.a + spread * d.b * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
    }
    case K::positive:
      return std::exp(std::log(d.a) + (std::log(d.b) - std::log(d.a)) * shaped01(rng, shape));
    case K::mixed: {
      double sign = (rng.next() >> 63) ? -1.0 : 1.0;
      return sign * std::pow(10.0, d.a + (d.b - d.a) * shaped01(rng, shape));
    }
    case K::int_range:
      return static_cast<double>(sample_int(d, rng, shape));
    case K::bernoulli:
      return rng.uniform01() < d.a ? 1.0 : 0.0;
  }
  return 0;
}

double round_to(DType t, double v) {
  switch (t) {
    case DType::f32: return static_cast<double>(static_cast<float>(v));
    case DType::f16: return round_to_f16(v);
    case DType::bf16: return round_to_bf16(v);
    default: return v;
  }
}

}  // namespace

TensorData generate_input(const Program& p, int tensor, uint64_t seed) {
  const TensorInfo& t = p.tensors[tensor];
  std::string key = p.name + '\0' + t.name;
  uint64_t stream = XXH3_64bits_withSeed(key.data(), key.size(), seed);
  Rng rng(stream);
  InputShape shape = input_shape(seed);
  TensorData out(t.name, t.dtype, t.shape);
  int64_t n = out.size();
  if (out.holds_float()) {
    for (int64_t k = 0; k < n; ++k) out.f[k] = round_to(t.dtype, sample(t.dist, rng, shape));
  } else {
    for (int64_t k = 0; k < n; ++k) out.i[k] = sample_int(t.dist, rng, shape);
  }
  return out;
}

std::vector<TensorData> generate_inputs(const Program& p, uint64_t seed) {
  std::vector<TensorData> v;
  for (int t : p.inputs) v.push_back(generate_input(p, t, seed));
  return v;
}

}  // namespace ekb
