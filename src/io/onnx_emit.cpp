// The emitters' shared context (onnx_emit.h): names, literals, reads with broadcasting, attribute
// access that refuses what it does not know, and the table of operators the families register.
#include "io/onnx_emit.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <mutex>
#include <algorithm>
#include <map>
#include <regex>

#include "ir/parser.h"

namespace ekb::onnx_io {

int64_t Value::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string sanitize_name(const std::string& onnx_name) {
  std::string s;
  for (char c : onnx_name) {
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (ok) s += c;
    else if (!s.empty() && s.back() != '_') s += '_';
  }
  while (!s.empty() && s.back() == '_') s.pop_back();
  size_t lead = 0;
  while (lead < s.size() && s[lead] == '_') ++lead;
  s = s.substr(lead);
  // PyTorch's exporter names values `/layer1/conv/Conv_output_0`: the suffix says nothing.
  const std::string suffix = "_output_0";
  if (s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0)
    s.resize(s.size() - suffix.size());
  // Long exporter names keep their end, which names the layer's own part.
  if (s.size() > 60) s = s.substr(s.size() - 60);
  while (!s.empty() && s[0] == '_') s = s.substr(1);
  if (s.empty()) s = "v";
  if (std::isdigit(static_cast<unsigned char>(s[0]))) s = "v" + s;
  // Index variables of the emitters: i0, r1, ..., and o, t, u (Resize).
  static const std::regex index_like("[ir][0-9]+|[otu]");
  if (is_reserved_word(s) || std::regex_match(s, index_like)) s += "_v";
  return s;
}

std::string Namer::take(const std::string& wanted) {
  std::string base = sanitize_name(wanted);
  std::string name = base;
  for (int k = 2; used_.count(name); ++k) name = fmt::format("{}_{}", base, k);
  used_.insert(name);
  return name;
}

std::string literal(double v, DType t) {
  if (t == DType::boolean) return v != 0 ? "true" : "false";
  if (!is_float(t)) {
    auto i = static_cast<int64_t>(v);
    return i < 0 ? fmt::format("({})", i) : std::to_string(i);
  }
  if (std::isinf(v)) return v > 0 ? "inf" : "(-inf)";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return v < 0 || (v == 0 && std::signbit(v)) ? "(" + s + ")" : s;
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string s;
  for (size_t k = 0; k < parts.size(); ++k) s += (k ? sep : "") + parts[k];
  return s;
}

std::vector<std::string> index_vars(const char* prefix, size_t n) {
  std::vector<std::string> v;
  for (size_t k = 0; k < n; ++k) v.push_back(fmt::format("{}{}", prefix, k));
  return v;
}

std::string lhs(const std::string& name, const std::vector<std::string>& vars, const std::vector<int64_t>& shape) {
  if (shape.empty()) return name;
  std::vector<std::string> parts;
  for (size_t k = 0; k < shape.size(); ++k) parts.push_back(fmt::format("{} < {}", vars[k], shape[k]));
  return name + "[" + join(parts) + "]";
}

std::string at(const std::string& name, const std::vector<std::string>& idx) {
  return idx.empty() ? name : name + "[" + join(idx) + "]";
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::vector<std::string> p;
  for (int64_t d : shape) p.push_back(std::to_string(d));
  return "[" + join(p) + "]";
}

Emit::Emit(const Node& node, int64_t opset, const std::string& model, std::vector<const Value*> inputs,
           std::vector<std::string> in_names, std::vector<Value*> outputs, std::vector<std::string> out_names,
           Namer& namer)
    : node_(node),
      opset_(opset),
      model_(model),
      inputs_(std::move(inputs)),
      in_names_(std::move(in_names)),
      outputs_(std::move(outputs)),
      out_names_(std::move(out_names)),
      namer_(namer),
      read_(inputs_.size(), false) {}

void Emit::refuse(const std::string& what, const std::string& supported) const {
  std::string msg = fmt::format("{}: {}: {}", model_, node_.label(), what);
  if (!supported.empty()) msg += fmt::format(" (supported: {})", supported);
  throw ImportError(msg);
}

void Emit::known_attrs(std::initializer_list<const char*> names) const {
  for (const auto& [name, a] : node_.attrs) {
    bool known = false;
    for (const char* n : names) known = known || name == n;
    if (known) continue;
    std::vector<std::string> list;
    for (const char* n : names) list.push_back(n);
    refuse(fmt::format("attribute `{}` = {} is not supported", name, a.text()),
           list.empty() ? "no attributes" : "attributes " + join(list));
  }
}

bool Emit::has_attr(const std::string& name) const { return node_.attrs.count(name) > 0; }

int64_t Emit::attr_int(const std::string& name, int64_t dflt) const {
  auto it = node_.attrs.find(name);
  if (it == node_.attrs.end()) return dflt;
  if (it->second.kind != Attr::Kind::i) refuse(fmt::format("attribute `{}` = {} is not an integer", name, it->second.text()));
  return it->second.i;
}

double Emit::attr_float(const std::string& name, double dflt) const {
  auto it = node_.attrs.find(name);
  if (it == node_.attrs.end()) return dflt;
  if (it->second.kind == Attr::Kind::i) return static_cast<double>(it->second.i);
  if (it->second.kind != Attr::Kind::f) refuse(fmt::format("attribute `{}` = {} is not a float", name, it->second.text()));
  return it->second.f;
}

std::string Emit::attr_string(const std::string& name, const std::string& dflt) const {
  auto it = node_.attrs.find(name);
  if (it == node_.attrs.end()) return dflt;
  if (it->second.kind != Attr::Kind::s) refuse(fmt::format("attribute `{}` = {} is not a string", name, it->second.text()));
  return it->second.s;
}

std::vector<int64_t> Emit::attr_ints(const std::string& name, std::vector<int64_t> dflt) const {
  auto it = node_.attrs.find(name);
  if (it == node_.attrs.end()) return dflt;
  if (it->second.kind == Attr::Kind::i) return {it->second.i};
  if (it->second.kind != Attr::Kind::ints)
    refuse(fmt::format("attribute `{}` = {} is not a list of integers", name, it->second.text()));
  return it->second.ints;
}

std::vector<double> Emit::attr_floats(const std::string& name) const {
  auto it = node_.attrs.find(name);
  if (it == node_.attrs.end()) return {};
  if (it->second.kind == Attr::Kind::f) return {it->second.f};
  if (it->second.kind != Attr::Kind::floats)
    refuse(fmt::format("attribute `{}` = {} is not a list of floats", name, it->second.text()));
  return it->second.floats;
}

const Value& Emit::in(size_t k) const {
  if (!has(k)) refuse(fmt::format("input {} is required but the node leaves it out", k));
  return *inputs_[k];
}

std::string Emit::read(size_t k, const std::vector<std::string>& idx) {
  const Value& v = in(k);
  if (idx.size() != v.shape.size())
    refuse(fmt::format("internal: input {} read with {} indices, it has rank {}", k, idx.size(), v.shape.size()));
  if (v.uniform) return literal(v.constant->value(0), v.dtype);
  read_[k] = true;
  if (idx.empty()) return in_names_[k];
  return in_names_[k] + "[" + join(idx) + "]";
}

std::string Emit::read_bcast(size_t k, const std::vector<std::string>& vars, const std::vector<int64_t>& out) {
  const auto& s = shape(k);
  if (s.size() > out.size()) refuse(fmt::format("internal: input {} has a higher rank than the output", k));
  std::vector<std::string> idx;
  size_t off = out.size() - s.size();
  for (size_t j = 0; j < s.size(); ++j) {
    if (s[j] == 1) idx.push_back("0");
    else if (s[j] == out[off + j]) idx.push_back(vars[off + j]);
    else
      refuse(fmt::format("input {} of shape {} does not broadcast to {}", k, shape_text(s), shape_text(out)));
  }
  return read(k, idx);
}

const TensorData& Emit::constant(size_t k, const std::string& role) const {
  const Value& v = in(k);
  if (!v.constant)
    refuse(fmt::format("input {} (`{}`, {}) must be known at import (an initializer, a Constant node, or computed "
                       "from those and static shapes), but the graph computes it at run time",
                       k, v.name, role),
           "static values only: ekb tasks have fixed shapes");
  return *v.constant;
}

std::vector<int64_t> Emit::const_ints(size_t k, const std::string& role) const {
  const TensorData& t = constant(k, role);
  if (t.holds_float()) refuse(fmt::format("input {} (`{}`, {}) must hold integers, it is {}", k, in(k).name, role, t.shape_text()));
  return t.i;
}

std::vector<double> Emit::const_floats(size_t k, const std::string& role) const {
  const TensorData& t = constant(k, role);
  std::vector<double> v;
  for (int64_t q = 0; q < t.size(); ++q) v.push_back(t.value(q));
  return v;
}

void Emit::set_out(size_t k, DType t, std::vector<int64_t> shape) {
  if (!has_out(k)) return;
  for (int64_t d : shape)
    if (d <= 0)
      refuse(fmt::format("output {} would have shape {}: ekb tensors have no empty dimensions", k, shape_text(shape)));
  if (shape.size() > 16) refuse(fmt::format("output {} would have rank {}, ekb tensors at most 16", k, shape.size()));
  outputs_[k]->dtype = t;
  outputs_[k]->shape = std::move(shape);
  outputs_[k]->defined = true;
}

std::vector<std::string> Emit::out_vars(size_t k) const {
  if (!has_out(k)) refuse(fmt::format("internal: output {} is not used, yet its emitter reads its shape", k));
  return index_vars("i", outputs_[k]->shape.size());
}

void Emit::define(size_t k, const std::string& expr) {
  if (!has_out(k)) return;
  stage(lhs(out_names_[k], out_vars(k), outputs_[k]->shape) + " = " + expr);
}

std::string Emit::fresh(const std::string& suffix) {
  std::string base;
  for (size_t k = 0; base.empty() && k < out_names_.size(); ++k) base = out_names_[k];
  if (base.empty()) base = "tmp";
  return namer_.take(base + "_" + suffix);
}

void Emit::require_float(size_t k) const {
  if (!is_float(dtype(k)))
    refuse(fmt::format("input {} (`{}`) is {}", k, in(k).name, dtype_name(dtype(k))), "float tensors (f32, f64, f16, bf16)");
}

std::vector<int64_t> broadcast_shape(const Emit& e, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  size_t r = std::max(a.size(), b.size());
  std::vector<int64_t> out(r);
  for (size_t k = 0; k < r; ++k) {
    int64_t da = k + a.size() >= r ? a[k + a.size() - r] : 1;
    int64_t db = k + b.size() >= r ? b[k + b.size() - r] : 1;
    if (da != db && da != 1 && db != 1)
      e.refuse(fmt::format("shapes {} and {} do not broadcast", shape_text(a), shape_text(b)));
    out[k] = da == 1 ? db : da;
  }
  return out;
}

Reduction reduction(const std::vector<int64_t>& shape, const std::vector<int64_t>& axes, const std::vector<std::string>& vars) {
  Reduction r;
  std::vector<std::string> header;
  int q = 0;
  for (size_t k = 0; k < shape.size(); ++k) {
    bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(k)) != axes.end();
    if (reduced) {
      std::string rv = fmt::format("r{}", q++);
      header.push_back(fmt::format("{} < {}", rv, shape[k]));
      r.idx.push_back(rv);
      r.count *= shape[k];
    } else {
      r.idx.push_back(vars[k]);
      r.kept_vars.push_back(vars[k]);
      r.kept_shape.push_back(shape[k]);
    }
  }
  r.header = join(header);
  return r;
}

