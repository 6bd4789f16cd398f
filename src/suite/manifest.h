// The suite's manifest (suite/MANIFEST): one line per workload, its name, pattern and task hash
// (task_hash.h), sorted by name. It pins down what a suite version contains: a test compares it with
// the suite as it loads, so that a task cannot change, appear or vanish without the manifest (and so
// the changelog and the version) being brought along. `ekb suite-manifest --write` regenerates it.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "suite/suite.h"

namespace ekb {

struct ManifestEntry {
  std::string workload, pattern, task_hash;
  bool operator==(const ManifestEntry&) const = default;
};

// DIR/MANIFEST.
std::filesystem::path manifest_path(const std::filesystem::path& suite_dir);

// The manifest of the suite as loaded, sorted by workload name.
std::vector<ManifestEntry> manifest_of(const Suite& s);

// The file's text: a header of `#` lines, then `workload<TAB>pattern<TAB>task_hash` lines.
std::string manifest_text(const std::vector<ManifestEntry>& entries);

// Reads that text back (blank and `#` lines skipped); throws naming `where` and the line of a
// malformed or repeated entry.
std::vector<ManifestEntry> parse_manifest(const std::string& text, const std::string& where);

// How a workload of the suite differs from its manifest line.
enum class ManifestChange {
  changed,  // in both, with another task hash or pattern
  missing,  // in the suite, not in the manifest
  extra,    // in the manifest, not in the suite
};

struct ManifestDifference {
  ManifestChange change;
  std::string workload;
  ManifestEntry stored, current;  // the manifest's line and the suite's (empty where there is none)
};

// Every difference between the manifest (`stored`) and the suite (`current`), sorted by workload.
std::vector<ManifestDifference> compare_manifest(const std::vector<ManifestEntry>& stored,
                                                 const std::vector<ManifestEntry>& current);

// One line for a difference, e.g. "changed: mm_small (task hash 0123... in the manifest, 4567... now)".
std::string describe(const ManifestDifference& d);

}  // namespace ekb
