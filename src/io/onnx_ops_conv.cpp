// Convolutions: Conv (1-D, 2-D, 3-D; grouped, depthwise with multiplier, strided, dilated, padded
// explicitly or by auto_pad) and ConvTranspose (the same, with output_padding and output_shape).
// Conv pads its input in a stage of its own (as the suite's convolutions do) and reduces over the
// group's channels and the kernel window; ConvTranspose gathers, for each output point, the inputs
// whose window covers it. The padded input and the window are also QLinearConv's (onnx_ops_quant.cpp).
#include "io/onnx_ops_conv.h"

#include <fmt/format.h>

#include "io/onnx_emit.h"

namespace ekb::onnx_io {

std::string linear(const std::vector<std::pair<std::string, int64_t>>& terms, int64_t c) {
  std::string s;
  for (const auto& [v, k] : terms) {
    if (k == 0 || v.empty()) continue;
    int64_t mag = k < 0 ? -k : k;
    std::string t = mag == 1 ? v : fmt::format("{} * {}", v, mag);
    if (s.empty()) s = k < 0 ? "-" + t : t;
    else s += (k < 0 ? " - " : " + ") + t;
  }
  if (s.empty()) return std::to_string(c);
  if (c > 0) s += fmt::format(" + {}", c);
  if (c < 0) s += fmt::format(" - {}", -c);
  return s;
}

ConvGeometry conv_geometry(const Emit& e, size_t x, size_t w, bool transpose) {
  ConvGeometry g;
  const auto& xs = e.shape(x);
  const auto& ws = e.shape(w);
  if (xs.size() < 3 || ws.size() != xs.size())
    e.refuse(fmt::format("input {} and weights {} are not [N, C, spatial...] and [M, C/group, kernel...]", shape_text(xs),
                         shape_text(ws)),
             "1-D, 2-D and 3-D convolutions");
  size_t k = xs.size() - 2;
  g.spatial = static_cast<int>(k);
  g.group = e.attr_int("group", 1);
  if (g.group < 1) e.refuse(fmt::format("`group` = {}", g.group));
  g.kernel.assign(ws.begin() + 2, ws.end());
  auto ks = e.attr_ints("kernel_shape", g.kernel);
  if (ks != g.kernel)
    e.refuse(fmt::format("`kernel_shape` {} differs from the weights' {}", shape_text(ks), shape_text(g.kernel)));
  g.strides = e.attr_ints("strides", std::vector<int64_t>(k, 1));
  g.dilations = e.attr_ints("dilations", std::vector<int64_t>(k, 1));
  if (g.strides.size() != k || g.dilations.size() != k)
    e.refuse(fmt::format("`strides` {} or `dilations` {} do not have {} entries", shape_text(g.strides), shape_text(g.dilations), k));
  for (size_t j = 0; j < k; ++j)
    if (g.strides[j] < 1 || g.dilations[j] < 1) e.refuse("a stride or dilation below 1");
  std::vector<int64_t> pads = e.attr_ints("pads", std::vector<int64_t>(2 * k, 0));
  if (pads.size() != 2 * k) e.refuse(fmt::format("`pads` {} does not have {} entries", shape_text(pads), 2 * k));
  std::string auto_pad = e.attr_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
    e.refuse(fmt::format("`auto_pad` = '{}'", auto_pad), "NOTSET, VALID, SAME_UPPER, SAME_LOWER");
  if (auto_pad != "NOTSET" && e.has_attr("pads")) {
    for (int64_t p : pads)
      if (p != 0) e.refuse("both `auto_pad` and non-zero `pads`");
  }
  g.in.assign(xs.begin() + 2, xs.end());
  g.pad_begin.assign(k, 0);
  g.pad_end.assign(k, 0);
  g.out.assign(k, 0);
  g.output_padding = transpose ? e.attr_ints("output_padding", std::vector<int64_t>(k, 0)) : std::vector<int64_t>(k, 0);
  if (g.output_padding.size() != k) e.refuse(fmt::format("`output_padding` does not have {} entries", k));
  std::vector<int64_t> output_shape = transpose ? e.attr_ints("output_shape") : std::vector<int64_t>{};
  if (!output_shape.empty() && output_shape.size() == k + 2) output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
  if (!output_shape.empty() && output_shape.size() != k)
    e.refuse(fmt::format("`output_shape` {} does not have {} entries", shape_text(output_shape), k));
  for (size_t j = 0; j < k; ++j) {
    int64_t span = (g.kernel[j] - 1) * g.dilations[j] + 1;
    int64_t s = g.strides[j], d = g.in[j];
    if (!transpose) {
      if (auto_pad == "NOTSET") {
        g.pad_begin[j] = pads[j];
        g.pad_end[j] = pads[j + k];
      } else if (auto_pad != "VALID") {
        int64_t o = (d + s - 1) / s;
        int64_t total = std::max<int64_t>(0, (o - 1) * s + span - d);
        int64_t small = total / 2;
        g.pad_begin[j] = auto_pad == "SAME_UPPER" ? small : total - small;
        g.pad_end[j] = total - g.pad_begin[j];
      }
      if (g.pad_begin[j] < 0 || g.pad_end[j] < 0) e.refuse("negative pads");
      int64_t padded = d + g.pad_begin[j] + g.pad_end[j];
      if (padded < span)
        e.refuse(fmt::format("the kernel's span {} is larger than the padded input {} along spatial axis {}", span, padded, j));
      g.out[j] = (padded - span) / s + 1;
    } else {
      int64_t natural = s * (d - 1) + g.output_padding[j] + span;
      auto floordiv2 = [](int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); };
      if (!output_shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
        g.out[j] = !output_shape.empty() ? output_shape[j] : d * s;
        int64_t total = natural - g.out[j];
        // As ONNX's reference and its node tests: SAME_UPPER puts the smaller half first; otherwise
        // the larger half comes first (Python's floor division, so a negative total adds outputs at
        // the end).
        g.pad_begin[j] = auto_pad == "SAME_UPPER" ? floordiv2(total) : total - floordiv2(total);
        g.pad_end[j] = total - g.pad_begin[j];
      } else {
        if (auto_pad == "NOTSET") {
          g.pad_begin[j] = pads[j];
          g.pad_end[j] = pads[j + k];
        }
        g.out[j] = natural - g.pad_begin[j] - g.pad_end[j];
      }
      if (g.out[j] < 1) e.refuse(fmt::format("the output would be empty along spatial axis {}", j));
    }
  }
  return g;
}

