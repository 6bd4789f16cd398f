// Importing an ONNX model as ekb tasks (docs/import.md): the whole model as one L0 graph (category
// `model`; the model's inputs, then its weights as inputs with distributions fitted to their
// values), and one task per distinct operator instance (op type, attributes, shapes), each a suite
// pattern file with a one-workload `workloads` table. Shapes are static: inferred here per operator
// (onnx_ops_*.cpp) and checked against what the model declares. Anything not supported is an
// ImportError naming the node, and nothing is produced.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "interp/tensor_data.h"
#include "io/onnx_model.h"

namespace ekb::onnx_io {

struct ImportOptions {
  std::string name;                      // kernel name; empty: from the model file's name
  std::string domain;                    // empty: inferred (vision for an image input, else general)
  std::map<std::string, int64_t> dims;   // values of named (dim_param) dimensions, --dim NAME=VALUE
  std::optional<std::pair<double, double>> input_range;  // the model inputs' range; default below
  // Graph inputs given values at import (the ONNX node tests' shape, pads or scales inputs): they
  // become constants, as initializers are.
  std::map<std::string, TensorData> bound_inputs;
  bool op_tasks = true;        // also the tasks of single operators
  bool fit_activations = true; // run the model once to fit the op tasks' activation inputs
};

// Where an input of an imported task comes from.
struct TaskInput {
  std::string l0;       // its name in the task
  std::string onnx;     // the ONNX value
  enum class Kind { model_input, weight, activation } kind = Kind::model_input;
  std::shared_ptr<const TensorData> value;  // a weight's values
  std::string dist;     // the declared distribution's text
};

struct ImportedTask {
  std::string kernel;     // kernel (pattern) name
  std::string workload;   // the one workload's name (the task's name)
  std::string file;       // relative path: NAME.ekb, or ops/NAME.ekb
  std::string op;         // "" for the whole model
  std::string category;
  std::string text;       // the .ekb file
  std::vector<int> nodes; // the ONNX nodes it stands for
  std::vector<TaskInput> inputs;         // in declaration order
  std::vector<std::string> outputs;      // the ONNX values of its outputs, in order
};

struct ImportResult {
  ImportedTask model;
  std::vector<ImportedTask> ops;
  std::string domain;
  std::vector<std::string> notes;  // what the import decided that a user should know
};

// Throws ImportError (naming the node, attribute or input) when the model cannot be imported.
ImportResult import_model(const Model& m, const ImportOptions& o);

// The supported operators with their opsets, for --help and docs ("Add (1-14), ...").
std::string supported_ops_text();

}  // namespace ekb::onnx_io
