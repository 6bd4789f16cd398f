// Fitting declared distributions to a tensor's values (onnx_distributions.h).
#include "io/onnx_distributions.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ekb::onnx_io {

namespace {

// Six significant digits.
std::string num(double v) { return fmt::format("{:.6g}", v); }
// A bound rounded outward (to six digits) so that the declared range holds every value.
std::string bound(double v, bool lower) {
  std::string s = num(v);
  double r = std::stod(s);
  for (int k = 0; k < 8 && (lower ? r > v : r < v); ++k) {
    double step = std::max(std::fabs(r), 1e-30) * 1e-5;
    s = num(lower ? r - step : r + step);
    r = std::stod(s);
  }
  return s;
}
std::string down(double v) { return bound(v, true); }
std::string up(double v) { return bound(v, false); }

}  // namespace

bool all_equal(const TensorData& t) {
  for (int64_t k = 1; k < t.size(); ++k)
    if (t.holds_float() ? !(t.f[k] == t.f[0] || (std::isnan(t.f[k]) && std::isnan(t.f[0]))) : t.i[k] != t.i[0]) return false;
  return true;
}

std::string fit_distribution(const TensorData& t) {
  const int64_t n = t.size();
  if (t.dtype == DType::boolean) {
    double p = 0;
    for (int64_t k = 0; k < n; ++k) p += static_cast<double>(t.i[k] != 0);
    p = n ? p / static_cast<double>(n) : 0.5;
    return fmt::format("bernoulli({})", num(std::clamp(p, 0.05, 0.95)));
  }
  if (!t.holds_float()) {
    int64_t lo = *std::min_element(t.i.begin(), t.i.end()), hi = *std::max_element(t.i.begin(), t.i.end());
    if (lo == hi) hi = lo < int_max(t.dtype) ? lo + 1 : lo, lo = hi - 1;
    return fmt::format("int({}, {})", lo, hi);
  }
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  int64_t finite = 0;
  for (double v : t.f)
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v), sum += v, ++finite;
  if (finite == 0) return "uniform(-1, 1)";
  double mean = sum / static_cast<double>(finite), m2 = 0, m4 = 0;
  for (double v : t.f)
    if (std::isfinite(v)) {
      double d = v - mean;
      m2 += d * d;
      m4 += d * d * d * d;
    }
  m2 /= static_cast<double>(finite);
  m4 /= static_cast<double>(finite);
  double std = std::sqrt(m2);
  if (!(hi > lo)) {
    // One value (an activation that is constant here): a narrow spread around it.
    double s = std::max(std::fabs(lo) * 0.1, 1e-3);
    return fmt::format("normal({}, {})", num(lo), num(s));
  }
  if (lo > 0) return fmt::format("positive({}, {})", down(lo), up(hi));
  if (lo == 0) return fmt::format("uniform(0, {})", up(hi));
  double kurtosis = m2 > 0 ? m4 / (m2 * m2) - 3 : 0;
  if (finite >= 16 && kurtosis < -0.8) return fmt::format("uniform({}, {})", down(lo), up(hi));
  return fmt::format("normal({}, {})", num(mean), num(std));
}

}  // namespace ekb::onnx_io
