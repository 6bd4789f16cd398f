// `ekb slurm submit ... -- eval|agent|generate ARGS`: a sharded run as a Slurm job array plus a merge
// job (cluster/slurm_job.h); `--dry-run` prints the scripts instead.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cluster/slurm_job.h"
#include "runtime/cpu/run_process.h"

namespace ekb::cli {

namespace fs = std::filesystem;

void register_slurm(CLI::App& app, Globals& g) {
  auto* slurm = app.add_subcommand("slurm", "Sharded runs on a Slurm cluster (docs/scale.md).");
  slurm->require_subcommand(1);
  auto* cmd = slurm->add_subcommand(
      "submit",
      "Run `ekb eval`, `ekb agent` or `ekb generate` (the command after `--`) in N shards as an sbatch job array, shard I "
      "into DIR/shard-I.db, and a merge job (after every shard has ended, however) that merges them into OUT with `ekb merge`. "
      "The scripts go to DIR (shards.sbatch, merge.sbatch, job.json, logs/). The same command into the same DIR again runs the "
      "shards that have not finished (each continues its stored run), then the merge. Paths must be on a file system every "
      "node sees.");
  struct Opts {
    std::vector<std::string> command, sbatch_args;
    std::string dir = "ekb_slurm", out, partition, time, seed, ekb;
    int shards = 4, cpus_per_task = 0;
    bool dry_run = false, share_nodes = false, json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--shards", o->shards, "the number of shards, one array task each (default 4)")->option_text("N")->check(CLI::PositiveNumber);
  cmd->add_option("--dir", o->dir, "where the shards' stores, the scripts and the logs go (default ./ekb_slurm)")->option_text("DIR");
  cmd->add_option("-o,--out", o->out, "the merged store (default DIR/merged.db; merged into when it exists)")->option_text("STORE");
  cmd->add_option("--partition", o->partition, "the Slurm partition (default: the cluster's)")->option_text("P");
  cmd->add_option("--time", o->time, "each shard's time limit, as sbatch takes it (e.g. 2:00:00; default: the partition's)")->option_text("T");
  cmd->add_option("--cpus-per-task", o->cpus_per_task, "CPUs per shard (default: Slurm's; with --exclusive the node's)")->option_text("C");
  cmd->add_flag("--share-nodes", o->share_nodes,
                "let shards share nodes (default for generate; eval and agent ask for a node each (--exclusive): shards timing "
                "kernels side by side would time each other, and a node's peak rates are measured only when it is quiet)");
  cmd->add_option("--sbatch-arg", o->sbatch_args, "one more sbatch option for the shards, e.g. --sbatch-arg=--constraint=avx512 (repeatable)")
      ->option_text("ARG");
  cmd->add_option("--seed", o->seed,
                  "each shard's store starts as a copy of this store (when it does not exist yet): the peak rates measured on "
                  "these machines, the stored baselines a prompt quotes")
      ->option_text("STORE");
  cmd->add_option("--ekb", o->ekb, "the ekb binary the jobs run (default: this one)")->option_text("PATH");
  cmd->add_flag("--dry-run", o->dry_run, "print the two scripts; write and submit nothing");
  cmd->add_flag("--json", o->json, "print the job ids and paths as JSON");
  cmd->add_option("COMMAND", o->command, "after `--`: eval, agent or generate and its arguments (not --shard, not --db)")->required();
  cmd->callback([o, &g] {
    cluster::SlurmJob job;
    job.command = o->command;
    job.shards = o->shards;
    job.workdir = fs::current_path().string();
    job.dir = fs::absolute(o->dir).lexically_normal().string();
    job.out = o->out.empty() ? (fs::path(job.dir) / "merged.db").string() : fs::absolute(o->out).lexically_normal().string();
    job.ekb = o->ekb.empty() ? fs::read_symlink("/proc/self/exe").string() : fs::absolute(o->ekb).lexically_normal().string();
    if (!g.suite_dir.empty()) job.suite = fs::absolute(g.suite_dir).lexically_normal().string();
    job.partition = o->partition;
    job.time = o->time;
    job.cpus_per_task = o->cpus_per_task;
    job.sbatch_args = o->sbatch_args;
    if (!o->seed.empty()) job.seed = fs::absolute(o->seed).lexically_normal().string();
    auto which = cluster::sharded_command(job.command.empty() ? "" : job.command[0]);
    job.exclusive = which && cluster::exclusive_by_default(*which) && !o->share_nodes;
    try {
      cluster::check_job(job);
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("ekb slurm submit", e.what());
    }
    if (o->dry_run) {
      std::cout << "# " << cluster::shards_script_path(job) << "\n" << cluster::shards_script(job) << "\n# " << cluster::merge_script_path(job)
                << " (sbatch --dependency=afterany:<the array's job id>)\n" << cluster::merge_script(job);
      return;
    }
    cluster::Submitted sub = cluster::submit_job(job, [](const std::vector<std::string>& argv) {
      ProcessResult r = run_process(argv);
      return cluster::CommandResult{r.exit_code, r.output};
    });
    if (o->json) {
      nlohmann::json j{{"array_job", sub.array_id}, {"merge_job", sub.merge_id}, {"dir", job.dir}, {"out", job.out},
                       {"shards", job.shards}, {"submitted_shards", sub.shards}, {"seeded", sub.seeded}, {"scripts", {cluster::shards_script_path(job), cluster::merge_script_path(job)}}};
      for (int i = 1; i <= job.shards; ++i) j["stores"].push_back(cluster::shard_store(job, i));
      std::cout << j.dump(2) << "\n";
      return;
    }
    if (sub.shards.empty()) {
      std::cout << fmt::format("ekb slurm: every shard of `ekb {}` in {} has finished; merge job {} merges them into {}\n",
                               fmt::join(job.command, " "), job.dir, sub.merge_id, job.out);
      return;
    }
    std::cout << fmt::format("ekb slurm: job array {} runs `ekb {}` in {} shards ({} now{}; stores {}/shard-I.db); merge job {} (after "
                             "every shard) merges them into {}\n",
                             sub.array_id, fmt::join(job.command, " "), job.shards,
                             static_cast<int>(sub.shards.size()) == job.shards ? "all" : fmt::format("{}", fmt::join(sub.shards, ",")),
                             sub.seeded.empty() ? "" : fmt::format(", {} seeded from {}", sub.seeded.size(), job.seed), job.dir,
                             sub.merge_id, job.out);
    std::cout << fmt::format("watch: squeue -j {},{}   logs: {}/logs/   then: ekb results --db {}\n", sub.array_id, sub.merge_id, job.dir,
                             job.out);
  });
}

}  // namespace ekb::cli
