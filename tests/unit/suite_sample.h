// Which suite workloads the per-workload tests run (CpuSuite, OpenClSuite, CudaSuite), and loading
// just the one a test needs. The whole suite is too many compiles for CI's budget, so the tests take
// every pattern once (its first workload in the manifest's order) plus a stratified, deterministic
// quarter of the other workloads (those whose name hashes to the stratum). EKB_SUITE_STRATUM picks
// the quarter (0 to 3, default 0) or `all`; the full per-workload verification on every backend is
// bench/suite/verify.sh. The lists come from suite/MANIFEST (kept up to date by a test), and a test
// loads only its task's file: every test process would otherwise check the whole suite first.
#pragma once
#include <xxhash.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "suite/manifest.h"
#include "suite/suite.h"
#include "util/source.h"

namespace ekb::test {

inline constexpr unsigned kSuiteStrata = 4;

inline std::filesystem::path source_suite_dir() { return std::filesystem::path(EKB_SOURCE_DIR) / "suite"; }

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

// suite/MANIFEST's entries (manifest.h), in its order.
inline std::vector<ManifestEntry> manifest_rows(const std::filesystem::path& suite_dir = source_suite_dir()) {
  std::filesystem::path f = manifest_path(suite_dir);
  return parse_manifest(read_source_file(f.string())->text, f.string());
}

// Every pattern's first workload, and the other workloads of `stratum` (all of them for kSuiteStrata).
inline std::vector<std::string> sampled_workloads(const std::vector<ManifestEntry>& rows, unsigned stratum) {
  std::vector<std::string> v;
  std::set<std::string> patterns_seen;
  for (const auto& r : rows) {
    bool first_of_pattern = patterns_seen.insert(r.pattern).second;
    if (first_of_pattern || stratum == kSuiteStrata || stratum_of(r.workload) == stratum) v.push_back(r.workload);
  }
  return v;
}

inline std::vector<std::string> sampled_workloads() { return sampled_workloads(manifest_rows(), suite_stratum()); }

// The task `workload`, loaded (and checked) from its pattern's file alone (suite/*/PATTERN.ekb).
inline Task load_suite_task(const std::string& workload, const std::filesystem::path& suite_dir = source_suite_dir()) {
  for (const auto& r : manifest_rows(suite_dir)) {
    if (r.workload != workload) continue;
    for (const auto& category : std::filesystem::directory_iterator(suite_dir)) {
      std::filesystem::path f = category.path() / (r.pattern + ".ekb");
      if (!std::filesystem::is_regular_file(f)) continue;
      DiagnosticList diags;
      SourcePtr src = read_source_file(f.string());
      for (auto& t : load_suite_file(f, src, diags))
        if (t.name == workload) return t;
      if (diags.has_errors()) throw DiagnosticError(std::move(diags));
    }
    throw std::runtime_error(workload + ": no suite/*/" + r.pattern + ".ekb holds it");
  }
  throw std::runtime_error(workload + ": not in suite/MANIFEST");
}

}  // namespace ekb::test
