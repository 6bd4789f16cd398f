// An ONNX model as the importer reads it: the graph's inputs, outputs, initializers and nodes with
// their attributes, in plain C++ types (no protobuf in this header, only a declaration of the class
// onnx::TensorProto, so that only the reader, and code that decodes TensorProto messages itself, link
// Debian's onnx_proto and libprotobuf). Shapes are as the file declares them; a dim given by name
// (dim_param) or left out is kept as such, for the importer to resolve or refuse.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "interp/tensor_data.h"

namespace onnx {
class TensorProto;  // onnx/onnx_pb.h (Debian's libonnx-dev)
}  // namespace onnx

namespace ekb::onnx_io {

// Everything the importer refuses or cannot read: the message names what and where.
struct ImportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Attr {
  enum class Kind { i, f, s, ints, floats, strings, tensor, other };
  Kind kind = Kind::other;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string> strings;
  std::optional<TensorData> t;
  std::string text() const;  // as written in messages and comments: 3, 0.5, 'SAME_UPPER', [1, 2]
};

struct Node {
  int index = 0;          // position in the graph
  std::string name;       // may be empty
  std::string op;         // op_type
  std::string domain;     // "" for ai.onnx
  std::vector<std::string> inputs, outputs;  // "" for an omitted optional input
  std::map<std::string, Attr> attrs;
  // "node 3 `conv1` (Conv)" for messages
  std::string label() const;
};

struct Dim {
  int64_t value = 0;      // dim_value, when given
  bool has_value = false;
  std::string param;      // dim_param, when the dim is named
};

struct ValueInfo {
  std::string name;
  int elem_type = 0;      // onnx.TensorProto.DataType; 0 when not a tensor or not given
  bool has_shape = false;
  std::vector<Dim> dims;
};

struct Model {
  std::string path;       // as given, for messages
  std::string producer;   // producer_name and version, e.g. "pytorch 2.1.0"
  std::string graph_name;
  int64_t ir_version = 0;
  int64_t opset = 0;      // of the default domain (ai.onnx)
  std::map<std::string, int64_t> opsets;  // every domain's
  std::vector<ValueInfo> inputs, outputs, value_info;  // inputs exclude those that are initializers
  std::vector<TensorData> initializers;   // TensorData::name is the value's name
  std::vector<Node> nodes;
};

// Reads a ModelProto file; throws ImportError naming the file and what is wrong with it.
Model read_model(const std::filesystem::path& path);
// The same from bytes already read (`display` names them in messages).
Model parse_model(const std::string& bytes, const std::string& display);

// A TensorProto file (an ONNX test's input_N.pb / output_N.pb): throws ImportError naming it.
TensorData read_tensor(const std::filesystem::path& path);

// One TensorProto (an initializer, an attribute's tensor, a test's .pb) as ekb's values: from raw_data
// (little-endian), else from the typed fields (float_data, double_data, int64_data, and int32_data for
// the narrower types, wrapped to their width; FLOAT16 and BFLOAT16 as bit patterns). Throws ImportError
// naming `what` for external data, an element type ekb has no type for, a negative dim, or a count of
// values its dims do not need.
TensorData tensor_from_proto(const ::onnx::TensorProto& t, const std::string& what);

// ekb's type for an ONNX element type, or nullopt (strings, complex, 4-bit, ...).
std::optional<DType> dtype_of_elem(int elem_type);
std::string elem_type_name(int elem_type);  // "FLOAT", "INT64", ...

}  // namespace ekb::onnx_io
