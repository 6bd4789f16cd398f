// fold_shape_op (onnx_fold_shapes.h).
#include "io/onnx_fold_shapes.h"

#include <fmt/format.h>

#include <algorithm>

#include "io/onnx_emit.h"

namespace ekb::onnx_io {

namespace {

TensorData vec(DType t, std::vector<int64_t> v, bool scalar = false) {
  TensorData d("", t, scalar ? std::vector<int64_t>{} : std::vector<int64_t>{static_cast<int64_t>(v.size())});
  d.i = std::move(v);
  return d;
}

std::vector<int64_t> attr_ints(const Node& n, const char* name) {
  auto it = n.attrs.find(name);
  return it == n.attrs.end() ? std::vector<int64_t>{} : it->second.kind == Attr::Kind::i ? std::vector<int64_t>{it->second.i} : it->second.ints;
}

int64_t attr_int(const Node& n, const char* name, int64_t dflt) {
  auto it = n.attrs.find(name);
  return it == n.attrs.end() ? dflt : it->second.i;
}

}  // namespace

std::optional<std::vector<TensorData>> fold_shape_op(const Node& n, int64_t opset, const std::string& model,
                                                     const std::vector<const Value*>& ins) {
  static const std::vector<std::string> ops = {"Slice", "Concat", "Gather", "Unsqueeze", "Squeeze", "Add", "Sub",
                                               "Mul",   "Div",    "Identity", "Cast",   "Reshape"};
  if (std::find(ops.begin(), ops.end(), n.op) == ops.end() || ins.empty() || !ins[0]) return std::nullopt;
  for (const Value* v : ins) {
    if (!v) continue;
    if (!v->constant || v->shape.size() > 1 || v->constant->holds_float() || v->dtype == DType::boolean) return std::nullopt;
  }
  auto fail = [&](const std::string& what) -> std::vector<TensorData> {
    throw ImportError(fmt::format("{}: {}: {}", model, n.label(), what));
  };
  const TensorData& a = *ins[0]->constant;
  const DType t = a.dtype;
  const bool scalar = a.shape.empty();
  if (n.op == "Identity") return std::vector<TensorData>{a};
  if (n.op == "Cast") {
    auto to = dtype_of_elem(static_cast<int>(attr_int(n, "to", 0)));
    if (!to || is_float(*to) || *to == DType::boolean) return std::nullopt;
    TensorData d = a;
    d.dtype = *to;
    for (auto& x : d.i) x = wrap_int(x, *to);
    return std::vector<TensorData>{d};
  }
  if (n.op == "Add" || n.op == "Sub" || n.op == "Mul" || n.op == "Div") {
    if (ins.size() != 2 || !ins[1]) return std::nullopt;
    const TensorData& b = *ins[1]->constant;
    size_t len = std::max(a.i.size(), b.i.size());
    if ((a.i.size() != len && a.i.size() != 1) || (b.i.size() != len && b.i.size() != 1)) fail("shapes do not broadcast");
    std::vector<int64_t> r(len);
    for (size_t k = 0; k < len; ++k) {
      int64_t x = a.i[a.i.size() == 1 ? 0 : k], y = b.i[b.i.size() == 1 ? 0 : k];
      if (n.op == "Div" && y == 0) fail("an integer division by zero");
      r[k] = wrap_int(n.op == "Add" ? x + y : n.op == "Sub" ? x - y : n.op == "Mul" ? x * y : x / y, t);
    }
    return std::vector<TensorData>{vec(t, r, scalar && ins[1]->shape.empty())};
  }
  if (n.op == "Concat") {
    std::vector<int64_t> r;
    for (const Value* v : ins) {
      if (!v) continue;
      if (v->shape.size() != 1) return std::nullopt;
      r.insert(r.end(), v->constant->i.begin(), v->constant->i.end());
    }
    return std::vector<TensorData>{vec(t, r)};
  }
  if (n.op == "Unsqueeze") {
    if (!scalar) return std::nullopt;
    return std::vector<TensorData>{vec(t, a.i)};
  }
  if (n.op == "Squeeze") {
    if (scalar || a.i.size() != 1) return std::nullopt;
    return std::vector<TensorData>{vec(t, a.i, true)};
  }
  if (n.op == "Reshape") {
    std::vector<int64_t> shape = opset < 5 ? attr_ints(n, "shape") : (ins.size() > 1 && ins[1] ? ins[1]->constant->i : std::vector<int64_t>{});
    if (shape.empty()) return a.i.size() == 1 ? std::optional(std::vector<TensorData>{vec(t, a.i, true)}) : std::nullopt;
    if (shape.size() != 1) return std::nullopt;
    return std::vector<TensorData>{vec(t, a.i)};
  }
  if (n.op == "Gather") {
    if (scalar || ins.size() < 2 || !ins[1] || attr_int(n, "axis", 0) != 0) return std::nullopt;
    const TensorData& idx = *ins[1]->constant;
    std::vector<int64_t> r;
    for (int64_t q : idx.i) {
      int64_t d = static_cast<int64_t>(a.i.size());
      if (q < -d || q >= d) fail(fmt::format("index {} is out of range for {} values", q, d));
      r.push_back(a.i[static_cast<size_t>(q < 0 ? q + d : q)]);
    }
    return std::vector<TensorData>{vec(t, r, idx.shape.empty())};
  }
  // Slice of a vector (starts/ends/axes/steps as inputs from opset 10, attributes before).
  if (scalar) return std::nullopt;
  std::vector<int64_t> starts, ends, axes, steps;
  if (opset < 10) {
    starts = attr_ints(n, "starts");
    ends = attr_ints(n, "ends");
    axes = attr_ints(n, "axes");
  } else {
    auto in = [&](size_t k) { return k < ins.size() && ins[k] ? ins[k]->constant->i : std::vector<int64_t>{}; };
    starts = in(1);
    ends = in(2);
    axes = in(3);
    steps = in(4);
  }
  if (starts.size() != 1 || ends.size() != 1) return std::nullopt;
  if (!axes.empty() && axes[0] != 0 && axes[0] != -1) fail("a slice along an axis the vector does not have");
  int64_t step = steps.empty() ? 1 : steps[0];
  if (step == 0) fail("a step of 0");
  int64_t d = static_cast<int64_t>(a.i.size());
  auto fix = [&](int64_t x, int64_t lo, int64_t hi) { return std::clamp(x < 0 ? x + d : x, lo, hi); };
  int64_t b = step > 0 ? fix(starts[0], 0, d) : fix(starts[0], 0, d - 1);
  int64_t e = step > 0 ? fix(ends[0], 0, d) : fix(ends[0], -1, d - 1);
  std::vector<int64_t> r;
  for (int64_t k = b; step > 0 ? k < e : k > e; k += step) r.push_back(a.i[static_cast<size_t>(k)]);
  return std::vector<TensorData>{vec(t, r)};
}

}  // namespace ekb::onnx_io
