// Scanning a submission directory (submissions.h).
#include "harness/submissions.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "util/strings.h"

namespace ekb {

namespace fs = std::filesystem;

const char* source_kind_name(SourceKind k) {
  switch (k) {
    case SourceKind::ekb: return "ekb";
    case SourceKind::c: return "c";
    case SourceKind::cpp: return "cpp";
    case SourceKind::cu: return "cu";
    case SourceKind::cl: return "cl";
  }
  return "?";
}

std::optional<SourceKind> submission_kind(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  if (ext == ".ekb") return SourceKind::ekb;
  if (ext == ".c") return SourceKind::c;
  if (ext == ".cpp" || ext == ".cc" || ext == ".cxx") return SourceKind::cpp;
  if (ext == ".cu") return SourceKind::cu;
  if (ext == ".cl") return SourceKind::cl;
  return std::nullopt;
}

bool backend_takes(Backend backend, SourceKind kind) {
  switch (kind) {
    case SourceKind::ekb: return true;
    case SourceKind::c:
    case SourceKind::cpp: return backend == Backend::cpu;
    case SourceKind::cu: return backend == Backend::cuda;
    case SourceKind::cl: return backend == Backend::opencl;
  }
  return false;
}

std::string raw_kinds_taken(Backend backend) {
  return backend == Backend::cpu ? ".c or .cpp" : backend == Backend::cuda ? ".cu" : ".cl";
}

namespace {

// The failed samples a generation's manifest lists, for which no file gave the sample.
void add_failed_samples(const fs::path& manifest, const Suite& suite, const std::string& tasks_glob,
                        const std::map<std::pair<std::string, int>, std::string>& seen, SubmissionSet& out) {
  std::ifstream f(manifest);
  nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("failed") || !j["failed"].is_array()) {
    out.problems.push_back(fmt::format("{}: not a generation manifest (expected {{\"failed\": [...]}})", manifest.string()));
    return;
  }
  for (const auto& e : j["failed"]) {
    if (!e.is_object() || !e.contains("task") || !e["task"].is_string() || !e.contains("sample") || !e["sample"].is_number_integer()) {
      out.problems.push_back(fmt::format("{}: an entry without a task and a sample: {}", manifest.string(), e.dump()));
      continue;
    }
    std::string task = e["task"], outcome = e.value("outcome", "no code");
    int sample = e["sample"];
    if (!suite.find(task)) {
      out.problems.push_back(fmt::format("{}: no task named `{}`", manifest.string(), task));
      continue;
    }
    if (!tasks_glob.empty() && fnmatch(tasks_glob.c_str(), task.c_str(), 0) != 0) continue;
    if (seen.count({task, sample})) continue;  // a file gives the sample after all
    std::optional<Outcome> o = find_outcome(outcome);
    if (!o) {
      out.problems.push_back(fmt::format("{}: unknown outcome `{}` for sample {} of `{}`", manifest.string(), outcome, sample, task));
      continue;
    }
    out.items.push_back({task, manifest.string(), SourceKind::ekb, sample, "", o, e.value("message", "")});
  }
}

}  // namespace

SubmissionSet scan_submissions(const std::string& dir, const Suite& suite, const std::string& tasks_glob) {
  SubmissionSet out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw std::runtime_error(fmt::format("`{}` is not a directory of submissions", dir));
  std::vector<std::string> names;
  for (const auto& t : suite.tasks()) names.push_back(t.name);
  std::map<std::pair<std::string, int>, std::string> seen;
  std::vector<fs::path> files;
  std::optional<fs::path> manifest;
  for (const auto& e : fs::directory_iterator(dir, ec)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    std::string file = path.filename().string();
    if (file.starts_with(".")) continue;  // hidden files (editor swap files, .gitkeep)
    if (file == kGenerationManifest) {
      manifest = path;
      continue;
    }
    if (!fs::is_regular_file(path, ec)) {
      out.problems.push_back(fmt::format("{}: not a regular file", path.string()));
      continue;
    }
    std::optional<SourceKind> kind = submission_kind(path);
    if (!kind) {
      out.problems.push_back(fmt::format("{}: not a submission (expected TASK.ekb, TASK.c, TASK.cpp, TASK.cu or TASK.cl, optionally TASK.sN.EXT)",
                                         path.string()));
      continue;
    }
    std::string stem = path.stem().string();
    int sample = 0;
    size_t dot = stem.rfind(".s");
    if (dot != std::string::npos && dot + 2 < stem.size() &&
        std::all_of(stem.begin() + static_cast<long>(dot) + 2, stem.end(), [](unsigned char c) { return std::isdigit(c); })) {
      sample = std::stoi(stem.substr(dot + 2));
      stem = stem.substr(0, dot);
    }
    if (!suite.find(stem)) {
      std::string near = closest_match(stem, names);
      out.problems.push_back(fmt::format("{}: no task named `{}`{}", path.string(), stem,
                                         near.empty() ? "" : fmt::format(" (did you mean `{}`?)", near)));
      continue;
    }
    if (!tasks_glob.empty() && fnmatch(tasks_glob.c_str(), stem.c_str(), 0) != 0) continue;
    std::ifstream f(path, std::ios::binary);
    std::string text = f ? std::string(std::istreambuf_iterator<char>(f), {}) : std::string();
    if (!f.is_open() || f.bad()) {
      out.problems.push_back(fmt::format("{}: cannot be read", path.string()));
      continue;
    }
    auto [it, fresh] = seen.insert({{stem, sample}, path.string()});
    if (!fresh) {
      out.problems.push_back(fmt::format("{}: sample {} of `{}` is also given by {}", path.string(), sample, stem, it->second));
      continue;
    }
    out.items.push_back({stem, path.string(), *kind, sample, std::move(text), std::nullopt, ""});
  }
  if (manifest) add_failed_samples(*manifest, suite, tasks_glob, seen, out);
  std::sort(out.items.begin(), out.items.end(),
            [](const Submission& a, const Submission& b) { return std::tie(a.task, a.sample) < std::tie(b.task, b.sample); });
  return out;
}

SubmissionSet default_submissions(const Suite& suite, const std::string& tasks_glob) {
  SubmissionSet subs;
  for (const auto& t : suite.tasks()) {
    if (!tasks_glob.empty() && fnmatch(tasks_glob.c_str(), t.name.c_str(), 0) != 0) continue;
    Submission s;
    s.task = t.name;
    s.path = t.file.string() + ":" + t.name;
    s.kind = SourceKind::ekb;
    s.text = t.text;
    subs.items.push_back(std::move(s));
  }
  std::sort(subs.items.begin(), subs.items.end(), [](const Submission& a, const Submission& b) { return a.task < b.task; });
  return subs;
}

void keep_shard(SubmissionSet& subs, int i, int n) {
  std::vector<std::string> tasks;
  for (const auto& s : subs.items) tasks.push_back(s.task);
  std::set<std::string> keep = shard_tasks(std::move(tasks), Shard{i, n});
  std::erase_if(subs.items, [&](const Submission& s) { return !keep.count(s.task); });
}

}  // namespace ekb
