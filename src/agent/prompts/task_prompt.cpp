// Prompts for a task (task_prompt.h).
#include "agent/prompts/task_prompt.h"

#include <fmt/format.h>

#include <stdexcept>

#include "codegen/c_printer.h"
#include "codegen/dialect.h"
#include "eval/report.h"
#include "loops/graph.h"

namespace ekb::agent {

const char* code_mode_name(CodeMode m) { return m == CodeMode::ir ? "ir" : "raw"; }

CodeMode parse_code_mode(const std::string& name) {
  if (name == "ir") return CodeMode::ir;
  if (name == "raw") return CodeMode::raw;
  throw std::runtime_error("unknown mode `" + name + "`: use ir (a program in ekb's IR) or raw (C, CUDA C or OpenCL C source)");
}

CodeLanguage code_language(CodeMode mode, Backend backend) {
  if (mode == CodeMode::ir) return {"the ekb IR", "ekb", {"EKB"}, SourceKind::ekb};
  switch (backend) {
    case Backend::cpu: return {"C", "c", {"C", "c11", "c99"}, SourceKind::c};
    case Backend::cuda: return {"CUDA C", "cuda", {"cu", "CUDA", "cuda-c", "cpp", "c++"}, SourceKind::cu};
    case Backend::opencl: return {"OpenCL C", "opencl", {"cl", "OpenCL", "opencl-c", "c"}, SourceKind::cl};
  }
  throw std::logic_error("code_language: unknown backend");
}

std::optional<StoredBaseline> stored_baseline(ResultsStore& store, const std::string& task, const std::string& device) {
  auto b = store.newest_baseline(task, device);
  if (!b) return std::nullopt;
  return StoredBaseline{b->second.median, b->first, timing_name(timing_of(*store.run(b->first)))};
}

std::string device_facts(const DeviceProfile& d) {
  Target t = d.target();
  std::string s = fmt::format("- profile `{}`: {}\n- target: {}\n", d.name, d.description, t.describe());
  if (d.is_gpu())
    s += fmt::format("- a launch may use at most {} threads and {} KiB of shared memory per block; a schedule beyond them is "
                     "rejected when it is compiled\n- scratch buffers in device memory: at most {} MiB\n",
                     t.max_threads_per_block, t.shared_memory_per_block >> 10, d.memory_budget >> 20);
  else
    s += fmt::format("- threads: {} (the kernel may use at most that many)\n- the kernel's own allocations beyond its arguments: at most {} MiB\n",
                     d.threads, d.memory_budget >> 20);
  return s;
}

std::string baseline_text(const std::optional<StoredBaseline>& b) {
  if (!b) return "No time of the task's baseline on this device is stored yet.";
  return fmt::format("The task's baseline (its default schedule) ran in {:.4f} ms per call on this device (run {}, timed {}).", b->ms,
                     b->run, b->timing);
}

std::string task_abi_text(const Task& task, Backend backend) {
  lower::Graph gr = lower::build_graph(*task.program);
  if (backend == Backend::cpu) return codegen::c_abi_text(task.name, gr.inputs, gr.outputs, codegen::c_dialect());
  return codegen::gpu_abi_text(task.name, gr.inputs, gr.outputs, codegen::dialect_for(backend));
}

Prompt generation_prompt(const PromptTemplates& t, const PromptContext& c) {
  if (!c.task) throw std::logic_error("generation_prompt: no task");
  const Task& task = *c.task;
  Backend backend = c.device.backend;
  CodeLanguage lang = code_language(c.mode, backend);
  std::map<std::string, std::string> vars{
      {"task_name", task.name},
      {"task_text", task.text},
      {"backend", backend_name(backend)},
      {"device_name", c.device.name},
      {"device_facts", device_facts(c.device)},
      {"baseline", baseline_text(c.baseline)},
      {"language", lang.name},
      {"fence", lang.fence},
  };
  for (const char* k : {"task_text", "device_facts"})
    while (!vars[k].empty() && vars[k].back() == '\n') vars[k].pop_back();
  Prompt p;
  p.version = t.version();
  if (c.mode == CodeMode::ir) {
    p.template_name = "generate_ir";
    vars["card"] = t.text("ir_card");
  } else {
    p.template_name = "generate_raw";
    vars["abi"] = task_abi_text(task, backend);
    while (!vars["abi"].empty() && vars["abi"].back() == '\n') vars["abi"].pop_back();
  }
  p.messages.push_back({"system", t.render("system", vars)});
  p.messages.push_back({"user", t.render(p.template_name, vars)});
  return p;
}

}  // namespace ekb::agent
