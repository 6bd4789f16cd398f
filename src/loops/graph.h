// The stage graph lowering works on: each stage with its pure variables and extents, its top-level
// reduction (if any), and its value as a loop-IR expression over named variables. Built from a
// checked Program; memory directives (cache_read, cache_write, rfactor, pack, inline) rewrite it.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ir/program.h"
#include "loops/loop_ir.h"

namespace ekb::lower {

struct LStage {
  std::string name;
  DType type = DType::f32;  // the value's (and the buffer's) element type
  bool is_output = false;
  bool created = false;     // made by a memory directive (cache, rfactor, pack) or by lowering
  std::vector<std::string> vars;      // pure variables, one per dimension
  std::vector<int64_t> extents;
  std::vector<std::string> rvars;     // the top-level reduction's variables (empty: no reduction)
  std::vector<int64_t> rextents;
  ReduceOp rop = ReduceOp::sum;
  lir::ExprP value;  // the element's value; for a reduction, the body that is combined
  Loc loc;
  // A recurrence (docs/ir.md "Recurrences"): the variable its steps follow in increasing order, and
  // the pure variables whose points read each other's earlier steps (their loops stay inside the
  // steps'); empty for a pure stage.
  std::string scan_var;
  std::vector<std::string> scan_nonlocal;
  bool has_reduction() const { return !rvars.empty(); }
  bool is_scan() const { return !scan_var.empty(); }
};

struct TensorArg {
  std::string name;
  DType type;
  std::vector<int64_t> shape;
};

struct Graph {
  std::vector<TensorArg> inputs, outputs;  // the kernel's parameters, in ABI order
  std::vector<LStage> stages;              // producers before consumers
  int find(const std::string& name) const;
  const TensorArg* input(const std::string& name) const;
  // Stages whose value reads `name`.
  std::vector<std::string> consumers(const std::string& name) const;
  // The shape of a stage or input.
  std::vector<int64_t> shape_of(const std::string& name) const;
  DType type_of(const std::string& name) const;
};

Graph build_graph(const Program& p);

// Helpers over loop-IR expressions used by graph rewrites.
bool reads(const lir::ExprP& e, const std::string& buffer);
// Whether `consumer` reads `producer`, and only at its own point (every load is producer[v0, v1, ...]
// with the consumer's pure variables in order): an element-wise consumer such as a bias and an
// activation after a convolution.
bool reads_pointwise(const LStage& consumer, const std::string& producer);
// Replaces variables by expressions (names not in the map stay).
lir::ExprP substitute(const lir::ExprP& e, const std::vector<std::pair<std::string, lir::ExprP>>& map);
// Replaces every load of `buffer` by f(indices).
lir::ExprP replace_loads(const lir::ExprP& e, const std::string& buffer,
                         const std::function<lir::ExprP(const std::vector<lir::ExprP>&)>& f);
// Renames the variables of every nested reduction with `suffix` (for inlining into another stage).
lir::ExprP rename_reduction_vars(const lir::ExprP& e, const std::string& suffix);

}  // namespace ekb::lower