PaddedInput padded_input(const ConvGeometry& g, int64_t n, int64_t c, const std::vector<std::string>& pv) {
  PaddedInput p;
  p.shape = {n, c};
  p.x_index = {pv[0], pv[1]};
  for (size_t j = 0; j < static_cast<size_t>(g.spatial); ++j) {
    p.shape.push_back(g.in[j] + g.pad_begin[j] + g.pad_end[j]);
    const std::string& v = pv[2 + j];
    if (g.pad_begin[j] > 0) p.inside.push_back(fmt::format("{} >= {}", v, g.pad_begin[j]));
    if (g.pad_end[j] > 0) p.inside.push_back(fmt::format("{} < {}", v, g.in[j] + g.pad_begin[j]));
    p.x_index.push_back(linear({{v, 1}}, -g.pad_begin[j]));
  }
  return p;
}

std::string conv_input_channel(const ConvGeometry& g, const std::string& oc, int64_t cg, int64_t mg,
                               std::vector<std::string>& reductions) {
  if (cg == 1) return g.group == 1 ? "0" : (mg == 1 ? oc : fmt::format("{} / {}", oc, mg));
  reductions.push_back(fmt::format("r0 < {}", cg));
  return g.group == 1 ? "r0" : fmt::format("{} / {} * {} + r0", oc, mg, cg);
}

ConvWindow conv_window(const ConvGeometry& g, const std::vector<std::string>& ov, int64_t cg, int64_t mg) {
  ConvWindow w;
  std::string ch = conv_input_channel(g, ov[1], cg, mg, w.reductions);
  w.x_index = {ov[0], ch};
  w.w_index = {ov[1], cg == 1 ? "0" : "r0"};
  for (size_t j = 0; j < static_cast<size_t>(g.spatial); ++j) {
    std::string kv = fmt::format("r{}", j + 1);
    if (g.kernel[j] > 1) w.reductions.push_back(fmt::format("{} < {}", kv, g.kernel[j]));
    w.x_index.push_back(linear({{ov[2 + j], g.strides[j]}, {g.kernel[j] > 1 ? kv : "", g.dilations[j]}}, 0));
    w.w_index.push_back(g.kernel[j] > 1 ? kv : "0");
  }
  return w;
}

