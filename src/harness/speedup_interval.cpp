// Paired moving-block bootstrap of a ratio of medians (speedup_interval.h).
#include "harness/speedup_interval.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace ekb {

namespace {

double median_of(std::vector<double>& v) {
  size_t n = v.size(), mid = n / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(mid), v.end());
  double hi = v[mid];
  if (n % 2) return hi;
  double lo = *std::max_element(v.begin(), v.begin() + static_cast<long>(mid));
  return (lo + hi) / 2;
}

}  // namespace

size_t bootstrap_block_rounds(size_t rounds) {
  return std::max<size_t>(1, static_cast<size_t>(std::lround(std::sqrt(static_cast<double>(rounds)))));
}

SpeedupInterval bootstrap_speedup(const std::vector<double>& base, const std::vector<double>& cand, double confidence,
                                  int resamples, uint64_t seed, size_t block_rounds) {
  if (base.size() != cand.size()) throw std::invalid_argument("bootstrap_speedup: the two sides have different round counts");
  SpeedupInterval r;
  size_t n = base.size();
  if (n == 0) return r;
  std::vector<double> b = base, c = cand;
  double mc = median_of(c);
  r.speedup = mc > 0 ? median_of(b) / mc : 0;
  r.lo = r.hi = r.speedup;
  if (n < 2 || resamples < 10) return r;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  size_t block = block_rounds ? block_rounds : bootstrap_block_rounds(n);
  std::vector<double> ratios;
  ratios.reserve(static_cast<size_t>(resamples));
  for (int k = 0; k < resamples; ++k) {
    // Blocks of consecutive rounds (wrapping around the end), each starting anywhere.
    for (size_t i = 0; i < n;) {
      size_t j = pick(rng);
      for (size_t m = 0; m < block && i < n; ++m, ++i, j = (j + 1) % n) {
        b[i] = base[j];
        c[i] = cand[j];
      }
    }
    double m = median_of(c);
    if (m > 0) ratios.push_back(median_of(b) / m);
  }
  if (ratios.empty()) return r;
  std::sort(ratios.begin(), ratios.end());
  double tail = (1 - confidence) / 2;
  auto at = [&](double q) {
    double pos = q * static_cast<double>(ratios.size() - 1);
    size_t i = static_cast<size_t>(std::floor(pos));
    double f = pos - static_cast<double>(i);
    return i + 1 < ratios.size() ? ratios[i] * (1 - f) + ratios[i + 1] * f : ratios[i];
  };
  r.lo = std::min(r.speedup, at(tail));
  r.hi = std::max(r.speedup, at(1 - tail));
  return r;
}

SpeedupInterval across_processes(const SpeedupInterval& rounds, double spread, double z) {
  if (spread <= 0 || rounds.speedup <= 0 || rounds.lo <= 0) return rounds;
  const double extra = z * spread, log_s = std::log(rounds.speedup);
  auto widen = [&](double half) { return std::sqrt(half * half + extra * extra); };
  SpeedupInterval r = rounds;
  r.lo = std::exp(log_s - widen(log_s - std::log(rounds.lo)));
  r.hi = std::exp(log_s + widen(std::log(rounds.hi) - log_s));
  return r;
}

}  // namespace ekb
