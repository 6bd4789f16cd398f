// `ekb prompt TASK --mode ir|raw --backend B [--device P]`: prints exactly what a model is given for
// a task (the messages and the prompt set's version); `ekb prompt --card` prints the reference
// card made from docs/ir.md (how prompts/ir_card.md is regenerated).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "agent/prompts/ir_card.h"
#include "agent/prompts/task_prompt.h"
#include "cli/commands.h"

#ifndef EKB_SOURCE_ROOT
#define EKB_SOURCE_ROOT "."
#endif

namespace ekb::cli {

void register_prompt(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand("prompt", "Print exactly what a language model is given for a task: the system and user messages "
                                           "made from the prompt templates, with the prompt set's version.");
  struct Opts {
    std::string task, mode = "ir", backend, device, db = default_db(), prompts, docs;
    bool json = false, card = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("TASK", o->task, "task name (see `ekb list`)");
  cmd->add_option("--mode", o->mode, "ir: a program in ekb's IR (the prompt carries the language's reference card); raw: C, CUDA C "
                                     "or OpenCL C against the task's ABI (default: ir)")
      ->option_text("ir|raw");
  cmd->add_option("--backend", o->backend, "cpu, cuda or opencl (default: the device profile's)")->option_text("B");
  cmd->add_option("--device", o->device, "a device profile (`ekb devices`; default: the backend's)")->option_text("PROFILE");
  cmd->add_option("--db", o->db, "the results store the baseline's time is read from (default: $EKB_DB, else ./ekb_results.db); "
                                 "a store that does not exist is not created")
      ->option_text("FILE");
  cmd->add_option("--prompts", o->prompts, "the template directory (default: $EKB_PROMPTS, else the source tree's prompts/)")
      ->option_text("DIR");
  cmd->add_flag("--json", o->json, "print a JSON object: version, template, messages");
  cmd->add_flag("--card", o->card, "print the .ekb reference card generated from docs/ir.md (no TASK); "
                                   "`ekb prompt --card > prompts/ir_card.md` regenerates the file prompts use");
  cmd->add_option("--docs", o->docs, "with --card: the docs/ir.md to read (default: the source tree's)")->option_text("FILE");
  cmd->callback([o, &g] {
    if (o->card) {
      std::string path = o->docs.empty() ? std::string(EKB_SOURCE_ROOT) + "/docs/ir.md" : o->docs;
      std::ifstream in(path);
      if (!in) throw std::runtime_error("cannot read " + path + " (name the language's docs with --docs FILE)");
      std::ostringstream s;
      s << in.rdbuf();
      std::cout << agent::ir_card_from_docs(s.str());
      return;
    }
    if (o->task.empty()) throw CLI::ValidationError("TASK", "a task is required (or --card)");
    agent::CodeMode mode = agent::parse_code_mode(o->mode);
    DeviceProfile dev = device_for(o->device, o->backend);
    Suite suite = g.load_suite();
    const Task& task = find_task(suite, o->task);
    agent::PromptTemplates templates = agent::PromptTemplates::load(agent::PromptTemplates::default_dir(o->prompts));
    agent::PromptContext c{&task, mode, dev, std::nullopt};
    if (std::filesystem::exists(o->db)) {
      ResultsStore store(o->db);
      c.baseline = agent::stored_baseline(store, task.name, dev.name);
    }
    agent::Prompt p = agent::generation_prompt(templates, c);
    if (o->json) {
      nlohmann::json j{{"task", task.name}, {"mode", agent::code_mode_name(mode)}, {"backend", backend_name(dev.backend)},
                       {"device", dev.name}, {"prompt_version", p.version}, {"template", p.template_name}};
      for (const auto& m : p.messages) j["messages"].push_back({{"role", m.role}, {"content", m.content}});
      std::cout << j.dump(2) << "\n";
      return;
    }
    std::cout << fmt::format("# prompt {} ({}, template {}.md) for {} on {} ({}), mode {}\n", p.version, templates.dir(), p.template_name,
                             task.name, dev.name, backend_name(dev.backend), agent::code_mode_name(mode));
    for (const auto& m : p.messages) std::cout << fmt::format("\n=== {} ===\n{}", m.role, m.content);
  });
}

}  // namespace ekb::cli
