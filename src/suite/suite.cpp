// Suite loading and workload instantiation (by printing the kernel with the workload's dims, then
// parsing and checking that text, so the task's text and its program can never disagree).
#include "suite/suite.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>

#include "ir/check.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "suite/suite_version.h"

#ifndef EKB_SUITE_DIR
#define EKB_SUITE_DIR "suite"
#endif

namespace ekb {

std::filesystem::path default_suite_dir() {
  if (const char* e = std::getenv("EKB_SUITE"); e && *e) return e;
  return EKB_SUITE_DIR;
}

namespace {

std::shared_ptr<Program> check_text(const std::string& name, const std::string& text, DiagnosticList& diags) {
  auto src = std::make_shared<SourceFile>(name, text);
  DiagnosticList local;
  auto module = std::make_shared<Module>(parse_module(src, local));
  std::shared_ptr<Program> p;
  if (!local.has_errors()) p = check_module(module, local);
  for (const auto& d : local.items())
    if (d.severity == Severity::error || !p) diags.add(d);
  if (p) {
    // Warnings in suite tasks are errors: the suite must be clean.
    for (const auto& d : local.items())
      if (d.severity == Severity::warning) {
        Diagnostic e = d;
        e.severity = Severity::error;
        diags.add(e);
        p = nullptr;
      }
  }
  return p;
}

bool require_meta(const Program& p, const std::string& task, DiagnosticList& diags) {
  bool ok = true;
  Loc loc = p.module->kernel->loc;
  if (p.category.empty()) {
    diags.error(p.source(), loc, fmt::format("suite task `{}` has no category", task), "add a line like `category gemm`");
    ok = false;
  }
  if (p.domain.empty()) {
    diags.error(p.source(), loc, fmt::format("suite task `{}` has no domain", task), "add a line like `domain vision`");
    ok = false;
  }
  return ok;
}

}  // namespace

std::vector<Task> load_suite_file(const std::filesystem::path& path, const SourcePtr& src, DiagnosticList& diags) {
  std::vector<Task> out;
  const std::string& display = src->name;
  DiagnosticList local;
  auto module = std::make_shared<Module>(parse_module(src, local));
  std::shared_ptr<Program> tmpl;
  if (!local.has_errors()) tmpl = check_module(module, local);
  diags.append(local);
  if (!tmpl) return out;
  if (!module->sections.empty())
    diags.error(src, module->sections[0].loc, "suite files hold kernels, not schedules",
                "move the schedule into a candidate file; the suite's baseline schedule is generated");
  if (!module->workloads) {
    if (!require_meta(*tmpl, tmpl->name, diags)) return out;
    Task t;
    t.name = tmpl->name;
    t.pattern = tmpl->pattern;
    t.category = tmpl->category;
    t.domain = tmpl->domain;
    t.text = print_kernel(*module->kernel);
    t.file = path;
    t.program = check_text(fmt::format("{} ({})", t.name, display), t.text, diags);
    if (t.program) out.push_back(std::move(t));
    return out;
  }
  for (const auto& w : module->workloads->items) {
    KernelPrintOptions o;
    o.name = w.name;
    o.pattern = module->kernel->name;
    for (const auto& it : w.items) {
      if (it.key == "domain") o.domain = it.word;
      else o.dims[it.key] = print_expr(*it.value);
    }
    Task t;
    t.name = w.name;
    t.text = print_kernel(*module->kernel, o);
    t.file = path;
    t.program = check_text(fmt::format("{} (workload of {})", w.name, display), t.text, diags);
    if (!t.program) continue;
    if (!require_meta(*t.program, t.name, diags)) continue;
    t.pattern = t.program->pattern;
    t.category = t.program->category;
    t.domain = t.program->domain;
    out.push_back(std::move(t));
  }
  return out;
}

Suite Suite::load(const std::filesystem::path& dir) {
  Suite s;
  s.dir_ = dir;
  DiagnosticList diags;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    diags.error(nullptr, {}, fmt::format("suite directory `{}` does not exist", dir.string()));
    throw DiagnosticError(std::move(diags));
  }
  try {
    s.version_ = read_suite_version(dir);
  } catch (const std::exception& e) {
    diags.error(nullptr, {}, e.what());
  }
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".ekb") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::map<std::string, std::filesystem::path> seen;
  for (const auto& f : files) {
    std::string display = std::filesystem::relative(f, dir.parent_path(), ec).string();
    if (ec || display.empty()) display = f.string();
    SourcePtr src;
    try {
      src = std::make_shared<SourceFile>(display, read_source_file(f.string())->text);
    } catch (const std::exception& e) {
      diags.error(nullptr, {}, e.what());
      continue;
    }
    for (auto& t : load_suite_file(f, src, diags)) {
      auto [it, fresh] = seen.emplace(t.name, f);
      if (!fresh) {
        diags.error(t.program->source(), t.program->module->kernel->loc,
                    fmt::format("task name `{}` is used twice (also in {})", t.name, it->second.string()),
                    "task names are unique across the suite");
        continue;
      }
      t.suite_version = s.version_;
      s.tasks_.push_back(std::move(t));
    }
  }
  // Subsets: subsets/NAME.txt, one task name per line (`#` starts a comment); every name must be a task.
  std::vector<std::filesystem::path> subset_files;
  if (std::filesystem::is_directory(dir / "subsets", ec))
    for (const auto& e : std::filesystem::directory_iterator(dir / "subsets"))
      if (e.is_regular_file() && e.path().extension() == ".txt") subset_files.push_back(e.path());
  std::sort(subset_files.begin(), subset_files.end());
  for (const auto& f : subset_files) {
    SourcePtr src = read_source_file(f.string());
    std::vector<std::string> names;
    int line_no = 0;
    std::istringstream in(src->text);
    for (std::string line; std::getline(in, line);) {
      ++line_no;
      std::string name = line.substr(0, line.find('#'));
      name.erase(0, name.find_first_not_of(" \t\r"));
      name.erase(name.find_last_not_of(" \t\r") + 1);
      if (name.empty()) continue;
      Loc loc{line_no, static_cast<int>(line.find(name)) + 1, static_cast<int>(name.size())};
      if (!seen.count(name))
        diags.error(src, loc, fmt::format("subset `{}` names `{}`, which is not a task of the suite", f.stem().string(), name),
                    "list task names as `ekb list` prints them");
      else if (std::find(names.begin(), names.end(), name) != names.end())
        diags.error(src, loc, fmt::format("`{}` is listed twice", name), "list each task once");
      else names.push_back(name);
    }
    s.subsets_.push_back({f.stem().string(), std::move(names)});
  }
  if (diags.has_errors()) throw DiagnosticError(std::move(diags));
  return s;
}

std::vector<const Task*> Suite::subset(const std::string& name) const {
  for (const auto& [n, names] : subsets_)
    if (n == name) {
      std::vector<const Task*> out;
      for (const auto& t : names) out.push_back(find(t));
      return out;
    }
  throw std::runtime_error(fmt::format("the suite has no subset `{}` (subsets: {})", name, fmt::join(subset_names(), ", ")));
}

std::vector<std::string> Suite::subset_names() const {
  std::vector<std::string> v;
  for (const auto& [n, names] : subsets_) v.push_back(n);
  return v;
}

const Task* Suite::find(const std::string& name) const {
  for (const auto& t : tasks_)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace ekb
