// A sharded run on a Slurm cluster (`ekb slurm submit`): an sbatch job array of N tasks, task I
// running `ekb eval|agent|generate ... --shard I/N --db DIR/shard-I.db` (its own results store), and
// a merge job that waits for the whole array (afterany: it runs when every shard has ended, however
// it ended, so that a failed shard still leaves the others merged and is named as missing) and runs
// `ekb merge` into one store. The scripts are written into DIR (they can be submitted again by hand,
// e.g. one shard: `sbatch --array=3 DIR/shards.sbatch`), with DIR/job.json saying what they run.
// Submitting the same command into the same DIR again runs the shards whose store holds no finished
// run of theirs (each continues its stored run, nothing measured twice), then the merge.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ekb::cluster {

// The commands that take --shard.
enum class ShardedCommand { eval, agent, generate };
std::optional<ShardedCommand> sharded_command(const std::string& name);
const char* sharded_command_name(ShardedCommand c);

struct SlurmJob {
  std::vector<std::string> command;  // what follows `--`: "eval" (or agent, generate) and its arguments
  int shards = 4;
  std::string dir;      // shard stores, scripts, logs (absolute)
  std::string out;      // the merged store (absolute)
  std::string ekb;      // the ekb binary the jobs run (absolute; on a file system every node sees)
  std::string suite;    // --suite DIR for the jobs (absolute), "" for ekb's default
  std::string workdir;  // the jobs' working directory (absolute): where the command's relative paths are
  std::string partition, time;
  int cpus_per_task = 0;    // 0: Slurm's default
  bool exclusive = true;    // each shard on a node of its own (the timing's honesty; the peaks are measured on a quiet node)
  std::vector<std::string> sbatch_args;  // more sbatch options, one #SBATCH line each
  std::string seed;     // a store each shard's store starts as a copy of ("" for none)
};

// Throws std::invalid_argument saying what is wrong: no command, one that does not shard, --shard or
// --db given (the job sets them), fewer than 1 shard, paths not absolute.
void check_job(const SlurmJob& job);
// Whether a shard should have its node to itself by default: eval and agent time kernels; a
// generation waits on a language model.
bool exclusive_by_default(ShardedCommand c);

std::string shard_store(const SlurmJob& job, int shard);  // DIR/shard-I.db
std::string shards_script_path(const SlurmJob& job);      // DIR/shards.sbatch
std::string merge_script_path(const SlurmJob& job);       // DIR/merge.sbatch
std::string job_file_path(const SlurmJob& job);           // DIR/job.json

// The scripts' text.
std::string shards_script(const SlurmJob& job);
std::string merge_script(const SlurmJob& job);
// What DIR/job.json holds: the command, the shards, the stores, and (once submitted) the job ids.
std::string job_json(const SlurmJob& job, const std::string& array_id, const std::string& merge_id);

// The job id `sbatch --parsable` printed ("123" or "123;cluster"; warnings on other lines); throws
// naming the output when there is none.
std::string parse_sbatch_id(const std::string& output);

// A single-quoted word for bash.
std::string shell_quote(const std::string& word);

// The shards whose store in DIR holds a finished run of that shard of the job's command.
std::vector<int> finished_shards(const SlurmJob& job);

struct Submitted {
  std::string array_id, merge_id;  // array_id "" when every shard had finished: the merge job alone
  std::vector<int> shards;         // the shards submitted
  std::vector<std::string> seeded;  // shard stores made from the seed
};

// Writes the scripts and DIR/job.json (refusing a DIR that holds another command's shards), copies
// the seed into each shard store that does not exist yet, submits the array (the shards not finished
// yet), then the merge job depending on it. `run` runs a command line (argv) and returns its exit code and output (tests pass
// their own; the CLI runs the real sbatch).
struct CommandResult {
  int exit_code = -1;
  std::string output;
};
Submitted submit_job(const SlurmJob& job, const std::function<CommandResult(const std::vector<std::string>&)>& run);

}  // namespace ekb::cluster
