// The scripts and the submission of a sharded run on Slurm (slurm_job.h).
#include "cluster/slurm_job.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "harness/store_rows.h"
#include "util/write_file.h"

namespace ekb::cluster {

namespace fs = std::filesystem;

std::optional<ShardedCommand> sharded_command(const std::string& name) {
  if (name == "eval") return ShardedCommand::eval;
  if (name == "agent") return ShardedCommand::agent;
  if (name == "generate") return ShardedCommand::generate;
  return std::nullopt;
}

const char* sharded_command_name(ShardedCommand c) {
  switch (c) {
    case ShardedCommand::eval: return "eval";
    case ShardedCommand::agent: return "agent";
    case ShardedCommand::generate: return "generate";
  }
  return "?";
}

bool exclusive_by_default(ShardedCommand c) { return c != ShardedCommand::generate; }

void check_job(const SlurmJob& job) {
  if (job.command.empty() || !sharded_command(job.command[0]))
    throw std::invalid_argument(fmt::format("give the command to shard after `--`: eval, agent or generate with its arguments, e.g. "
                                            "`ekb slurm submit --shards 8 -- eval --defaults --quick`{}",
                                            job.command.empty() ? "" : fmt::format(" (`{}` does not take --shard)", job.command[0])));
  for (size_t i = 1; i < job.command.size(); ++i) {
    const std::string& a = job.command[i];
    for (const char* own : {"--shard", "--db"})
      if (a == own || a.rfind(std::string(own) + "=", 0) == 0)
        throw std::invalid_argument(fmt::format("`{}`: the job sets {} itself (shard I of N into {}/shard-I.db; the merged store is -o)",
                                                a, own, job.dir));
  }
  if (job.shards < 1) throw std::invalid_argument("--shards must be at least 1");
  // What goes on an #SBATCH line (or into a path the scripts name) is one line.
  std::vector<std::pair<std::string, std::string>> lines{{"--partition", job.partition}, {"--time", job.time}, {"DIR", job.dir},
                                                         {"OUT", job.out}, {"the ekb binary", job.ekb}, {"the working directory", job.workdir}};
  for (const auto& a : job.sbatch_args) lines.emplace_back("--sbatch-arg", a);
  for (const auto& [what, text] : lines)
    if (text.find_first_of("\n\r") != std::string::npos) throw std::invalid_argument(fmt::format("{} holds a line break", what));
  for (const auto& [what, path] : {std::pair{"DIR", job.dir}, {"OUT", job.out}, {"the ekb binary", job.ekb}, {"the working directory", job.workdir}})
    if (!fs::path(path).is_absolute()) throw std::invalid_argument(fmt::format("{} must be an absolute path, not `{}`", what, path));
}

std::string shard_store(const SlurmJob& job, int shard) { return (fs::path(job.dir) / fmt::format("shard-{}.db", shard)).string(); }
std::string shards_script_path(const SlurmJob& job) { return (fs::path(job.dir) / "shards.sbatch").string(); }
std::string merge_script_path(const SlurmJob& job) { return (fs::path(job.dir) / "merge.sbatch").string(); }
std::string job_file_path(const SlurmJob& job) { return (fs::path(job.dir) / "job.json").string(); }

std::string shell_quote(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

namespace {

// The #SBATCH lines both scripts share (where Slurm runs them).
std::string common_directives(const SlurmJob& job) {
  std::string s = fmt::format("#SBATCH --chdir={}\n", job.workdir);
  if (!job.partition.empty()) s += fmt::format("#SBATCH --partition={}\n", job.partition);
  if (!job.time.empty()) s += fmt::format("#SBATCH --time={}\n", job.time);
  return s;
}

// `ekb [--suite DIR]` as the scripts run it.
std::string ekb_words(const SlurmJob& job) {
  std::string s = shell_quote(job.ekb);
  if (!job.suite.empty()) s += " --suite " + shell_quote(job.suite);
  return s;
}

// The command on one line, for the scripts' comments (a newline in an argument would end the comment).
std::string command_text(const SlurmJob& job) {
  std::string s;
  for (const auto& w : job.command) s += (s.empty() ? "" : " ") + w;
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\r', ' ');
  return s;
}

}  // namespace

std::string shards_script(const SlurmJob& job) {
  check_job(job);
  std::string s = "#!/bin/bash\n";
  s += fmt::format("# Written by `ekb slurm submit`: shard I of {} of `ekb {}`, one per array task, each into its own\n"
                   "# results store {}/shard-I.db; merge.sbatch merges them. Submit one shard again with\n"
                   "# `sbatch --array=I {}`.\n",
                   job.shards, command_text(job), job.dir, shards_script_path(job));
  s += fmt::format("#SBATCH --job-name=ekb-{}\n", job.command[0]);
  s += fmt::format("#SBATCH --array=1-{}\n", job.shards);
  s += fmt::format("#SBATCH --output={}/logs/shard-%a.log\n", job.dir);
  s += common_directives(job);
  if (job.exclusive) s += "#SBATCH --exclusive\n";
  if (job.cpus_per_task > 0) s += fmt::format("#SBATCH --cpus-per-task={}\n", job.cpus_per_task);
  for (const auto& a : job.sbatch_args) s += fmt::format("#SBATCH {}\n", a);
  s += "set -eu\n";
  s += "i=${SLURM_ARRAY_TASK_ID:?not in a Slurm job array: submit this script with sbatch}\n";
  s += fmt::format("echo \"ekb slurm: shard $i/{} on ${{SLURMD_NODENAME:-$(hostname)}}, job ${{SLURM_JOB_ID:-?}}\"\n", job.shards);
  std::string cmd = ekb_words(job);
  for (const auto& w : job.command) cmd += " " + shell_quote(w);
  cmd += fmt::format(" --shard \"$i/{}\" --db {}\"/shard-$i.db\"", job.shards, shell_quote(job.dir));
  s += "exec " + cmd + "\n";
  return s;
}

std::string merge_script(const SlurmJob& job) {
  check_job(job);
  std::string s = "#!/bin/bash\n";
  s += fmt::format("# Written by `ekb slurm submit`: merges the {} shards' stores of `ekb {}` into {}\n"
                   "# (submitted with --dependency=afterany on the shards' array: it runs once every shard has ended;\n"
                   "# a shard that failed is named as missing and the merged run left unfinished). Run it by hand\n"
                   "# (`bash {}`) after resubmitting a shard.\n",
                   job.shards, command_text(job), job.out, merge_script_path(job));
  s += fmt::format("#SBATCH --job-name=ekb-merge\n#SBATCH --output={}/logs/merge.log\n", job.dir);
  s += common_directives(job);
  s += "set -eu\n";
  std::string cmd = ekb_words(job) + " merge --missing-ok";
  for (int i = 1; i <= job.shards; ++i) cmd += " " + shell_quote(shard_store(job, i));
  cmd += " -o " + shell_quote(job.out);
  s += "exec " + cmd + "\n";
  return s;
}

std::string job_json(const SlurmJob& job, const std::string& array_id, const std::string& merge_id) {
  nlohmann::json j{{"command", job.command}, {"shards", job.shards},   {"out", job.out},        {"ekb", job.ekb},
                   {"suite", job.suite},     {"workdir", job.workdir}, {"seed", job.seed},
                   {"stores", nlohmann::json::array()}};
  for (int i = 1; i <= job.shards; ++i) j["stores"].push_back(shard_store(job, i));
  if (!array_id.empty()) j["array_job"] = array_id;
  if (!merge_id.empty()) j["merge_job"] = merge_id;
  return j.dump(2) + "\n";
}

std::string parse_sbatch_id(const std::string& output) {
  std::istringstream in(output);
  std::string line, id;
  while (std::getline(in, line)) {
    std::string first = line.substr(0, line.find(';'));
    if (!first.empty() && first.find_first_not_of("0123456789") == std::string::npos) id = first;
  }
  if (id.empty()) throw std::runtime_error("sbatch printed no job id: " + (output.empty() ? std::string("(nothing)") : output));
  return id;
}

std::vector<int> finished_shards(const SlurmJob& job) {
  std::vector<int> out;
  std::error_code ec;
  for (int i = 1; i <= job.shards; ++i) {
    if (!fs::exists(shard_store(job, i), ec)) continue;
    StoreSnapshot store = read_store(shard_store(job, i));
    const StoredTable& runs = store.tables.at("runs");
    std::string shard = std::to_string(i) + "/" + std::to_string(job.shards);
    for (const auto& row : runs.rows) {
      nlohmann::json key = nlohmann::json::parse(row[static_cast<size_t>(runs.column("key"))].bytes, nullptr, false);
      if (key.is_object() && key.value("command", "") == job.command[0] && key.value("shard", "") == shard &&
          row[static_cast<size_t>(runs.column("finished"))].integer != 0) {
        out.push_back(i);
        break;
      }
    }
  }
  return out;
}

Submitted submit_job(const SlurmJob& job, const std::function<CommandResult(const std::vector<std::string>&)>& run) {
  check_job(job);
  fs::create_directories(fs::path(job.dir) / "logs");
  // A DIR holds one command's shards: the same command again resumes them, another is refused.
  std::error_code ec;
  if (fs::exists(job_file_path(job), ec)) {
    std::ifstream in(job_file_path(job));
    nlohmann::json before = nlohmann::json::parse(in, nullptr, false);
    if (!before.is_object() || before.value("command", nlohmann::json()) != nlohmann::json(job.command) ||
        before.value("shards", 0) != job.shards)
      throw std::runtime_error(fmt::format("{} holds the shards of another command or shard count ({}): give another --dir", job.dir,
                                           job_file_path(job)));
  }
  Submitted sub;
  if (!job.seed.empty())
    for (int i = 1; i <= job.shards; ++i)
      if (!fs::exists(shard_store(job, i), ec)) {
        copy_store(job.seed, shard_store(job, i));
        sub.seeded.push_back(shard_store(job, i));
      }
  write_atomically(shards_script_path(job), shards_script(job));
  write_atomically(merge_script_path(job), merge_script(job));
  write_atomically(job_file_path(job), job_json(job, "", ""));
  auto sbatch = [&](const std::vector<std::string>& argv) {
    CommandResult r = run(argv);
    if (r.exit_code != 0)
      throw std::runtime_error(fmt::format("`{}` failed (exit {}): {}", fmt::join(argv, " "), r.exit_code, r.output));
    return parse_sbatch_id(r.output);
  };
  std::vector<int> done = finished_shards(job);
  std::string array;
  for (int i = 1; i <= job.shards; ++i)
    if (std::find(done.begin(), done.end(), i) == done.end()) {
      sub.shards.push_back(i);
      array += (array.empty() ? "" : ",") + std::to_string(i);
    }
  if (sub.shards.empty()) {  // every shard finished before: the merge alone
    sub.merge_id = sbatch({"sbatch", "--parsable", merge_script_path(job)});
    write_atomically(job_file_path(job), job_json(job, "", sub.merge_id));
    return sub;
  }
  std::vector<std::string> argv{"sbatch", "--parsable"};
  if (static_cast<int>(sub.shards.size()) < job.shards) argv.push_back("--array=" + array);
  argv.push_back(shards_script_path(job));
  sub.array_id = sbatch(argv);
  try {
    sub.merge_id = sbatch({"sbatch", "--parsable", "--dependency=afterany:" + sub.array_id, merge_script_path(job)});
  } catch (const std::exception& e) {
    write_atomically(job_file_path(job), job_json(job, sub.array_id, ""));
    throw std::runtime_error(fmt::format("the shards are submitted (job array {}), but the merge job is not: {}; submit it with `sbatch "
                                         "--dependency=afterany:{} {}`",
                                         sub.array_id, e.what(), sub.array_id, merge_script_path(job)));
  }
  write_atomically(job_file_path(job), job_json(job, sub.array_id, sub.merge_id));
  return sub;
}

}  // namespace ekb::cluster
