// Task figures as JSON: names, category, domain, stage count, flops, bytes, must-read bytes, inputs and outputs.
#include "cli/task_json.h"

#include "suite/figures.h"
#include "suite/task_hash.h"

namespace ekb::cli {

nlohmann::json task_json(const Task& t) {
  const Program& p = *t.program;
  Figures f = compute_figures(p);
  auto tensors = [&](const std::vector<int>& ids) {
    nlohmann::json a = nlohmann::json::array();
    for (int id : ids) {
      const TensorInfo& ti = p.tensors[id];
      nlohmann::json o = {{"name", ti.name}, {"dtype", std::string(dtype_name(ti.dtype))}, {"shape", ti.shape}};
      if (ti.role == TensorRole::input) o["distribution"] = ti.dist.text();
      a.push_back(o);
    }
    return a;
  };
  return {
      {"name", t.name},         {"pattern", t.pattern},         {"category", t.category},
      {"domain", t.domain},     {"stages", f.stages},           {"flops", f.flops},
      {"bytes", f.bytes},       {"must_read_bytes", f.must_read_bytes},
      {"inputs", tensors(p.inputs)},  {"outputs", tensors(p.outputs)},
      {"file", t.file.string()},  {"task_hash", task_hash(p)},    {"suite_version", t.suite_version},
  };
}

}  // namespace ekb::cli
