// Quantization: QuantizeLinear and DequantizeLinear (per tensor or per axis), QLinearConv and
// QLinearMatMul (u8 / i8 with zero points, an i32 bias for QLinearConv). As tests/onnx/cases: the
// products accumulate exactly in i32, the result is rounded half to even after one float multiply
// by x_scale * w_scale / y_scale, then saturated to the output type.
#include <fmt/format.h>

#include "io/onnx_emit.h"
#include "io/onnx_ops_conv.h"

namespace ekb::onnx_io {
namespace {

// Input k, a scale or zero point: per tensor (one element), or per index along `axis` (1-D of that
// axis's size), read at `vars`.
std::string param(Emit& e, size_t k, const std::vector<std::string>& vars, const std::vector<int64_t>& shape, int64_t axis) {
  const Value& v = e.in(k);
  if (v.elements() == 1) return e.read(k, std::vector<std::string>(v.shape.size(), "0"));
  if (v.shape.size() == 1 && axis >= 0 && v.shape[0] == shape[static_cast<size_t>(axis)])
    return e.read(k, {vars[static_cast<size_t>(axis)]});
  e.refuse(fmt::format("input {} (`{}`) has shape {}, neither one value nor one per element of axis {}", k, v.name,
                       shape_text(v.shape), axis),
           "per-tensor or per-axis quantization parameters");
}

// A zero point that is absent or all zeros adds nothing (and is left out of the L0).
bool zero_point_is_zero(Emit& e, size_t k) {
  return !e.has(k) || (e.in(k).uniform && e.in(k).constant->value(0) == 0);
}

DType quantized_type(Emit& e, size_t zp) {
  DType t = e.has(zp) ? e.dtype(zp) : DType::u8;
  if (t != DType::u8 && t != DType::i8) e.refuse(fmt::format("zero point type {}", dtype_name(t)), "uint8, int8");
  return t;
}

std::string saturate(DType t, const std::string& x) {
  return fmt::format("{}(clamp({}, {}, {}))", dtype_name(t), x, int_min(t), int_max(t));
}

// The axis of per-axis parameters; -1 when every parameter is one value (the axis is not used).
int64_t param_axis(Emit& e, std::initializer_list<size_t> params) {
  bool per_axis = false;
  for (size_t k : params) per_axis = per_axis || (e.has(k) && e.in(k).elements() > 1);
  if (!per_axis) return -1;
  return normalize_axis(e, e.attr_int("axis", 1), e.rank(0), "`axis`");
}

void emit_quantize(Emit& e) {
  e.known_attrs({"axis", "saturate"});
  e.require_float(0);
  DType t = quantized_type(e, 2);
  const auto& xs = e.shape(0);
  int64_t axis = param_axis(e, {1, 2});
  e.set_out(0, t, xs);
  auto v = e.out_vars(0);
  std::string s = param(e, 1, v, xs, axis);
  std::string q = fmt::format("round({} / {})", e.read(0, v), s);
  if (!zero_point_is_zero(e, 2)) q += " + " + param(e, 2, v, xs, axis);
  e.define(0, saturate(t, q));
}

void emit_dequantize(Emit& e) {
  e.known_attrs({"axis"});
  DType t = e.dtype(0);
  if (t != DType::u8 && t != DType::i8 && t != DType::i32)
    e.refuse(fmt::format("input type {}", dtype_name(t)), "uint8, int8, int32");
  const auto& xs = e.shape(0);
  int64_t axis = param_axis(e, {1, 2});
  DType out = e.dtype(1);
  if (!is_float(out)) e.refuse("the scale is not a float");
  e.set_out(0, out, xs);
  auto v = e.out_vars(0);
  std::string s = param(e, 1, v, xs, axis);
  std::string x = t == DType::i32 ? e.read(0, v) : "i32(" + e.read(0, v) + ")";
  std::string d = !zero_point_is_zero(e, 2) ? fmt::format("({} - i32({}))", x, param(e, 2, v, xs, axis)) : x;
  e.define(0, d + " * " + s);
}

void emit_qlinearconv(Emit& e) {
  e.known_attrs({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  for (size_t k : {size_t{0}, size_t{3}})
    if (e.dtype(k) != DType::u8 && e.dtype(k) != DType::i8)
      e.refuse(fmt::format("input {} is {}", k, dtype_name(e.dtype(k))), "uint8, int8");
  DType t = quantized_type(e, 7);
  ConvGeometry g = conv_geometry(e, 0, 3, false);
  const auto& xs = e.shape(0);
  const auto& ws = e.shape(3);
  int64_t n = xs[0], c = xs[1], m = ws[0], cg = ws[1];
  if (c != cg * g.group || m % g.group != 0)
    e.refuse(fmt::format("x has {} channels and w is {} with group {}: they do not agree", c, shape_text(ws), g.group));
  if (e.has(8) && (e.shape(8) != std::vector<int64_t>{m} || e.dtype(8) != DType::i32))
    e.refuse(fmt::format("the bias is {}, expected i32[{}]", e.in(8).shape.empty() ? "a scalar" : shape_text(e.shape(8)), m));
  int64_t mg = m / g.group;
  std::vector<int64_t> out_shape = {n, m};
  out_shape.insert(out_shape.end(), g.out.begin(), g.out.end());
  e.set_out(0, t, out_shape);
  auto ov = e.out_vars(0);
  // x minus its zero point, padded with zeros (a padded element equals the zero point).
  std::string xd = e.fresh("xq");
  std::vector<std::string> pv = index_vars("i", xs.size());
  PaddedInput p = padded_input(g, n, c, pv);
  std::string diff = fmt::format("i32({}) - i32({})", e.read(0, p.x_index), param(e, 2, pv, xs, -1));
  e.stage(lhs(xd, pv, p.shape) + " = " + (p.inside.empty() ? diff : "select(" + join(p.inside, " && ") + ", " + diff + ", 0)"));
  ConvWindow w = conv_window(g, ov, cg, mg);
  std::string body = fmt::format("{}[{}] * (i32({}) - i32({}))", xd, join(w.x_index), e.read(3, w.w_index),
                                 param(e, 5, ov, out_shape, 1));
  std::string acc = e.fresh("acc");
  std::string sum = w.reductions.empty() ? body : "sum(" + join(w.reductions) + ") " + body;
  if (e.has(8)) sum = (w.reductions.empty() ? sum : "(" + sum + ")") + " + " + e.read(8, {ov[1]});
  e.stage(lhs(acc, ov, out_shape) + " = " + sum);
  std::string scale = fmt::format("({} * {} / {})", param(e, 1, ov, out_shape, -1), param(e, 4, ov, out_shape, 1),
                                  param(e, 6, ov, out_shape, -1));
  std::string y = fmt::format("round({}[{}] * {})", acc, join(ov), scale);
  if (!zero_point_is_zero(e, 7)) y += " + " + param(e, 7, ov, out_shape, -1);
  e.define(0, saturate(t, y));
}

void emit_qlinearmatmul(Emit& e) {
  e.known_attrs({});
  for (size_t k : {size_t{0}, size_t{3}})
    if (e.dtype(k) != DType::u8 && e.dtype(k) != DType::i8)
      e.refuse(fmt::format("input {} is {}", k, dtype_name(e.dtype(k))), "uint8, int8");
  DType t = quantized_type(e, 7);
  const auto& sa = e.shape(0);
  const auto& sb = e.shape(3);
  if (sa.size() < 2 || sb.size() < 2) e.refuse("a 1-D operand", "operands of rank 2 or more");
  if (sa.back() != sb[sb.size() - 2]) e.refuse(fmt::format("a {} and b {} do not multiply", shape_text(sa), shape_text(sb)));
  std::vector<int64_t> ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
  std::vector<int64_t> shape = broadcast_shape(e, ba, bb);
  size_t nb = shape.size();
  shape.push_back(sa[sa.size() - 2]);
  shape.push_back(sb.back());
  e.set_out(0, t, shape);
  auto v = e.out_vars(0);
  auto batch_idx = [&](const std::vector<int64_t>& own) {
    std::vector<std::string> idx;
    for (size_t j = 0; j < own.size(); ++j) idx.push_back(own[j] == 1 ? "0" : v[nb - own.size() + j]);
    return idx;
  };
  std::vector<std::string> ai = batch_idx(ba), bi = batch_idx(bb);
  ai.push_back(v[nb]);
  ai.push_back("r0");
  bi.push_back("r0");
  bi.push_back(v[nb + 1]);
  std::string acc = e.fresh("acc");
  e.stage(fmt::format("{} = sum(r0 < {}) (i32({}) - i32({})) * (i32({}) - i32({}))", lhs(acc, v, shape), sa.back(),
                      e.read(0, ai), param(e, 2, v, shape, -1), e.read(3, bi),
                      param(e, 5, v, shape, static_cast<int64_t>(nb + 1))));
  std::string scale = fmt::format("({} * {} / {})", param(e, 1, v, shape, -1),
                                  param(e, 4, v, shape, static_cast<int64_t>(nb + 1)), param(e, 6, v, shape, -1));
  std::string y = fmt::format("round({}[{}] * {})", acc, join(v), scale);
  if (!zero_point_is_zero(e, 7)) y += " + " + param(e, 7, v, shape, -1);
  e.define(0, saturate(t, y));
}

}  // namespace

void register_quant_ops(OpTable& t) {
  t.push_back({"QuantizeLinear", emit_quantize, "quantization", {"x", "y_scale", "y_zero_point"}, {"y"}, false, false,
               OpKind::compute, "10-13"});
  t.push_back({"DequantizeLinear", emit_dequantize, "quantization", {"x", "x_scale", "x_zero_point"}, {"y"}, false, false,
               OpKind::compute, "10-13"});
  t.push_back({"QLinearConv", emit_qlinearconv, "quantization",
               {"x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale", "y_zero_point", "B"}, {"y"},
               false, false, OpKind::compute, "10"});
  t.push_back({"QLinearMatMul", emit_qlinearmatmul, "quantization",
               {"a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point"}, {"y"}, false,
               false, OpKind::compute, "10"});
}

}  // namespace ekb::onnx_io
