// Resize (opset 10-19) and Upsample (7-9): nearest (round_prefer_floor, round_prefer_ceil, floor,
// ceil), linear and cubic (cubic_coeff_a, exclude_outside) along any axis, with every coordinate
// transformation (half_pixel, pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn,
// tf_crop_and_resize with its extrapolation_value). As ONNX's reference (and tests/onnx/cases):
// per resized axis, x = the input coordinate of output index o, base = ceil(x) - 1 and
// ratio = x - base in (0, 1] pick the neighbours; neighbours past the edge read the edge element.
// Scales, sizes and roi must be known at import; the coordinate arithmetic is stages over the
// output indices (f64), the neighbours' indices and weights too.
#include <fmt/format.h>

#include <cmath>

#include "io/onnx_emit.h"

namespace ekb::onnx_io {
namespace {

enum class Mode { nearest, linear, cubic };

struct AxisPlan {
  size_t axis = 0;
  int64_t in = 0, out = 0;
  double scale = 1;
  std::string coord, index, weight;  // stage names; weight empty for nearest
};

void emit_resize(Emit& e, bool upsample) {
  if (upsample) e.known_attrs({"mode", "scales", "height_scale", "width_scale"});
  else
    e.known_attrs({"mode", "coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside", "extrapolation_value",
                   "nearest_mode", "antialias", "axes", "keep_aspect_ratio_policy"});
  const auto& xs = e.shape(0);
  size_t rank = xs.size();
  std::string mode_name = e.attr_string("mode", "nearest");
  Mode mode;
  if (mode_name == "nearest") mode = Mode::nearest;
  else if (mode_name == "linear" || mode_name == "bilinear") mode = Mode::linear;
  else if (mode_name == "cubic") mode = Mode::cubic;
  else e.refuse(fmt::format("`mode` = '{}'", mode_name), "nearest, linear, cubic");
  if (mode != Mode::nearest) e.require_float(0);
  if (e.dtype(0) == DType::boolean) e.refuse("a bool input");
  // Resize-10 and Upsample: asymmetric coordinates, nearest rounds down.
  bool old = upsample || e.opset() < 11;
  std::string ctm = old ? "asymmetric" : e.attr_string("coordinate_transformation_mode", "half_pixel");
  std::string nearest_mode = old ? "floor" : e.attr_string("nearest_mode", "round_prefer_floor");
  double a = e.attr_float("cubic_coeff_a", -0.75);
  bool exclude_outside = e.attr_int("exclude_outside", 0) != 0;
  double extrapolation = e.attr_float("extrapolation_value", 0.0);
  if (e.attr_int("antialias", 0) != 0) e.refuse("`antialias` = 1", "antialias 0");
  if (e.attr_string("keep_aspect_ratio_policy", "stretch") != "stretch")
    e.refuse(fmt::format("`keep_aspect_ratio_policy` = '{}'", e.attr_string("keep_aspect_ratio_policy", "")), "stretch");
  if (e.has_attr("axes")) e.refuse("the `axes` attribute (Resize-18)", "scales or sizes for every axis");
  static const std::vector<std::string> ctms = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                                "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  if (std::find(ctms.begin(), ctms.end(), ctm) == ctms.end())
    e.refuse(fmt::format("`coordinate_transformation_mode` = '{}'", ctm), join(ctms));
  static const std::vector<std::string> nms = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  if (std::find(nms.begin(), nms.end(), nearest_mode) == nms.end())
    e.refuse(fmt::format("`nearest_mode` = '{}'", nearest_mode), join(nms));

  // Scales (given, or sizes / input length) and output sizes.
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  if (upsample && e.opset() < 9) {
    scales = e.attr_floats("scales");
    if (scales.empty() && e.has_attr("height_scale"))
      scales = {1.0, 1.0, e.attr_float("height_scale", 1), e.attr_float("width_scale", 1)};
  } else {
    size_t scales_in = upsample || e.opset() < 11 ? 1 : 2;
    if (e.has(scales_in) && e.in(scales_in).elements() > 0) scales = e.const_floats(scales_in, "the scales");
    if (!upsample && e.opset() >= 11 && e.has(3) && e.in(3).elements() > 0) sizes = e.const_ints(3, "the sizes");
  }
  if (!scales.empty() && !sizes.empty()) e.refuse("both scales and sizes are given");
  if (scales.empty() && sizes.empty()) e.refuse("neither scales nor sizes are given");
  std::vector<int64_t> out(rank);
  if (!sizes.empty()) {
    if (sizes.size() != rank) e.refuse(fmt::format("sizes {} do not fit rank {}", shape_text(sizes), rank));
    for (size_t j = 0; j < rank; ++j) {
      out[j] = sizes[j];
      scales.push_back(static_cast<double>(sizes[j]) / static_cast<double>(xs[j]));
    }
  } else {
    if (scales.size() != rank) e.refuse(fmt::format("{} scales for rank {}", scales.size(), rank));
    for (size_t j = 0; j < rank; ++j) {
      if (!(scales[j] > 0)) e.refuse(fmt::format("scale {} of axis {}", scales[j], j), "positive scales");
      out[j] = static_cast<int64_t>(std::floor(static_cast<double>(xs[j]) * scales[j]));
    }
  }
  std::vector<double> roi;
  if (ctm == "tf_crop_and_resize") {
    roi = e.const_floats(1, "the roi");
    if (roi.size() != 2 * rank) e.refuse(fmt::format("roi has {} values for rank {}", roi.size(), rank));
  }
  e.set_out(0, e.dtype(0), out);
  auto v = e.out_vars(0);

  const char* f64 = "f64";
  (void)f64;
  std::vector<AxisPlan> plans;
  for (size_t j = 0; j < rank; ++j) {
    if (out[j] == xs[j] && scales[j] == 1.0 && ctm != "tf_crop_and_resize") continue;
    AxisPlan p;
    p.axis = j;
    p.in = xs[j];
    p.out = out[j];
    p.scale = scales[j];
    std::string s = literal(p.scale, DType::f64);
    std::string o = "f64(o)";
    double len = p.scale * static_cast<double>(p.in);  // the reference's "output length"
    std::string x;
    if (ctm == "half_pixel") x = fmt::format("({} + 0.5) / {} - 0.5", o, s);
    else if (ctm == "pytorch_half_pixel") x = p.out > 1 ? fmt::format("({} + 0.5) / {} - 0.5", o, s) : "-0.5 + 0.0 * " + o;
    else if (ctm == "asymmetric") x = fmt::format("{} / {}", o, s);
    else if (ctm == "tf_half_pixel_for_nn") x = fmt::format("({} + 0.5) / {}", o, s);
    else if (ctm == "align_corners")
      x = len == 1.0 ? "0.0 * " + o : fmt::format("{} * {} / {}", o, p.in - 1, literal(len - 1, DType::f64));
    else {
      double start = roi[j], end = roi[j + rank];
      x = len == 1.0 ? literal(0.5 * (start + end) * static_cast<double>(p.in - 1), DType::f64) + " + 0.0 * " + o
                     : fmt::format("{} * {} / {} + {}", o, literal((end - start) * static_cast<double>(p.in - 1), DType::f64),
                                   literal(len - 1, DType::f64), literal(start * static_cast<double>(p.in - 1), DType::f64));
    }
    std::string tag = fmt::format("a{}", j);
    p.coord = e.fresh(tag + "_x");
    std::string base = e.fresh(tag + "_base"), ratio = e.fresh(tag + "_ratio");
    std::string ov = fmt::format("o < {}", p.out);
    e.stage(fmt::format("{}[{}] = {}", p.coord, ov, x));
    e.stage(fmt::format("{}[{}] = i64(ceil({}[o])) - 1", base, ov, p.coord));
    e.stage(fmt::format("{}[{}] = {}[o] - f64({}[o])", ratio, ov, p.coord, base));
    p.index = e.fresh(tag + "_index");
    std::string hi = std::to_string(p.in - 1);
    if (mode == Mode::nearest) {
      std::string cond = nearest_mode == "round_prefer_floor" ? ratio + "[o] > 0.5"
                         : nearest_mode == "round_prefer_ceil" ? ratio + "[o] >= 0.5"
                         : nearest_mode == "floor"             ? ratio + "[o] == 1"
                                                               : "";
      std::string pick = cond.empty() ? base + "[o] + 1" : fmt::format("select({}, {}[o] + 1, {}[o])", cond, base, base);
      e.stage(fmt::format("{}[{}] = clamp({}, 0, {})", p.index, ov, pick, hi));
    } else if (mode == Mode::linear) {
      p.weight = e.fresh(tag + "_weight");
      e.stage(fmt::format("{}[{}, t < 2] = clamp({}[o] + t, 0, {})", p.index, ov, base, hi));
      e.stage(fmt::format("{}[{}, t < 2] = select(t == 0, 1 - {r}[o], {r}[o])", p.weight, ov, fmt::arg("r", ratio)));
    } else {
      e.stage(fmt::format("{}[{}, t < 4] = clamp({}[o] + t - 1, 0, {})", p.index, ov, base, hi));
      std::string r = ratio + "[o]", A = literal(a, DType::f64);
      auto far = [&](const std::string& d) {
        return fmt::format("(({A} * {d} - 5 * {A}) * {d} + 8 * {A}) * {d} - 4 * {A}", fmt::arg("A", A), fmt::arg("d", d));
      };
      auto near = [&](const std::string& d) {
        return fmt::format("(({A} + 2) * {d} - ({A} + 3)) * {d} * {d} + 1", fmt::arg("A", A), fmt::arg("d", d));
      };
      std::string k = fmt::format("select(t == 0, {}, select(t == 1, {}, select(t == 2, {}, {})))", far("(" + r + " + 1)"),
                                  near(r), near("(1 - " + r + ")"), far("(2 - " + r + ")"));
      p.weight = e.fresh(tag + "_weight");
      if (exclude_outside) {
        std::string raw = e.fresh(tag + "_kernel");
        e.stage(fmt::format("{}[{}, t < 4] = select({b}[o] + t - 1 >= 0 && {b}[o] + t - 1 < {n}, {k}, 0.0)", raw, ov,
                            fmt::arg("b", base), fmt::arg("n", p.in), fmt::arg("k", k)));
        e.stage(fmt::format("{}[{}, t < 4] = {r}[o, t] / (sum(u < 4) {r}[o, u])", p.weight, ov, fmt::arg("r", raw)));
      } else {
        e.stage(fmt::format("{}[{}, t < 4] = {}", p.weight, ov, k));
      }
    }
    plans.push_back(p);
  }
  std::vector<std::string> idx = v, weights, header;
  for (size_t q = 0; q < plans.size(); ++q) {
    const AxisPlan& p = plans[q];
    std::string vj = v[p.axis];
    if (mode == Mode::nearest) {
      idx[p.axis] = fmt::format("{}[{}]", p.index, vj);
    } else {
      std::string tv = fmt::format("r{}", q);
      header.push_back(fmt::format("{} < {}", tv, mode == Mode::linear ? 2 : 4));
      idx[p.axis] = fmt::format("{}[{}, {}]", p.index, vj, tv);
      weights.push_back(fmt::format("{}[{}, {}]", p.weight, vj, tv));
    }
  }
  for (size_t j = 0; j < rank; ++j)
    if (xs[j] == 1 && idx[j] == v[j]) idx[j] = "0";
  std::string x = e.read(0, idx);
  std::string expr = header.empty() ? x : fmt::format("sum({}) {} * {}", join(header), join(weights, " * "), x);
  if (ctm == "tf_crop_and_resize") {
    std::vector<std::string> outside;
    for (const auto& p : plans)
      outside.push_back(fmt::format("{c}[{v}] < 0 || {c}[{v}] > {hi}", fmt::arg("c", p.coord), fmt::arg("v", v[p.axis]),
                                    fmt::arg("hi", p.in - 1)));
    if (!outside.empty()) expr = fmt::format("select({}, {}, {})", join(outside, " || "), literal(extrapolation, e.dtype(0)), expr);
  }
  e.define(0, expr);
}

}  // namespace

void register_resize_ops(OpTable& t) {
  t.push_back({"Resize", [](Emit& e) { emit_resize(e, false); }, "image", {"X", "roi", "scales", "sizes"}, {"Y"}, false,
               false, OpKind::compute, "10-19"});
  t.push_back({"Upsample", [](Emit& e) { emit_resize(e, true); }, "image", {"X", "scales"}, {"Y"}, false, false,
               OpKind::compute, "7-9"});
}

}  // namespace ekb::onnx_io
