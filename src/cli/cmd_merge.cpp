// `ekb merge STORE... -o OUT`: results stores joined into one (harness/store_merge.h), e.g. the
// shards' stores of a sharded run; prints what went where, and every conflict.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>

#include "cli/commands.h"
#include "harness/store_merge.h"

namespace ekb::cli {

namespace {

std::string shard_list(const MergedRun& r) {
  if (r.shard_count == 0) return "no shards";
  std::string s = fmt::format("shards {} of {}", r.shards.empty() ? "none" : fmt::format("{}", fmt::join(r.shards, ",")), r.shard_count);
  if (!r.missing.empty()) s += fmt::format(" (missing {})", fmt::join(r.missing, ","));
  return s;
}

nlohmann::json report_json(const MergeReport& rep) {
  nlohmann::json j{{"out", rep.out}, {"inputs", rep.inputs}, {"written", rep.written}, {"problems", rep.problems},
                   {"notes", rep.notes}, {"duplicates", rep.duplicates}, {"runs", nlohmann::json::array()},
                   {"conflicts", nlohmann::json::array()}};
  for (const auto& r : rep.runs)
    j["runs"].push_back({{"run", r.id}, {"command", r.command}, {"backend", r.backend}, {"device", r.device}, {"key", r.key},
                         {"shard_count", r.shard_count}, {"shards", r.shards}, {"missing_shards", r.missing}, {"finished", r.finished},
                         {"attempts", r.attempts}, {"agent_steps", r.steps}, {"llm_requests", r.llm_requests}, {"from", r.from}});
  for (const auto& c : rep.conflicts)
    j["conflicts"].push_back({{"table", c.table}, {"run", c.run}, {"key", c.key}, {"stores", {c.first_store, c.second_store}},
                              {"differences", c.differences}});
  return j;
}

}  // namespace

void register_merge(CLI::App& app, Globals&) {
  auto* cmd = app.add_subcommand(
      "merge", "Merge results stores into one (-o OUT), e.g. the stores of a sharded run's shards (`--shard I/N`, `ekb slurm "
               "submit`): the shards of one run become one run; the same row given twice is kept once; the same key with "
               "different results is a conflict, reported, and then nothing is written. An existing OUT is merged into (nothing "
               "it holds is lost); OUT is written whole, then renamed into place; the inputs are only read. Exit status 1 on a "
               "conflict or a refused input (another schema version, shards from unlike machines).");
  struct Opts {
    std::vector<std::string> inputs;
    std::string out;
    bool json = false, missing_ok = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("STORE", o->inputs, "the stores to merge (read only; each must have this ekb's schema)")->required();
  cmd->add_option("-o,--out", o->out, "the merged store (created, or merged into when it exists)")->option_text("OUT")->required();
  cmd->add_flag("--missing-ok", o->missing_ok, "skip (and name) a STORE that does not exist, e.g. a shard that never started");
  cmd->add_flag("--json", o->json, "print one JSON object instead of the lines");
  cmd->callback([o] {
    MergeReport rep = merge_stores(o->inputs, o->out, MergeOptions{o->missing_ok});
    if (o->json) {
      std::cout << report_json(rep).dump(2) << "\n";
    } else {
      std::cout << fmt::format("ekb merge: {} stores into {}\n", rep.inputs.size(), rep.out);
      for (const auto& r : rep.runs)
        std::cout << fmt::format("run {:>4}  {:<9} {:<16} {:<6}  {:<22} {:<10}  {} attempts, {} agent steps, {} LLM requests\n", r.id,
                                 r.command, r.device, r.backend, shard_list(r), r.finished ? "finished" : "unfinished", r.attempts,
                                 r.steps, r.llm_requests);
      for (const auto& n : rep.notes) std::cout << "note: " << n << "\n";
      for (const auto& c : rep.conflicts) std::cout << "conflict: " << c.describe() << "\n";
      for (const auto& p : rep.problems) std::cout << "refused: " << p << "\n";
      if (rep.written) std::cout << fmt::format("wrote {}\n", rep.out);
    }
    if (!rep.ok())
      throw std::runtime_error(fmt::format("{} conflicts, {} refused inputs: nothing was written{}", rep.conflicts.size(),
                                           rep.problems.size(), std::filesystem::exists(o->out) ? fmt::format(" ({} is as it was)", o->out) : ""));
  });
}

}  // namespace ekb::cli
