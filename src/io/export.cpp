// Making an export and writing it into a directory (export.h).
#include "io/export.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

#include "io/export_parts.h"
#include "util/write_file.h"

namespace ekb::io {

namespace fs = std::filesystem;

const ExportFile* KernelExport::file(const std::string& n) const {
  for (const auto& f : files)
    if (f.name == n) return &f;
  return nullptr;
}

bool is_c_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; });
}

std::string export_name_for(const std::string& kernel_name) {
  std::string out = kernel_name;
  for (char& ch : out)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') ch = '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "k_" + out;
  return out;
}

KernelExport make_export(const Program& p, const Target& target, const ScheduleChoice& schedule, const ExportOptions& o) {
  std::string name = o.name.empty() ? export_name_for(p.name) : o.name;
  if (!is_c_identifier(name))
    throw std::runtime_error(fmt::format("export name `{}` is not a C identifier (letters, digits and `_`, not starting "
                                         "with a digit): it names the files and the header's constants",
                                         name));
  lower::LoweredKernel k = lower_with(p, target, schedule);
  KernelExport e;
  e.name = name;
  e.target = target;
  e.schedule = schedule.description;
  detail::ExportContext c{p, k, o, name, schedule.description};
  if (target.backend == Backend::cpu) detail::add_cpu_files(c, e);
  else detail::add_gpu_files(c, e);
  e.files.push_back({"example_support.h", detail::example_support_header()});
  e.files.push_back({"example_support.c", detail::example_support_source()});
  return e;
}

namespace {

std::set<std::string> read_manifest(const fs::path& dir) {
  std::set<std::string> names;
  std::ifstream in(dir / kExportManifest);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') names.insert(line);
  return names;
}

}  // namespace

WriteReport write_export(const KernelExport& e, const fs::path& dir, bool replace) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw std::runtime_error(fmt::format("{} exists and is not a directory", dir.string()));
  bool earlier = fs::exists(dir / kExportManifest, ec);
  if (fs::exists(dir, ec) && !fs::is_empty(dir, ec)) {
    if (!earlier)
      throw std::runtime_error(fmt::format("{} is not empty and holds no earlier export (no {} file): give a new or empty "
                                           "directory; ekb export never overwrites files it did not write",
                                           dir.string(), kExportManifest));
    if (!replace)
      throw std::runtime_error(fmt::format("{} holds an earlier export: add --replace to replace its files (files ekb did not "
                                           "write there, such as a build directory, are left alone), or give a new directory",
                                           dir.string()));
  }
  std::set<std::string> ours = earlier ? read_manifest(dir) : std::set<std::string>{};
  // Refuse before writing anything: a file of this export that is there but not ekb's.
  for (const auto& f : e.files)
    if (fs::exists(dir / f.name, ec) && !ours.count(f.name))
      throw std::runtime_error(fmt::format("{} exists and was not written by ekb export (it is not in {}); move it away or "
                                           "give another directory",
                                           (dir / f.name).string(), (dir / kExportManifest).string()));
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot create {}: {}", dir.string(), ec.message()));
  // The manifest first lists every file ekb may leave here (the earlier export's and this one's), so
  // that a write cut short leaves a directory that --replace can still take back.
  auto write_manifest = [&](const std::set<std::string>& names) {
    std::ostringstream manifest;
    manifest << "# the files ekb export wrote here (`ekb export --replace` replaces only these)\n";
    for (const auto& n : names) manifest << n << "\n";
    write_atomically(dir / kExportManifest, manifest.str());
  };
  std::set<std::string> all = ours;
  for (const auto& f : e.files) all.insert(f.name);
  write_manifest(all);
  WriteReport r;
  std::set<std::string> now;
  for (const auto& f : e.files) {
    write_atomically(dir / f.name, f.text);
    r.written.push_back(f.name);
    now.insert(f.name);
  }
  for (const auto& old : ours)
    if (!now.count(old) && old.find('/') == std::string::npos && fs::remove(dir / old, ec)) r.removed.push_back(old);
  write_manifest(now);
  return r;
}

}  // namespace ekb::io