namespace {

void emit_conv(Emit& e) {
  e.known_attrs({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  e.require_float(0);
  if (e.dtype(1) != e.dtype(0)) e.refuse("X and W differ in type");
  ConvGeometry g = conv_geometry(e, 0, 1, false);
  const auto& xs = e.shape(0);
  const auto& ws = e.shape(1);
  int64_t n = xs[0], c = xs[1], m = ws[0], cg = ws[1];
  if (c != cg * g.group || m % g.group != 0)
    e.refuse(fmt::format("X has {} channels and W is {} with group {}: they do not agree", c, shape_text(ws), g.group));
  if (e.has(2) && (e.shape(2) != std::vector<int64_t>{m}))
    e.refuse(fmt::format("the bias has shape {}, expected [{}]", shape_text(e.shape(2)), m));
  int64_t mg = m / g.group;
  std::vector<int64_t> out_shape = {n, m};
  out_shape.insert(out_shape.end(), g.out.begin(), g.out.end());
  e.set_out(0, e.dtype(0), out_shape);

  // The padded input: its own stage, zero outside X.
  std::vector<std::string> pv = index_vars("i", xs.size());
  PaddedInput p = padded_input(g, n, c, pv);
  bool padded = !p.inside.empty();
  std::string source;
  if (padded) {
    source = e.fresh("pad");
    e.stage(lhs(source, pv, p.shape) + " = select(" + join(p.inside, " && ") + ", " + e.read(0, p.x_index) + ", 0.0)");
  }
  auto ov = e.out_vars(0);
  ConvWindow w = conv_window(g, ov, cg, mg);
  std::string x = padded ? source + "[" + join(w.x_index) + "]" : e.read(0, w.x_index);
  std::string body = x + " * " + e.read(1, w.w_index);
  std::string expr = w.reductions.empty() ? body : "(sum(" + join(w.reductions) + ") " + body + ")";
  if (e.has(2)) expr += " + " + e.read(2, {ov[1]});
  e.define(0, expr);
}

void emit_conv_transpose(Emit& e) {
  e.known_attrs({"auto_pad", "dilations", "group", "kernel_shape", "output_padding", "output_shape", "pads", "strides"});
  e.require_float(0);
  if (e.dtype(1) != e.dtype(0)) e.refuse("X and W differ in type");
  ConvGeometry g = conv_geometry(e, 0, 1, true);
  const auto& xs = e.shape(0);
  const auto& ws = e.shape(1);
  int64_t n = xs[0], c = xs[1], mg = ws[1], m = mg * g.group;
  if (ws[0] != c || c % g.group != 0)
    e.refuse(fmt::format("X has {} channels and W is {} with group {}: they do not agree", c, shape_text(ws), g.group));
  int64_t cg = c / g.group;
  if (e.has(2) && (e.shape(2) != std::vector<int64_t>{m}))
    e.refuse(fmt::format("the bias has shape {}, expected [{}]", shape_text(e.shape(2)), m));
  std::vector<int64_t> out_shape = {n, m};
  out_shape.insert(out_shape.end(), g.out.begin(), g.out.end());
  e.set_out(0, e.dtype(0), out_shape);
  auto ov = e.out_vars(0);
  size_t k = static_cast<size_t>(g.spatial);
  std::vector<std::string> red, conds;
  std::string ch = conv_input_channel(g, ov[1], cg, mg, red);
  std::vector<std::string> xi = {ov[0], ch};
  std::vector<std::string> wi = {ch, g.group == 1 ? ov[1] : (mg == 1 ? "0" : fmt::format("{} % {}", ov[1], mg))};
  for (size_t j = 0; j < k; ++j) {
    std::string kv = fmt::format("r{}", j + 1);
    bool has_k = g.kernel[j] > 1;
    if (has_k) red.push_back(fmt::format("{} < {}", kv, g.kernel[j]));
    // output o takes input i where o = i * s + kk * d - pad_begin
    std::string t = linear({{ov[2 + j], 1}, {has_k ? kv : "", -g.dilations[j]}}, g.pad_begin[j]);
    int64_t s = g.strides[j];
    if (s == 1) {
      conds.push_back(fmt::format("{} >= 0", t));
      conds.push_back(fmt::format("{} < {}", t, g.in[j]));
      xi.push_back(t);
    } else {
      conds.push_back(fmt::format("({}) % {} == 0", t, s));
      conds.push_back(fmt::format("({}) / {} >= 0", t, s));
      conds.push_back(fmt::format("({}) / {} < {}", t, s, g.in[j]));
      xi.push_back(fmt::format("({}) / {}", t, s));
    }
    wi.push_back(has_k ? kv : "0");
  }
  std::string body = "select(" + join(conds, " && ") + ", " + e.read(0, xi) + ", 0.0) * " + e.read(1, wi);
  std::string expr = red.empty() ? body : "(sum(" + join(red) + ") " + body + ")";
  if (e.has(2)) expr += " + " + e.read(2, {ov[1]});
  e.define(0, expr);
}

}  // namespace

void register_conv_ops(OpTable& t) {
  t.push_back({"Conv", emit_conv, "conv", {"X", "W", "B"}, {"Y"}, false, false, OpKind::compute, "1-22"});
  t.push_back({"ConvTranspose", emit_conv_transpose, "conv", {"X", "W", "B"}, {"Y"}, false, false, OpKind::compute, "1-22"});
}

}  // namespace ekb::onnx_io
