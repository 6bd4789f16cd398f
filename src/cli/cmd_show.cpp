// `ekb show TASK`: the task's .ekb text (what a model is given); with --json, also its figures.
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/task_json.h"
#include "codegen/c_printer.h"
#include "loops/graph.h"

namespace ekb::cli {

void register_show(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand("show", "Print a task's .ekb text: what a model is given and what a candidate starts from.");
  auto name = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto abi = std::make_shared<std::string>();
  cmd->add_option("TASK", *name, "task name (see `ekb list`)")->required();
  cmd->add_option("--abi", *abi, "print the kernel signature and calling contract a raw submission implements for this "
                                 "backend: cpu, cuda or opencl")
      ->option_text("BACKEND");
  cmd->add_flag("--json", *json, "print a JSON object: the text plus name, pattern, category, domain, stages, flops, "
                                 "bytes, inputs and outputs");
  cmd->callback([name, json, abi, &g] {
    Suite s = g.load_suite();
    const Task& t = find_task(s, *name);
    if (!abi->empty()) {
      Backend b = parse_backend(*abi);
      lower::Graph gr = lower::build_graph(*t.program);
      if (b == Backend::cpu) std::cout << codegen::c_abi_text(t.name, gr.inputs, gr.outputs, codegen::c_dialect());
      else std::cout << codegen::gpu_abi_text(t.name, gr.inputs, gr.outputs, codegen::dialect_for(b));
      return;
    }
    if (*json) {
      nlohmann::json o = task_json(t);
      o["text"] = t.text;
      std::cout << o.dump(2) << "\n";
      return;
    }
    std::cout << t.text;
  });
}

}  // namespace ekb::cli
