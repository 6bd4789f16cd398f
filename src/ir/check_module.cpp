// The whole-file check (kernel, bounds, sections, workloads) and the workload table's rules.
#include <fmt/format.h>

#include <set>

#include "ir/check.h"
#include "ir/const_eval.h"
#include "ir/parser.h"
#include "schedule/check_sections.h"
#include "util/strings.h"

namespace ekb {

void check_workloads(const Program& p, DiagnosticList& diags) {
  const Module& m = *p.module;
  if (!m.workloads) return;
  const SourcePtr& src = p.source();
  std::set<std::string> names;
  std::vector<std::string> dim_names;
  for (const auto& [n, v] : p.dims) dim_names.push_back(n);
  if (m.workloads->items.empty())
    diags.error(src, m.workloads->loc, "the `workloads` section lists no workload",
                "add lines like `name_256: N = 256`, or remove the section");
  for (const auto& w : m.workloads->items) {
    if (!names.insert(w.name).second)
      diags.error(src, w.loc, fmt::format("workload `{}` is listed twice", w.name), "give each workload its own name");
    std::set<std::string> keys;
    for (const auto& it : w.items) {
      if (!keys.insert(it.key).second) {
        diags.error(src, it.loc, fmt::format("`{}` is given twice in workload `{}`", it.key, w.name), "keep one value");
        continue;
      }
      if (it.key == "domain") {
        const auto& known = known_domains();
        if (std::find(known.begin(), known.end(), it.word) == known.end())
          diags.error(src, it.word_loc, fmt::format("unknown domain `{}`", it.word), "known: " + quoted_list(known, "or"));
        continue;
      }
      bool is_dim = std::find(dim_names.begin(), dim_names.end(), it.key) != dim_names.end();
      if (!is_dim) {
        std::string near = closest_match(it.key, dim_names);
        diags.error(src, it.loc, fmt::format("`{}` is not a dim of kernel `{}`", it.key, p.name),
                    near.empty() ? "the dims are " + quoted_list(dim_names) : fmt::format("did you mean `{}`?", near));
        continue;
      }
      // Workload values are plain constants: they cannot refer to other dims.
      auto v = eval_const(*it.value, [](const std::string&) { return std::nullopt; }, src, diags,
                          fmt::format("`{}` of workload `{}`", it.key, w.name));
      if (v && (v->is_float || v->i < 1 || v->i > kMaxDim))
        diags.error(src, it.value->loc, fmt::format("`{}` of workload `{}` must be an integer in 1..{}", it.key, w.name, kMaxDim),
                    "workload values are plain whole numbers, e.g. `N = 256`");
    }
  }
}

std::shared_ptr<Program> check_module(const std::shared_ptr<Module>& module, DiagnosticList& diags) {
  size_t before = diags.error_count();
  auto p = check_kernel(module, diags);
  if (!p) {
    return nullptr;
  }
  check_bounds(*p, diags);
  check_sections(*p, diags);
  check_workloads(*p, diags);
  return diags.error_count() > before ? nullptr : p;
}

std::shared_ptr<Program> load_program(const SourcePtr& src, DiagnosticList* warnings) {
  DiagnosticList diags;
  auto module = std::make_shared<Module>(parse_module(src, diags));
  std::shared_ptr<Program> p;
  if (!diags.has_errors()) p = check_module(module, diags);
  if (!p) throw DiagnosticError(std::move(diags));
  if (warnings) warnings->append(diags);
  return p;
}

}  // namespace ekb
