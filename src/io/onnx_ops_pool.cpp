// Pooling and reductions: MaxPool and AveragePool (1-D to 3-D; pads, auto_pad, strides, dilations
// for MaxPool, ceil_mode, count_include_pad), GlobalAveragePool, GlobalMaxPool, and ReduceMean /
// ReduceSum / ReduceMax / ReduceMin (axes as attribute or input, keepdims). A window that can reach
// outside the input reads through a select on its indices (never on the data).
#include <fmt/format.h>

#include <numeric>

#include "io/onnx_emit.h"
#include "io/onnx_ops_conv.h"

namespace ekb::onnx_io {
namespace {

struct PoolGeometry {
  std::vector<int64_t> in, kernel, strides, dilations, pad_begin, pad_end, out;
};

PoolGeometry pool_geometry(Emit& e, bool dilations_ok) {
  const auto& xs = e.shape(0);
  if (xs.size() < 3) e.refuse(fmt::format("X {} is not [N, C, spatial...]", shape_text(xs)));
  size_t k = xs.size() - 2;
  PoolGeometry g;
  g.in.assign(xs.begin() + 2, xs.end());
  if (!e.has_attr("kernel_shape")) e.refuse("no `kernel_shape`");
  g.kernel = e.attr_ints("kernel_shape");
  g.strides = e.attr_ints("strides", std::vector<int64_t>(k, 1));
  g.dilations = e.attr_ints("dilations", std::vector<int64_t>(k, 1));
  std::vector<int64_t> pads = e.attr_ints("pads", std::vector<int64_t>(2 * k, 0));
  if (g.kernel.size() != k || g.strides.size() != k || g.dilations.size() != k || pads.size() != 2 * k)
    e.refuse(fmt::format("`kernel_shape`, `strides`, `dilations` or `pads` do not fit {} spatial dims", k));
  for (size_t j = 0; j < k; ++j) {
    if (g.kernel[j] < 1 || g.strides[j] < 1 || g.dilations[j] < 1) e.refuse("a kernel size, stride or dilation below 1");
    if (!dilations_ok && g.dilations[j] != 1) e.refuse("`dilations` other than 1", "dilations 1");
  }
  std::string auto_pad = e.attr_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
    e.refuse(fmt::format("`auto_pad` = '{}'", auto_pad), "NOTSET, VALID, SAME_UPPER, SAME_LOWER");
  bool ceil_mode = e.attr_int("ceil_mode", 0) != 0;
  g.pad_begin.assign(k, 0);
  g.pad_end.assign(k, 0);
  g.out.assign(k, 0);
  for (size_t j = 0; j < k; ++j) {
    int64_t span = (g.kernel[j] - 1) * g.dilations[j] + 1, s = g.strides[j], d = g.in[j];
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      g.out[j] = (d + s - 1) / s;
      int64_t total = std::max<int64_t>(0, (g.out[j] - 1) * s + span - d);
      g.pad_begin[j] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      g.pad_end[j] = total - g.pad_begin[j];
      continue;
    }
    if (auto_pad == "NOTSET") {
      g.pad_begin[j] = pads[j];
      g.pad_end[j] = pads[j + k];
    }
    if (g.pad_begin[j] < 0 || g.pad_end[j] < 0) e.refuse("negative pads");
    int64_t room = d + g.pad_begin[j] + g.pad_end[j] - span;
    if (room < 0) e.refuse(fmt::format("the window {} is larger than the padded input along spatial axis {}", span, j));
    g.out[j] = (ceil_mode ? (room + s - 1) / s : room / s) + 1;
    // A last window that would start in the end padding is dropped (ONNX Runtime, PyTorch).
    if (ceil_mode && (g.out[j] - 1) * s >= d + g.pad_begin[j]) --g.out[j];
  }
  return g;
}

struct Window {
  std::vector<std::string> idx, conds;  // X's indices, and the guards that keep them inside X
  std::string header;                   // "r0 < 3, r1 < 3"
  int64_t size = 1;
  bool overhang = false;                // a window reaches past the end padding (ceil_mode)
};

Window window(const PoolGeometry& g, const std::vector<std::string>& ov) {
  Window w;
  w.idx = {ov[0], ov[1]};
  std::vector<std::string> header;
  for (size_t j = 0; j < g.in.size(); ++j) {
    std::string rv = fmt::format("r{}", j);
    header.push_back(fmt::format("{} < {}", rv, g.kernel[j]));
    w.size *= g.kernel[j];
    std::string t = linear({{ov[2 + j], g.strides[j]}, {rv, g.dilations[j]}}, -g.pad_begin[j]);
    int64_t last = (g.out[j] - 1) * g.strides[j] + (g.kernel[j] - 1) * g.dilations[j];
    if (g.pad_begin[j] > 0) w.conds.push_back(t + " >= 0");
    if (last - g.pad_begin[j] > g.in[j] - 1) w.conds.push_back(fmt::format("{} < {}", t, g.in[j]));
    if (last > g.in[j] + g.pad_begin[j] + g.pad_end[j] - 1) w.overhang = true;
    w.idx.push_back(t);
  }
  w.header = join(header);
  return w;
}

void emit_maxpool(Emit& e) {
  e.known_attrs({"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"});
  if (e.has_out(1)) e.refuse("the `Indices` output is used", "Y alone");
  DType t = e.dtype(0);
  if (t == DType::boolean) e.refuse("a bool input");
  PoolGeometry g = pool_geometry(e, true);
  std::vector<int64_t> shape = {e.shape(0)[0], e.shape(0)[1]};
  shape.insert(shape.end(), g.out.begin(), g.out.end());
  e.set_out(0, t, shape);
  Window w = window(g, e.out_vars(0));
  std::string x = e.read(0, w.idx);
  std::string low = is_float(t) ? "(-inf)" : literal(static_cast<double>(int_min(t)), t);
  std::string body = w.conds.empty() ? x : "select(" + join(w.conds, " && ") + ", " + x + ", " + low + ")";
  e.define(0, fmt::format("max({}) {}", w.header, body));
}

void emit_averagepool(Emit& e) {
  e.known_attrs({"auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads", "strides"});
  e.require_float(0);
  PoolGeometry g = pool_geometry(e, false);
  bool include_pad = e.attr_int("count_include_pad", 0) != 0;
  std::vector<int64_t> shape = {e.shape(0)[0], e.shape(0)[1]};
  shape.insert(shape.end(), g.out.begin(), g.out.end());
  e.set_out(0, e.dtype(0), shape);
  auto ov = e.out_vars(0);
  Window w = window(g, ov);
  std::string x = e.read(0, w.idx);
  std::string body = w.conds.empty() ? x : "select(" + join(w.conds, " && ") + ", " + x + ", 0.0)";
  std::string total = fmt::format("(sum({}) {})", w.header, body);
  if (w.conds.empty() || (include_pad && !w.overhang)) {
    e.define(0, total + " / " + literal(static_cast<double>(w.size), e.dtype(0)));
    return;
  }
  if (include_pad)
    e.refuse("`count_include_pad` = 1 with a window that reaches past the padding (ceil_mode)",
             "count_include_pad = 1 without ceil_mode overhang, or count_include_pad = 0");
  // The number of input elements in each window: a stage over the spatial output indices.
  std::vector<std::string> sv(ov.begin() + 2, ov.end());
  std::vector<int64_t> ss(g.out.begin(), g.out.end());
  std::string cnt = e.fresh("count");
  e.stage(fmt::format("{} = sum({}) select({}, 1.0, 0.0)", lhs(cnt, sv, ss), w.header, join(w.conds, " && ")));
  e.define(0, total + " / " + at(cnt, sv));
}

void emit_global_pool(Emit& e, bool average) {
  e.known_attrs({});
  if (average) e.require_float(0);
  const auto& xs = e.shape(0);
  if (xs.size() < 3) e.refuse(fmt::format("X {} is not [N, C, spatial...]", shape_text(xs)));
  std::vector<int64_t> shape(xs.size(), 1);
  shape[0] = xs[0];
  shape[1] = xs[1];
  e.set_out(0, e.dtype(0), shape);
  std::vector<int64_t> axes(xs.size() - 2);
  std::iota(axes.begin(), axes.end(), 2);
  Reduction r = reduction(xs, axes, e.out_vars(0));
  std::string x = e.read(0, r.idx);
  if (average) e.define(0, fmt::format("(sum({}) {}) / {}", r.header, x, literal(static_cast<double>(r.count), e.dtype(0))));
  else e.define(0, fmt::format("max({}) {}", r.header, x));
}

void emit_reduce(Emit& e, const std::string& op) {
  e.known_attrs({"axes", "keepdims", "noop_with_empty_axes"});
  DType t = e.dtype(0);
  if (t == DType::boolean) e.refuse("a bool input");
  if (op == "ReduceMean") e.require_float(0);
  const auto& xs = e.shape(0);
  int64_t rank = static_cast<int64_t>(xs.size());
  std::vector<int64_t> axes;
  bool given = false;
  if (e.has(1)) {
    axes = e.const_ints(1, "the axes");
    given = true;
  } else if (e.has_attr("axes")) {
    axes = e.attr_ints("axes");
    given = true;
  }
  if (given && axes.empty() && e.attr_int("noop_with_empty_axes", 0) != 0) {
    e.set_out(0, t, xs);
    e.define(0, e.read(0, e.out_vars(0)));
    return;
  }
  if (axes.empty()) {
    axes.resize(static_cast<size_t>(rank));
    std::iota(axes.begin(), axes.end(), 0);
  }
  for (auto& a : axes) a = normalize_axis(e, a, rank, "axis");
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  bool keep = e.attr_int("keepdims", 1) != 0;
  std::vector<int64_t> shape;
  for (int64_t k = 0; k < rank; ++k) {
    bool reduced = std::binary_search(axes.begin(), axes.end(), k);
    if (!reduced) shape.push_back(xs[static_cast<size_t>(k)]);
    else if (keep) shape.push_back(1);
  }
  e.set_out(0, t, shape);
  auto ov = e.out_vars(0);
  std::vector<std::string> full;
  for (int64_t k = 0, j = 0; k < rank; ++k) {
    bool reduced = std::binary_search(axes.begin(), axes.end(), k);
    if (!reduced || keep) full.push_back(ov[static_cast<size_t>(j++)]);
    else full.push_back("");
  }
  Reduction r = reduction(xs, axes, full);
  std::string x = e.read(0, r.idx);
  if (op == "ReduceMean") e.define(0, fmt::format("(sum({}) {}) / {}", r.header, x, literal(static_cast<double>(r.count), t)));
  else if (op == "ReduceSum") e.define(0, fmt::format("sum({}) {}", r.header, x));
  else if (op == "ReduceMax") e.define(0, fmt::format("max({}) {}", r.header, x));
  else e.define(0, fmt::format("min({}) {}", r.header, x));
}

OpSpec reduce_op(const char* op, const char* opsets) {
  return {op, [op = std::string(op)](Emit& e) { emit_reduce(e, op); }, "reduction", {"X", "axes"}, {"Y"}, false, false,
          OpKind::compute, opsets};
}

}  // namespace

void register_pool_ops(OpTable& t) {
  t.push_back({"MaxPool", emit_maxpool, "pooling", {"X"}, {"Y", "Indices"}, false, false, OpKind::compute, "1-12"});
  t.push_back({"AveragePool", emit_averagepool, "pooling", {"X"}, {"Y"}, false, false, OpKind::compute, "1-11"});
  t.push_back({"GlobalAveragePool", [](Emit& e) { emit_global_pool(e, true); }, "pooling", {"X"}, {"Y"}, false, false,
               OpKind::compute, "1-22"});
  t.push_back({"GlobalMaxPool", [](Emit& e) { emit_global_pool(e, false); }, "pooling", {"X"}, {"Y"}, false, false,
               OpKind::compute, "1-22"});
  t.push_back(reduce_op("ReduceMean", "1-18"));
  t.push_back(reduce_op("ReduceSum", "1-13"));
  t.push_back(reduce_op("ReduceMax", "1-18"));
  t.push_back(reduce_op("ReduceMin", "1-18"));
}

}  // namespace ekb::onnx_io
