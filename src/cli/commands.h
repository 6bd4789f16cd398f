// The subcommands of `ekb`, each registered on the CLI11 app by its own file.
#pragma once
#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <string>

#include "ir/program.h"
#include "harness/device_profiles.h"
#include "harness/submissions.h"
#include "harness/timing_regime.h"
#include "suite/suite.h"
#include <nlohmann/json.hpp>

namespace ekb::cli {

struct Globals {
  std::string suite_dir;  // --suite; empty means default_suite_dir()
  std::filesystem::path suite_path() const;
  Suite load_suite() const;
};

// A program named on the command line: an existing .ekb file, else a suite task.
struct LoadedProgram {
  std::shared_ptr<Program> program;
  std::string text;  // the task's text or the file's contents
  const Task* task = nullptr;
};
// `suite` must outlive the result (it owns the task).
LoadedProgram load_file_or_task(const std::string& arg, const Globals& g, std::unique_ptr<Suite>& suite);
// Throws a clear error for an unknown task, with the closest name.
const Task& find_task(const Suite& s, const std::string& name);
// `--timing REGIME` (harness/timing_regime.h) into `timing`, its help (after `prefix`) listing the regimes.
void add_timing_option(CLI::App* cmd, std::string& timing, const std::string& prefix = "");

void register_check(CLI::App& app, Globals& g);
void register_compile(CLI::App& app, Globals& g);
void register_export(CLI::App& app, Globals& g);
void register_run(CLI::App& app, Globals& g);
void register_fmt(CLI::App& app, Globals& g);
void register_interp(CLI::App& app, Globals& g);
void register_list(CLI::App& app, Globals& g);
void register_suite_manifest(CLI::App& app, Globals& g);
void register_show(CLI::App& app, Globals& g);
void register_eval(CLI::App& app, Globals& g);
// What `ekb eval` does once the submissions are known (`ekb run` uses it for its main job): evaluate
// each one not yet stored under `key` in the store `db`, then print the report (or JSON).
void run_evaluation(const Suite& suite, const SubmissionSet& subs, const nlohmann::json& key, const DeviceProfile& dev,
                    const std::string& db, bool json, Timing timing = Timing::cold, bool quick = false);
std::string default_db();  // $EKB_DB, else ./ekb_results.db
std::string hash_hex(const std::string& text);  // XXH3 as 16 hex digits
void register_results(CLI::App& app, Globals& g);
// The suite stored attempts are compared with; none (and, unless `quiet`, a line on stderr saying
// why) when it does not load.
std::unique_ptr<Suite> current_suite(const Globals& g, bool quiet);
// Throws a clear error when `db` is not there, or is an empty file (a store is never made by reading it).
void require_store_file(const std::string& db);
void register_report(CLI::App& app, Globals& g);
void register_leaderboard(CLI::App& app, Globals& g);
void register_agent(CLI::App& app, Globals& g);
void register_trajectory(CLI::App& app, Globals& g);
// The tasks matching `glob`, else those of `subset` (default: the agent subset).
std::vector<const Task*> select_tasks(const Suite& suite, const std::string& glob, const std::string& subset);
// `--shard I/N` (suite/shard.h) for a command over selected tasks, and what it does: keeps the shard's
// tasks and adds "shard" to the run's key, whose "tasks" (set before) stay the whole selection's.
void add_shard_option(CLI::App* cmd, std::string& shard);
void apply_shard(const std::string& shard, std::vector<const Task*>& tasks, nlohmann::json& key);
void register_devices(CLI::App& app, Globals& g);
void register_prompt(CLI::App& app, Globals& g);
void register_generate(CLI::App& app, Globals& g);
void register_compare(CLI::App& app, Globals& g);
void register_merge(CLI::App& app, Globals& g);
void register_slurm(CLI::App& app, Globals& g);
void register_import(CLI::App& app, Globals& g);

}  // namespace ekb::cli
