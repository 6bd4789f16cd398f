// A checked L0 kernel: every name resolved, every shape and index range known. This is what the
// interpreter evaluates, what the suite describes, and (later) what lowering starts from. It keeps
// the Module alive because stage bodies point into its syntax tree.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/ast.h"

namespace ekb {

// How an input is filled with random values (docs/ir.md, "Inputs").
struct DistSpec {
  enum class Kind { uniform, normal, positive, mixed, int_range, bernoulli };
  Kind kind = Kind::uniform;
  double a = 0, b = 0;  // uniform lo,hi; normal mean,std; positive lo,hi; mixed lo_exp,hi_exp; int lo,hi; bernoulli p
  std::string text() const;  // canonical spelling, e.g. "uniform(-1, 1)"
};

enum class TensorRole { input, output, intermediate };

struct TensorInfo {
  std::string name;
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  TensorRole role = TensorRole::input;
  Loc loc;
  DistSpec dist;   // inputs only
  int stage = -1;  // the stage that defines it (outputs, intermediates)
  int64_t elements() const;
};

struct IndexVar {
  std::string name;
  int64_t extent = 0;
  Loc loc;
  bool reduction = false;
};

struct StageInfo {
  std::string name;
  int tensor = -1;             // the tensor it defines
  std::vector<IndexVar> vars;  // left-side variables first (n_lhs of them), then reduction variables
  int n_lhs = 0;
  const Expr* body = nullptr;  // annotated by the checker
  Loc loc;
  // A recurrence (`S[t, j] = scan(t) ...`): the left-side variable it steps along, in increasing
  // order, reading its own values at earlier steps; -1 for a pure stage.
  int scan_var = -1;
  // Per left-side variable: every read of the stage's own values indexes it by the variable itself
  // (`S[t - 1, j]` at `S[t, j]`), so the points along it are independent recurrences.
  std::vector<bool> scan_local;
  bool is_scan() const { return scan_var >= 0; }
};

struct Program {
  std::shared_ptr<Module> module;
  std::string name, pattern, category, domain;
  std::vector<std::pair<std::string, int64_t>> dims;
  std::vector<TensorInfo> tensors;
  std::vector<StageInfo> stages;
  std::vector<int> inputs, outputs;  // tensor ids, in declaration order

  const SourcePtr& source() const { return module->source; }
  int find_tensor(const std::string& name) const;
  int find_stage(const std::string& name) const;
};

// The known categories and domains (docs/ir.md lists them).
const std::vector<std::string>& known_categories();
const std::vector<std::string>& known_domains();

}  // namespace ekb
