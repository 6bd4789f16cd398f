// `ekb merge STORE... -o OUT`: results stores joined into one, as the shards of a sharded run (`--shard
// I/N`, one store per shard, e.g. one per array task under `ekb slurm submit`) are joined after they
// ran on several machines.
//
// Runs. A run's key is its command's canonical arguments; a shard's is its run's with "shard": "I/N"
// added. Runs of the same key without "shard", backend, device and shard count N are the shards of
// one run and become ONE run in OUT, whose key is that of the run without shards (what the same
// command without --shard stores): its environment keeps what every shard's had in common, and each
// shard's own (host, peaks, time) in "merged_from", a list of {shard, created, host, finished, env}.
// The merged run is finished when every shard 1..N is there and finished. A run without a shard is
// copied as it is. The same source run met twice (a shard store given twice, or merged into OUT
// before and given again) is merged once. Two different runs of the same shard (a shard run again
// from scratch) are not mixed: the later one goes to a run of its own. Shards that ran on different
// machines in what decides their times (CPU model, target, compiler, GPU) or with another ekb build
// (ekb_commit) are refused: the run would not be one measurement.
//
// Rows. Within a run, an attempt is keyed by (task, sample) and identified by its task hash,
// candidate hash and suite version (the device is its run's); an agent step by (task, step); a request
// to a language model by (task, sample, turn); peak rates by (machine, device). The same row from two
// inputs (every column alike but the time it was stored) is kept once. The same key with anything
// else different is a CONFLICT: reported (the stores, the run, the key, the columns that differ),
// never resolved by keeping one. Peak rates are the exception: a machine's peaks measured again are
// its newer calibration (as `ekb devices --measure` replaces them), so the newer is kept, and said.
//
// Writing. Any conflict or refused input means nothing is written (OUT, if it exists, stays as it
// was). Otherwise OUT is written whole to a temporary file beside it, then renamed over it: a crash
// leaves OUT as it was, or the merged store, never half of one. An existing OUT is merged INTO (it is
// read as the first input: nothing it holds is lost, its run ids stay). Inputs are only read.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ekb {

struct MergeOptions {
  bool missing_ok = false;  // an input that does not exist is skipped (said), not refused
};

struct MergeConflict {
  std::string table;  // "attempts", "agent_steps", "llm_requests"
  std::string run;    // the merged run: its command, backend and device
  std::string key;    // "task T sample S", "task T step N", "task T sample S turn N"
  std::string first_store, second_store;
  std::vector<std::string> differences;  // "column: first vs second"
  std::string describe() const;
};

struct MergedRun {
  int64_t id = 0;  // in OUT
  std::string command, backend, device, key;
  int shard_count = 0;                // N; 0 for a run without shards
  std::vector<int> shards, missing;   // the shards 1..N it holds, and those it lacks
  bool finished = false;
  size_t attempts = 0, steps = 0, llm_requests = 0;
  std::vector<std::string> from;  // "STORE run ID" of every input run in it
};

struct MergeReport {
  std::string out;
  std::vector<std::string> inputs;    // as read (OUT first when it existed)
  std::vector<MergedRun> runs;
  std::vector<MergeConflict> conflicts;
  std::vector<std::string> problems;  // refusals (a store of another schema, shards from different machines...)
  std::vector<std::string> notes;     // what was merged once, skipped, replaced
  size_t duplicates = 0;              // rows given by more than one input, kept once
  bool written = false;
  bool ok() const { return problems.empty() && conflicts.empty(); }
};

// Merges `inputs` (and OUT, when it exists) into `out`; writes only when the report is ok(). Throws
// only when writing fails (then OUT is as it was).
MergeReport merge_stores(const std::vector<std::string>& inputs, const std::string& out, const MergeOptions& options = {});

}  // namespace ekb
