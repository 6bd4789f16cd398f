// Which suite workloads the per-workload tests run (CpuSuite, OpenClSuite): the whole suite is too
// many compiles for CI's budget, so the tests take every pattern once (its first workload) plus a
// stratified, deterministic quarter of the other workloads (those whose name hashes to the stratum).
// EKB_SUITE_STRATUM picks the quarter (0 to 3, default 0) or `all`; the full per-workload
// verification on every backend is bench/suite/verify.sh.
#pragma once
#include <xxhash.h>

#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "suite/suite.h"

namespace ekb::test {

inline constexpr unsigned kSuiteStrata = 4;

// The stratum EKB_SUITE_STRATUM names: 0..kSuiteStrata-1, or kSuiteStrata for `all`.
inline unsigned suite_stratum() {
  const char* s = std::getenv("EKB_SUITE_STRATUM");
  if (!s || !*s) return 0;
  std::string v = s;
  if (v == "all") return kSuiteStrata;
  if (v.size() == 1 && v[0] >= '0' && v[0] < static_cast<char>('0' + kSuiteStrata)) return static_cast<unsigned>(v[0] - '0');
  throw std::invalid_argument("EKB_SUITE_STRATUM=" + v + ": write 0 to " + std::to_string(kSuiteStrata - 1) + " or all");
}

// The stratum a workload falls in: its name's hash, so that a workload stays where it is as the
// suite grows.
inline unsigned stratum_of(const std::string& name) {
  return static_cast<unsigned>(XXH3_64bits(name.data(), name.size()) % kSuiteStrata);
}

// Every pattern's first workload, and the other workloads of `stratum` (all of them for kSuiteStrata),
// in the suite's order.
inline std::vector<std::string> sampled_workloads(const Suite& suite, unsigned stratum) {
  std::vector<std::string> v;
  std::set<std::string> patterns_seen;
  for (const auto& t : suite.tasks()) {
    bool first_of_pattern = patterns_seen.insert(t.pattern.empty() ? t.name : t.pattern).second;
    if (first_of_pattern || stratum == kSuiteStrata || stratum_of(t.name) == stratum) v.push_back(t.name);
  }
  return v;
}

}  // namespace ekb::test
