// What an operator's emitter sees and does: one ONNX node, its input values (shapes, types, and the
// values of those known at import), its attributes; it sets its outputs' types and shapes (the
// importer's shape inference) and writes the L0 stages that define them. The same emitter writes a
// node into the whole model's kernel and into the node's own task; only the names differ (Emit
// holds them). An attribute value, input or type it does not support is refused through refuse(),
// which names the node.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "interp/tensor_data.h"
#include "io/onnx_model.h"

namespace ekb::onnx_io {

// An ONNX value as the importer knows it.
struct Value {
  std::string name;  // the ONNX name
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  std::shared_ptr<const TensorData> constant;  // its elements, when known at import
  bool uniform = false;   // a constant whose elements are all equal: read as a literal
  bool defined = false;   // its type and shape are known (an input, a constant, or set by its node)
  int64_t elements() const;
};

// Tensor names of one kernel: ONNX names made into L0 names, unique, never a reserved word nor
// the form of an index variable the emitters use (i0, r1, ...).
class Namer {
 public:
  std::string take(const std::string& wanted);
  bool used(const std::string& name) const { return used_.count(name) > 0; }

 private:
  std::set<std::string> used_;
};
std::string sanitize_name(const std::string& onnx_name);

// A literal for `v` in an expression of type `t`: integers as integers, floats always with a `.` or
// an exponent (so that they are floats), negative ones in parentheses, infinities as `inf`.
std::string literal(double v, DType t);
std::string join(const std::vector<std::string>& parts, const std::string& sep = ", ");
// "i0", "i1", ... (a stage's left-side variables) and "r0", ... (reduction variables)
std::vector<std::string> index_vars(const char* prefix, size_t n);
// "NAME[i0 < 2, i1 < 3]" (explicit ranges), or "NAME" for rank 0
std::string lhs(const std::string& name, const std::vector<std::string>& vars, const std::vector<int64_t>& shape);
std::string shape_text(const std::vector<int64_t>& shape);  // "[1, 3, 224, 224]"
// "NAME[a, b]", or "NAME" for rank 0: a read of a helper stage
std::string at(const std::string& name, const std::vector<std::string>& idx);

class Emit {
 public:
  // `in_names` and `out_names` are the L0 names of the node's inputs and outputs ("" for an omitted
  // one); `namer` gives helper stages their names.
  Emit(const Node& node, int64_t opset, const std::string& model, std::vector<const Value*> inputs,
       std::vector<std::string> in_names, std::vector<Value*> outputs, std::vector<std::string> out_names,
       Namer& namer);

  const Node& node() const { return node_; }
  int64_t opset() const { return opset_; }

  // ---- attributes ----
  // Names every attribute the emitter understands; any other one the node sets is refused.
  void known_attrs(std::initializer_list<const char*> names) const;
  bool has_attr(const std::string& name) const;
  int64_t attr_int(const std::string& name, int64_t dflt) const;
  double attr_float(const std::string& name, double dflt) const;
  std::string attr_string(const std::string& name, const std::string& dflt) const;
  std::vector<int64_t> attr_ints(const std::string& name, std::vector<int64_t> dflt = {}) const;
  std::vector<double> attr_floats(const std::string& name) const;

  // ---- inputs ----
  size_t n_in() const { return inputs_.size(); }
  bool has(size_t k) const { return k < inputs_.size() && inputs_[k] != nullptr; }
  const Value& in(size_t k) const;  // refuses naming the input when it is absent
  const std::vector<int64_t>& shape(size_t k) const { return in(k).shape; }
  int rank(size_t k) const { return static_cast<int>(in(k).shape.size()); }
  DType dtype(size_t k) const { return in(k).dtype; }
  // The expression reading input k at `idx` (one index per dimension): a tensor read, or the literal
  // when the input is a uniform constant.
  std::string read(size_t k, const std::vector<std::string>& idx);
  // Input k read at the point `vars` of an output of shape `out` (numpy broadcasting: input
  // dimensions align to the right; a dimension of size 1 reads index 0).
  std::string read_bcast(size_t k, const std::vector<std::string>& vars, const std::vector<int64_t>& out);
  // Input k's value, which must be known at import (an initializer, a Constant, or folded).
  const TensorData& constant(size_t k, const std::string& role) const;
  std::vector<int64_t> const_ints(size_t k, const std::string& role) const;
  std::vector<double> const_floats(size_t k, const std::string& role) const;
  // Which inputs the stages read (those are declared as `in` in a node's own task).
  const std::vector<bool>& read_inputs() const { return read_; }

