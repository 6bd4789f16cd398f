// `ekb import` as a library: an ONNX model file in, suite pattern files out (DIR/NAME.ekb for the
// whole model, DIR/ops/NAME_OP_K.ekb per distinct operator instance), each checked as the suite
// checks its files (`ekb check --suite`: statically, and that no task is degenerate) and measured
// (flops and bytes from L0) before anything is written; nothing is written when the import fails.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "io/onnx_import.h"

namespace ekb::onnx_io {

// What happens to a task the degeneracy filter rejects (a Relu whose input never goes negative,
// an output that does not depend on an input, ...): `error` writes nothing and fails, naming every
// such task and why; `skip` writes the others; `keep` writes it too, marked in its leading comment
// (the directory then fails `ekb check --suite`).
enum class DegeneratePolicy { error, skip, keep };

struct ImportTaskReport {
  std::string file, task, op, category;  // op "" for the whole model
  size_t nodes = 0;
  int stages = 0;
  double flops = 0;
  int64_t bytes = 0;
  std::vector<std::string> degenerate;  // the filter's reasons; empty when sound
  bool written = false;
};

struct ImportReport {
  std::filesystem::path dir;
  std::vector<ImportTaskReport> tasks;  // the model first
  std::vector<std::string> notes;
  std::string domain;
  size_t degenerate = 0;
  bool ok = true;  // false: the degenerate policy is `error` and a task is degenerate (nothing written)
};

struct ImportToDirOptions {
  ImportOptions import;
  std::filesystem::path out_dir;  // empty: ./NAME
  DegeneratePolicy degenerate = DegeneratePolicy::error;
  bool check_degeneracy = true;
  bool force = false;  // replace files that exist
  std::function<void(const std::string& task, size_t done, size_t total)> progress;
};

ImportReport import_to_directory(const std::filesystem::path& model, const ImportToDirOptions& o);

}  // namespace ekb::onnx_io
