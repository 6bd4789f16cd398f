// A submission directory: one file per task and sample — TASK.ekb (IR), TASK.c / TASK.cpp (raw
// source against the task's C ABI), TASK.cu / TASK.cl (raw CUDA C / OpenCL C against its GPU ABI,
// with the launch contract); several samples as TASK.s0.ekb, TASK.s1.c, ... Files that name no
// task, cannot be read, or are not submissions are reported as problems, never skipped in silence.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/outcome.h"
#include "suite/shard.h"
#include "suite/suite.h"
#include "target/backend.h"

namespace ekb {

// What a submission file holds: a program in ekb's IR, or raw source for one backend.
enum class SourceKind { ekb, c, cpp, cu, cl };
const char* source_kind_name(SourceKind k);  // its extension without the dot: "ekb", "c", "cpp", "cu", "cl"

struct Submission {
  std::string task, path;
  SourceKind kind = SourceKind::ekb;
  int sample = 0;
  std::string text;
  // A sample a generation listed as failed (its manifest, below) instead of a file: the attempt's outcome and why.
  std::optional<Outcome> failed = std::nullopt;
  std::string failure_message = "";
};

// The file `ekb generate` writes beside its samples, listing the samples that gave no file (no code
// in the reply, the wrong language, no reply): {"failed": [{"task", "sample", "outcome", "message"}]}.
// scan_submissions turns each into a failed submission, so that a directory scored by `ekb eval`
// counts every sample that was asked for.
inline constexpr const char* kGenerationManifest = "ekb_generation.json";

struct SubmissionSet {
  std::vector<Submission> items;      // sorted by task, then sample
  std::vector<std::string> problems;  // "FILE: what is wrong"
};

// The kind of a submission file, from its extension (.ekb, .c, .cpp/.cc/.cxx, .cu, .cl), or nothing.
std::optional<SourceKind> submission_kind(const std::filesystem::path& path);
// Whether `backend` runs a submission of `kind`: .ekb everywhere; raw .c/.cpp on cpu, .cu on cuda, .cl
// on opencl. raw_kinds_taken names the raw ones, for messages (".c or .cpp", ".cu", ".cl").
bool backend_takes(Backend backend, SourceKind kind);
std::string raw_kinds_taken(Backend backend);

// `tasks_glob` (fnmatch, "" for all) filters by task name.
SubmissionSet scan_submissions(const std::string& dir, const Suite& suite, const std::string& tasks_glob);

// Every suite task matching `tasks_glob` with its own text as the submission (no schedule sections:
// its default schedule), for verifying the suite on a device (`ekb eval --defaults`).
SubmissionSet default_submissions(const Suite& suite, const std::string& tasks_glob);

// Keeps the i-th of n interleaved parts (1-based) of the set's tasks, in their sorted order (every
// sample of a task stays with it): a deterministic split of the work (`--shard I/N`; the rule is
// suite/shard.h's, shared with `ekb agent` and `ekb generate`).
void keep_shard(SubmissionSet& subs, int i, int n);

}  // namespace ekb