std::vector<std::string> keepdims_read(const std::vector<std::string>& vars, const std::vector<int64_t>& axes) {
  std::vector<std::string> out;
  for (size_t k = 0; k < vars.size(); ++k)
    if (std::find(axes.begin(), axes.end(), static_cast<int64_t>(k)) == axes.end()) out.push_back(vars[k]);
  return out;
}

int64_t normalize_axis(const Emit& e, int64_t axis, int64_t rank, const std::string& what) {
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
    e.refuse(fmt::format("{} {} is out of range for rank {}", what, axis, rank));
  return axis < 0 ? axis + rank : axis;
}

const OpTable& op_table() {
  static OpTable table;
  static std::once_flag once;
  std::call_once(once, [] {
    register_conv_ops(table);
    register_gemm_ops(table);
    register_elementwise_ops(table);
    register_norm_ops(table);
    register_pool_ops(table);
    register_layout_ops(table);
    register_resize_ops(table);
    register_quant_ops(table);
  });
  return table;
}

std::vector<size_t> static_inputs(const std::string& op) {
  static const std::map<std::string, std::vector<size_t>> table = {
      {"Reshape", {1}},    {"Squeeze", {1}},       {"Unsqueeze", {1}},     {"Split", {1}},        {"Slice", {1, 2, 3, 4}},
      {"Pad", {1, 3}},     {"Resize", {1, 2, 3}},  {"Upsample", {1}},      {"Expand", {1}},       {"Tile", {1}},
      {"ReduceMean", {1}}, {"ReduceSum", {1}},     {"ReduceMax", {1}},     {"ReduceMin", {1}},    {"Dropout", {1, 2}},
      {"ConstantOfShape", {0}}, {"Gather", {1}}};
  auto it = table.find(op);
  return it == table.end() ? std::vector<size_t>{} : it->second;
}

const OpSpec* find_op(const std::string& op) {
  for (const auto& s : op_table())
    if (op == s.op) return &s;
  return nullptr;
}

}  // namespace ekb::onnx_io