  // ---- outputs ----
  size_t n_out() const { return outputs_.size(); }
  bool has_out(size_t k) const { return k < outputs_.size() && outputs_[k] != nullptr; }
  void set_out(size_t k, DType t, std::vector<int64_t> shape);
  const std::string& out(size_t k) const { return out_names_.at(k); }
  const Value& out_value(size_t k) const { return *outputs_.at(k); }
  // Defines output k: `out[vars] = expr` with one variable per dimension, as returned by out_vars().
  void define(size_t k, const std::string& expr);
  std::vector<std::string> out_vars(size_t k) const;

  // ---- stages ----
  std::string fresh(const std::string& suffix);  // a helper stage's name
  void stage(const std::string& line) { stages_.push_back(line); }
  const std::vector<std::string>& stages() const { return stages_; }

  // The suite category of the node's own task, when it is not the table's (e.g. `broadcast` for an
  // Add whose inputs differ in shape).
  void set_category(const char* c) { category_ = c; }
  const char* category() const { return category_; }

  // ---- errors ----
  // "model.onnx: node 3 `conv1` (Conv): <what>" with "supported: <supported>"; throws ImportError.
  [[noreturn]] void refuse(const std::string& what, const std::string& supported = "") const;
  // Refuses unless every present input has a float type (or one of `also`).
  void require_float(size_t k) const;

 private:
  const Node& node_;
  int64_t opset_;
  std::string model_;
  std::vector<const Value*> inputs_;
  std::vector<std::string> in_names_;
  std::vector<Value*> outputs_;
  std::vector<std::string> out_names_;
  Namer& namer_;
  std::vector<std::string> stages_;
  std::vector<bool> read_;
  const char* category_ = nullptr;
};

// What a family's file registers for each operator it covers.
enum class OpKind { compute, view };  // view: a copy that only renames elements (no task of its own)
struct OpSpec {
  const char* op;
  std::function<void(Emit&)> emit;
  const char* category;        // the suite category of the node's own task
  std::vector<const char*> in_names;   // L0 names in the node's own task; the last repeats (X0, X1, ...)
  std::vector<const char*> out_names;  // likewise
  bool variadic_in = false;
  bool variadic_out = false;
  OpKind kind = OpKind::compute;
  const char* opsets = "";     // the opsets it covers, for --help and docs ("1-21")
};
using OpTable = std::vector<OpSpec>;

void register_conv_ops(OpTable& t);          // onnx_ops_conv.cpp: Conv, ConvTranspose
void register_gemm_ops(OpTable& t);          // onnx_ops_gemm.cpp: Gemm, MatMul
void register_elementwise_ops(OpTable& t);   // onnx_ops_elementwise.cpp: arithmetic, activations
void register_norm_ops(OpTable& t);          // onnx_ops_norm.cpp: BatchNormalization, LayerNormalization, Softmax, ...
void register_pool_ops(OpTable& t);          // onnx_ops_pool.cpp: MaxPool, AveragePool, global pools, reductions
void register_layout_ops(OpTable& t);        // onnx_ops_layout.cpp: Reshape, Transpose, Concat, Split, Slice, Pad, ...
void register_resize_ops(OpTable& t);        // onnx_ops_resize.cpp: Resize
void register_quant_ops(OpTable& t);         // onnx_ops_quant.cpp: QuantizeLinear, DequantizeLinear, QLinearConv, QLinearMatMul
const OpTable& op_table();
const OpSpec* find_op(const std::string& op);
// The inputs of `op` that must be known at import (shapes, starts, pads, scales, axes, ...), by
// position; the others are data.
std::vector<size_t> static_inputs(const std::string& op);

// numpy's (multidirectional) broadcasting of two shapes; refuses naming both when they do not.
std::vector<int64_t> broadcast_shape(const Emit& e, const std::vector<int64_t>& a, const std::vector<int64_t>& b);

// A reduction of a tensor of `shape` over `axes` (sorted, distinct): with `vars` the variables of
// the whole shape, `kept_vars`/`kept_shape` are the dimensions left, `idx` reads the tensor with the
// reduced axes replaced by r0, r1, ..., `header` is "r0 < 4, r1 < 5" and `count` the points reduced.
struct Reduction {
  std::vector<std::string> kept_vars, idx;
  std::vector<int64_t> kept_shape;
  std::string header;
  int64_t count = 1;
};
Reduction reduction(const std::vector<int64_t>& shape, const std::vector<int64_t>& axes, const std::vector<std::string>& vars);
// The same axes' kept dims as 1 (keepdims): `vars` indexes the kept tensor with 0 in reduced dims.
std::vector<std::string> keepdims_read(const std::vector<std::string>& vars, const std::vector<int64_t>& axes);

// Shared by the families: an axis attribute or input made non-negative, refused when out of range.
int64_t normalize_axis(const Emit& e, int64_t axis, int64_t rank, const std::string& what);

}  // namespace ekb::onnx_io
