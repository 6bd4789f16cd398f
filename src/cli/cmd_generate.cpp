// `ekb generate`: direct generation — one request per task and sample to an OpenAI-compatible
// endpoint, the code of each reply written as DIR/TASK.sN.EXT for `ekb eval DIR` to score; every
// request stored; resumable after a kill with nothing asked twice.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "agent/generate.h"
#include "cli/commands.h"
#include "cli/llm_flags.h"

namespace ekb::cli {

void register_generate(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand("generate", "Direct generation: ask a language model (any OpenAI-compatible endpoint) for each "
                                             "task's kernel, N samples per task, and write the code of each reply to --out as "
                                             "TASK.sN.ekb / .c / .cu / .cl; `ekb eval DIR` then scores them. Every prompt, reply, "
                                             "token count and latency is stored; resumable (run it again with the same arguments).");
  struct Opts {
    std::string mode = "ir", backend, device, tasks, subset, out, db = default_db(), shard;
    int samples = 1;
    bool json = false, retry_failed = false;
    LlmFlags llm;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--mode", o->mode, "ir: programs in ekb's IR; raw: C, CUDA C or OpenCL C source (default: ir)")->option_text("ir|raw");
  cmd->add_option("--backend", o->backend, "cpu, cuda or opencl (default: the device profile's)")->option_text("B");
  cmd->add_option("--device", o->device, "a device profile (`ekb devices`; default: the backend's)")->option_text("PROFILE");
  cmd->add_option("--samples", o->samples, "samples per task (default 1)")->option_text("N")->check(CLI::PositiveNumber);
  cmd->add_option("--tasks", o->tasks, "the tasks matching this glob (default: the agent subset)")->option_text("GLOB");
  cmd->add_option("--subset", o->subset, "a subset declared in the suite (default: agent)")->option_text("NAME");
  add_shard_option(cmd, o->shard);
  cmd->add_option("--out", o->out, "the directory the samples are written to (created)")->option_text("DIR")->required();
  cmd->add_option("--db", o->db, "the results store (default: $EKB_DB, else ./ekb_results.db)")->option_text("FILE");
  cmd->add_flag("--retry-failed", o->retry_failed, "ask again the samples whose request failed (no reply) in an earlier session");
  cmd->add_flag("--json", o->json, "print a JSON summary instead of the lines");
  add_llm_flags(cmd, o->llm);
  cmd->callback([o, &g] {
    agent::CodeMode mode = agent::parse_code_mode(o->mode);
    DeviceProfile dev = device_for(o->device, o->backend);
    Suite suite = g.load_suite();
    std::vector<const Task*> tasks = select_tasks(suite, o->tasks, o->subset);
    llm::EndpointConfig endpoint = endpoint_from(o->llm);
    llm::PriceTable prices = prices_for(o->llm, endpoint.model);
    agent::PromptTemplates templates = agent::PromptTemplates::load(agent::PromptTemplates::default_dir(o->llm.prompts));
    agent::GenerateOptions go;
    go.mode = mode;
    go.samples = o->samples;
    go.out_dir = o->out;
    go.retry_failed = o->retry_failed;
    go.budget = budget_from(o->llm);
    // The key: what defines the experiment (not the budget, so that a run stopped by its budget resumes with a larger one).
    nlohmann::json key{{"command", "generate"}, {"mode", agent::code_mode_name(mode)}, {"backend", backend_name(dev.backend)},
                       {"device", dev.name}, {"model", endpoint.model}, {"endpoint", endpoint.describe()},
                       {"prompt_version", templates.version()}, {"samples", o->samples},
                       {"out", std::filesystem::absolute(o->out).lexically_normal().string()},
                       {"temperature", endpoint.temperature}, {"max_tokens", endpoint.max_tokens}};
    for (const Task* t : tasks) key["tasks"].push_back(t->name);
    apply_shard(o->shard, tasks, key);
    ResultsStore store(o->db);
    if (!o->json)
      std::cout << fmt::format("ekb generate: {} tasks x {} samples, mode {}, backend {} (device `{}`), {}, prompts {}\n", tasks.size(),
                               o->samples, agent::code_mode_name(mode), backend_name(dev.backend), dev.name, endpoint.describe(),
                               templates.version());
    size_t done = 0, total = tasks.size() * static_cast<size_t>(o->samples);
    agent::GenerateSummary s = agent::run_generation(tasks, dev, go, templates, endpoint, prices, store, key, [&](const agent::GeneratedSample& gs) {
      ++done;
      if (o->json) return;
      const auto& r = gs.request;
      std::string what = !r.failure.empty() ? fmt::format("no reply ({})", r.failure)
                         : r.file.empty()   ? r.code_status
                                            : r.file;
      std::cout << fmt::format("[{}/{}] {} sample {}: {}{}\n", done, total, r.task, r.sample, what,
                               gs.stored ? " (stored)" : fmt::format("  {} + {} tokens, ${:.4f}, {:.1f} s", r.prompt_tokens,
                                                                     r.completion_tokens, r.cost, r.latency_s));
    });
    if (o->json) {
      nlohmann::json j{{"run", s.run.id}, {"asked", s.asked}, {"stored", s.stored}, {"with_code", s.with_code}, {"failures", s.failures},
                       {"requests", s.spent.requests}, {"prompt_tokens", s.spent.prompt_tokens},
                       {"completion_tokens", s.spent.completion_tokens}, {"cost", s.spent.cost}, {"finished", s.run.finished},
                       {"prompt_version", templates.version()}, {"out", o->out}};
      if (s.budget_stopped) j["budget_stopped"] = s.budget_reason;
      std::cout << j.dump(2) << "\n";
    } else {
      int without = 0;
      std::string kinds;
      for (const auto& [kind, n] : s.failures) {
        without += n;
        kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", n, kind);
      }
      std::cout << fmt::format("run {}: {} samples with code, {} without{}; {} requests, {} + {} tokens, ${:.4f} in all\n", s.run.id,
                               s.with_code, without, kinds.empty() ? "" : " (" + kinds + ")", s.spent.requests, s.spent.prompt_tokens,
                               s.spent.completion_tokens, s.spent.cost);
      if (s.budget_stopped)
        std::cout << fmt::format("stopped by the budget: {}; run the same command with a larger budget to go on\n", s.budget_reason);
      else
        std::cout << fmt::format("`ekb eval {}` scores them\n", o->out);
    }
    if (s.budget_stopped) throw std::runtime_error("the budget was spent before every sample was asked (run " + std::to_string(s.run.id) + " is resumable)");
  });
}

}  // namespace ekb::cli
