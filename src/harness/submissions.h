// A submission directory: one file per task and sample — TASK.ekb (IR), TASK.c / TASK.cpp (raw
// source against the task's C ABI), TASK.cu / TASK.cl (raw CUDA C / OpenCL C against its GPU ABI,
// with the launch contract); several samples as TASK.s0.ekb, TASK.s1.c, ... Files that name no
// task, cannot be read, or are not submissions are reported as problems, never skipped in silence.
#pragma once
#include <string>
#include <vector>

#include "suite/suite.h"

namespace ekb {

struct Submission {
  std::string task, path, kind;  // kind: "ekb", "c", "cpp", "cu" or "cl"
  int sample = 0;
  std::string text;
};

struct SubmissionSet {
  std::vector<Submission> items;      // sorted by task, then sample
  std::vector<std::string> problems;  // "FILE: what is wrong"
};

// `tasks_glob` (fnmatch, "" for all) filters by task name.
SubmissionSet scan_submissions(const std::string& dir, const Suite& suite, const std::string& tasks_glob);

}  // namespace ekb
