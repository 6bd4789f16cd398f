// The suite's manifest (manifest.h).
#include "suite/manifest.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "suite/task_hash.h"

namespace ekb {

std::filesystem::path manifest_path(const std::filesystem::path& suite_dir) { return suite_dir / "MANIFEST"; }

std::vector<ManifestEntry> manifest_of(const Suite& s) {
  std::vector<ManifestEntry> out;
  for (const auto& t : s.tasks()) out.push_back({t.name, t.pattern, task_hash(*t.program)});
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.workload < b.workload; });
  return out;
}

std::string manifest_text(const std::vector<ManifestEntry>& entries) {
  std::string out =
      "# The suite's manifest: every workload with its pattern and task hash (XXH3-64 of its canonical L0\n"
      "# text and the distributions of its inputs: src/suite/task_hash.h). Made by `ekb suite-manifest --write`,\n"
      "# checked by `ekb suite-manifest --check` (a test): rerun --write after adding or changing a suite file,\n"
      "# and say what changed in CHANGELOG.md.\n"
      "# workload\tpattern\ttask_hash\n";
  for (const auto& e : entries) out += e.workload + "\t" + e.pattern + "\t" + e.task_hash + "\n";
  return out;
}

std::vector<ManifestEntry> parse_manifest(const std::string& text, const std::string& where) {
  std::vector<ManifestEntry> out;
  std::set<std::string> seen;
  std::istringstream in(text);
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    for (size_t at = 0;;) {
      size_t tab = line.find('\t', at);
      fields.push_back(line.substr(at, tab == std::string::npos ? std::string::npos : tab - at));
      if (tab == std::string::npos) break;
      at = tab + 1;
    }
    bool empty_field = std::any_of(fields.begin(), fields.end(), [](const auto& f) { return f.empty(); });
    if (fields.size() != 3 || empty_field)
      throw std::runtime_error(fmt::format("{}:{}: expected `workload<TAB>pattern<TAB>task_hash`, found `{}`; regenerate the "
                                           "file with `ekb suite-manifest --write`",
                                           where, line_no, line.substr(0, 80)));
    if (!seen.insert(fields[0]).second)
      throw std::runtime_error(fmt::format("{}:{}: workload `{}` is listed twice", where, line_no, fields[0]));
    out.push_back({fields[0], fields[1], fields[2]});
  }
  return out;
}

std::vector<ManifestDifference> compare_manifest(const std::vector<ManifestEntry>& stored,
                                                 const std::vector<ManifestEntry>& current) {
  std::map<std::string, ManifestEntry> old_by_name, new_by_name;
  for (const auto& e : stored) old_by_name[e.workload] = e;
  for (const auto& e : current) new_by_name[e.workload] = e;
  std::vector<ManifestDifference> out;
  for (const auto& [name, now] : new_by_name) {
    auto it = old_by_name.find(name);
    if (it == old_by_name.end()) out.push_back({ManifestChange::missing, name, {}, now});
    else if (!(it->second == now)) out.push_back({ManifestChange::changed, name, it->second, now});
  }
  for (const auto& [name, then] : old_by_name)
    if (!new_by_name.count(name)) out.push_back({ManifestChange::extra, name, then, {}});
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.workload < b.workload; });
  return out;
}

std::string describe(const ManifestDifference& d) {
  switch (d.change) {
    case ManifestChange::changed:
      if (d.stored.task_hash != d.current.task_hash)
        return fmt::format("changed: {} (task hash {} in the manifest, {} now)", d.workload, d.stored.task_hash,
                           d.current.task_hash);
      return fmt::format("changed: {} (pattern `{}` in the manifest, `{}` now)", d.workload, d.stored.pattern, d.current.pattern);
    case ManifestChange::missing:
      return fmt::format("not in the manifest: {} (pattern `{}`, task hash {})", d.workload, d.current.pattern, d.current.task_hash);
    case ManifestChange::extra:
      return fmt::format("in the manifest but not in the suite: {} (pattern `{}`)", d.workload, d.stored.pattern);
  }
  return "";
}

}  // namespace ekb
