// Reading an ONNX ModelProto (Debian's libonnx-dev: onnx/onnx_pb.h over libprotobuf) into the plain
// types of onnx_model.h. Tensors are read from raw_data or from the typed fields (float_data,
// int32_data, ...), little-endian as the format defines; external data is refused by name.
#include "io/onnx_model.h"

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "ir/float16.h"

namespace ekb::onnx_io {

namespace {

using TP = ::onnx::TensorProto;

template <typename T>
T read_le(const std::string& raw, size_t k) {
  T v;
  std::memcpy(&v, raw.data() + k * sizeof(T), sizeof(T));
  return v;
}

std::string fmt_number(double v) {
  std::string s = fmt::format("{}", v);
  return s;
}

}  // namespace

std::optional<DType> dtype_of_elem(int t) {
  switch (t) {
    case TP::FLOAT: return DType::f32;
    case TP::DOUBLE: return DType::f64;
    case TP::FLOAT16: return DType::f16;
    case TP::BFLOAT16: return DType::bf16;
    case TP::INT64: return DType::i64;
    case TP::INT32: return DType::i32;
    case TP::INT16: return DType::i16;
    case TP::INT8: return DType::i8;
    case TP::UINT8: return DType::u8;
    case TP::BOOL: return DType::boolean;
    default: return std::nullopt;
  }
}

std::string elem_type_name(int t) {
  if (TP::DataType_IsValid(t)) return TP::DataType_Name(static_cast<TP::DataType>(t));
  return fmt::format("element type {}", t);
}

std::string Attr::text() const {
  auto list = [](const auto& v, auto f) {
    std::string s = "[";
    for (size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + f(v[k]);
    return s + "]";
  };
  switch (kind) {
    case Kind::i: return std::to_string(i);
    case Kind::f: return fmt_number(f);
    case Kind::s: return "'" + s + "'";
    case Kind::ints: return list(ints, [](int64_t v) { return std::to_string(v); });
    case Kind::floats: return list(floats, [](double v) { return fmt_number(v); });
    case Kind::strings: return list(strings, [](const std::string& v) { return "'" + v + "'"; });
    case Kind::tensor: return t ? "tensor " + t->shape_text() : "tensor";
    case Kind::other: return "(a graph or other non-tensor value)";
  }
  return "";
}

std::string Node::label() const {
  return name.empty() ? fmt::format("node {} ({})", index, op) : fmt::format("node {} `{}` ({})", index, name, op);
}

TensorData tensor_from_proto(const TP& t, const std::string& what) {
  const int et = t.data_type();
  if (t.data_location() == TP::EXTERNAL || t.external_data_size() > 0)
    throw ImportError(fmt::format("{}: its data is stored outside the model file (external data), which ekb "
                                  "does not read: save the model with its weights inside", what));
  auto dt = dtype_of_elem(et);
  if (!dt) throw ImportError(fmt::format("{}: element type {} has no ekb type", what, elem_type_name(et)));
  std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
  for (int64_t d : shape)
    if (d < 0) throw ImportError(fmt::format("{}: negative dimension {}", what, d));
  TensorData d(t.name(), *dt, shape);
  const size_t n = static_cast<size_t>(d.size());
  auto set = [&](size_t k, double fv, int64_t iv) {
    if (d.holds_float()) d.f[k] = fv;
    else d.i[k] = iv;
  };
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    const size_t width = static_cast<size_t>(dtype_bytes(d.dtype));
    if (raw.size() != n * width)
      throw ImportError(fmt::format("{}: raw_data has {} bytes, its dims need {}", what, raw.size(), n * width));
    for (size_t k = 0; k < n; ++k) {
      switch (et) {
        case TP::FLOAT: set(k, read_le<float>(raw, k), 0); break;
        case TP::DOUBLE: set(k, read_le<double>(raw, k), 0); break;
        case TP::FLOAT16: set(k, double_from_f16_bits(read_le<uint16_t>(raw, k)), 0); break;
        case TP::BFLOAT16: set(k, double_from_bf16_bits(read_le<uint16_t>(raw, k)), 0); break;
        case TP::INT64: set(k, 0, read_le<int64_t>(raw, k)); break;
        case TP::INT32: set(k, 0, read_le<int32_t>(raw, k)); break;
        case TP::INT16: set(k, 0, read_le<int16_t>(raw, k)); break;
        case TP::INT8: set(k, 0, read_le<int8_t>(raw, k)); break;
        case TP::UINT8: set(k, 0, read_le<uint8_t>(raw, k)); break;
        case TP::BOOL: set(k, 0, read_le<uint8_t>(raw, k) != 0); break;
      }
    }
    return d;
  }
  size_t have = 0;
  switch (et) {
    case TP::FLOAT:
      have = static_cast<size_t>(t.float_data_size());
      for (size_t k = 0; k < std::min(n, have); ++k) set(k, t.float_data(static_cast<int>(k)), 0);
      break;
    case TP::DOUBLE:
      have = static_cast<size_t>(t.double_data_size());
      for (size_t k = 0; k < std::min(n, have); ++k) set(k, t.double_data(static_cast<int>(k)), 0);
      break;
    case TP::INT64:
      have = static_cast<size_t>(t.int64_data_size());
      for (size_t k = 0; k < std::min(n, have); ++k) set(k, 0, t.int64_data(static_cast<int>(k)));
      break;
    default:
      have = static_cast<size_t>(t.int32_data_size());
      for (size_t k = 0; k < std::min(n, have); ++k) {
        int32_t v = t.int32_data(static_cast<int>(k));
        if (et == TP::FLOAT16) set(k, double_from_f16_bits(static_cast<uint16_t>(v)), 0);
        else if (et == TP::BFLOAT16) set(k, double_from_bf16_bits(static_cast<uint16_t>(v)), 0);
        else if (et == TP::BOOL) set(k, 0, v != 0);
        else set(k, 0, wrap_int(v, *dt));
      }
      break;
  }
  if (have != n) throw ImportError(fmt::format("{}: holds {} values, its dims need {}", what, have, n));
  return d;
}

namespace {

ValueInfo value_info_of(const ::onnx::ValueInfoProto& v) {
  ValueInfo vi;
  vi.name = v.name();
  if (!v.has_type() || !v.type().has_tensor_type()) return vi;
  const auto& tt = v.type().tensor_type();
  vi.elem_type = tt.elem_type();
  if (!tt.has_shape()) return vi;
  vi.has_shape = true;
  for (const auto& d : tt.shape().dim()) {
    Dim dim;
    if (d.has_dim_value()) dim.value = d.dim_value(), dim.has_value = true;
    else if (d.has_dim_param()) dim.param = d.dim_param();
    vi.dims.push_back(dim);
  }
  return vi;
}

Attr attr_of(const ::onnx::AttributeProto& a, const std::string& what) {
  using AP = ::onnx::AttributeProto;
  Attr r;
  switch (a.type()) {
    case AP::INT: r.kind = Attr::Kind::i; r.i = a.i(); break;
    case AP::FLOAT: r.kind = Attr::Kind::f; r.f = a.f(); break;
    case AP::STRING: r.kind = Attr::Kind::s; r.s = a.s(); break;
    case AP::INTS: r.kind = Attr::Kind::ints; r.ints.assign(a.ints().begin(), a.ints().end()); break;
    case AP::FLOATS: r.kind = Attr::Kind::floats; r.floats.assign(a.floats().begin(), a.floats().end()); break;
    case AP::STRINGS: r.kind = Attr::Kind::strings; r.strings.assign(a.strings().begin(), a.strings().end()); break;
    case AP::TENSOR: r.kind = Attr::Kind::tensor; r.t = tensor_from_proto(a.t(), what); break;
    default:
      // Files from before IR version 2 leave `type` out: tell the kind from the field that is set.
      if (a.type() == AP::UNDEFINED) {
        if (a.has_i()) { r.kind = Attr::Kind::i; r.i = a.i(); }
        else if (a.has_f()) { r.kind = Attr::Kind::f; r.f = a.f(); }
        else if (a.has_s()) { r.kind = Attr::Kind::s; r.s = a.s(); }
        else if (a.ints_size()) { r.kind = Attr::Kind::ints; r.ints.assign(a.ints().begin(), a.ints().end()); }
        else if (a.floats_size()) { r.kind = Attr::Kind::floats; r.floats.assign(a.floats().begin(), a.floats().end()); }
        else if (a.has_t()) { r.kind = Attr::Kind::tensor; r.t = tensor_from_proto(a.t(), what); }
      }
      break;
  }
  return r;
}

}  // namespace

Model parse_model(const std::string& bytes, const std::string& display) {
  ::onnx::ModelProto mp;
  if (!mp.ParseFromString(bytes))
    throw ImportError(fmt::format("{}: not an ONNX model (it does not parse as onnx.ModelProto)", display));
  Model m;
  m.path = display;
  m.producer = mp.producer_name() + (mp.producer_version().empty() ? "" : " " + mp.producer_version());
  m.ir_version = mp.ir_version();
  for (const auto& o : mp.opset_import()) {
    std::string dom = o.domain() == "ai.onnx" ? "" : o.domain();
    m.opsets[dom] = o.version();
  }
  if (mp.opset_import_size() == 0) m.opsets[""] = 1;  // IR version 1 models name no opset
  m.opset = m.opsets.count("") ? m.opsets.at("") : 0;
  if (!mp.has_graph()) throw ImportError(fmt::format("{}: the model has no graph", display));
  const auto& g = mp.graph();
  m.graph_name = g.name();
  for (const auto& t : g.initializer())
    m.initializers.push_back(tensor_from_proto(t, fmt::format("{}: initializer `{}`", display, t.name())));
  if (g.sparse_initializer_size() > 0)
    throw ImportError(fmt::format("{}: the graph has sparse initializers, which ekb does not read", display));
  std::map<std::string, bool> is_init;
  for (const auto& t : m.initializers) is_init[t.name] = true;
  // Before IR version 4 every initializer is also listed as a graph input; those are weights.
  for (const auto& v : g.input())
    if (!is_init.count(v.name())) m.inputs.push_back(value_info_of(v));
  for (const auto& v : g.output()) m.outputs.push_back(value_info_of(v));
  for (const auto& v : g.value_info()) m.value_info.push_back(value_info_of(v));
  int k = 0;
  for (const auto& n : g.node()) {
    Node node;
    node.index = k++;
    node.name = n.name();
    node.op = n.op_type();
    node.domain = n.domain() == "ai.onnx" ? "" : n.domain();
    node.inputs.assign(n.input().begin(), n.input().end());
    node.outputs.assign(n.output().begin(), n.output().end());
    for (const auto& a : n.attribute()) {
      if (!a.ref_attr_name().empty())
        throw ImportError(fmt::format("{}: {}: attribute `{}` refers to a function's attribute, which a model "
                                      "graph cannot", display, node.label(), a.name()));
      node.attrs[a.name()] = attr_of(a, fmt::format("{}: {} attribute `{}`", display, node.label(), a.name()));
    }
    m.nodes.push_back(std::move(node));
  }
  return m;
}

Model read_model(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ImportError(fmt::format("cannot open {}", path.string()));
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_model(ss.str(), path.string());
}

TensorData read_tensor(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ImportError(fmt::format("cannot open {}", path.string()));
  TP t;
  if (!t.ParseFromIstream(&in)) throw ImportError(fmt::format("cannot parse {} as onnx.TensorProto", path.string()));
  return tensor_from_proto(t, path.string());
}

}  // namespace ekb::onnx_io
