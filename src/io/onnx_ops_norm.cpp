// Normalizations: BatchNormalization (inference), LayerNormalization, InstanceNormalization, and
// Softmax / LogSoftmax (opset 1-12: over every axis from `axis` on; opset 13+: over one axis). Shared
// statistics (a row's max, sum, mean, variance) are stages of their own, as docs/ir.md asks.
#include <fmt/format.h>

#include <numeric>

#include "io/onnx_emit.h"

namespace ekb::onnx_io {
namespace {

void emit_batchnorm(Emit& e) {
  e.known_attrs({"epsilon", "momentum", "spatial", "is_test", "consumed_inputs", "training_mode"});
  e.require_float(0);
  if (e.opset() < 7 && e.attr_int("is_test", 0) == 0)
    e.refuse("`is_test` is 0 (training: statistics of the batch)", "inference (is_test = 1)");
  if (e.attr_int("spatial", 1) != 1) e.refuse("`spatial` = 0 (statistics per element)", "spatial = 1");
  if (e.attr_int("training_mode", 0) != 0) e.refuse("`training_mode` = 1", "inference (training_mode = 0)");
  for (size_t k = 1; k < e.n_out(); ++k)
    if (e.has_out(k)) e.refuse(fmt::format("output {} (running statistics, a training output) is used", k), "Y alone (inference)");
  const auto& xs = e.shape(0);
  if (xs.size() < 2) e.refuse(fmt::format("X {} has no channel dimension", shape_text(xs)));
  for (size_t k = 1; k <= 4; ++k) {
    if (e.shape(k) != std::vector<int64_t>{xs[1]})
      e.refuse(fmt::format("input {} has shape {}, expected [{}]", k, shape_text(e.shape(k)), xs[1]));
    if (e.dtype(k) != e.dtype(0)) e.refuse(fmt::format("input {} is {}, X {}", k, dtype_name(e.dtype(k)), dtype_name(e.dtype(0))));
  }
  double eps = e.attr_float("epsilon", 1e-5);
  e.set_out(0, e.dtype(0), xs);
  auto v = e.out_vars(0);
  std::string c = v[1];
  e.define(0, fmt::format("{s} * ({x} - {m}) * rsqrt({var} + {eps}) + {b}", fmt::arg("s", e.read(1, {c})),
                          fmt::arg("x", e.read(0, v)), fmt::arg("m", e.read(3, {c})), fmt::arg("var", e.read(4, {c})),
                          fmt::arg("eps", literal(eps, e.dtype(0))), fmt::arg("b", e.read(2, {c}))));
}

// Mean and variance of X over `axes` as stages; returns their names (read with Reduction::kept_vars).
std::pair<std::string, std::string> moments(Emit& e, const Reduction& r, const std::vector<std::string>& kept) {
  std::string mu = e.fresh("mean"), var = e.fresh("var");
  std::string x = e.read(0, r.idx);
  e.stage(fmt::format("{} = (sum({}) {}) / {}", lhs(mu, kept, r.kept_shape), r.header, x, r.count));
  std::string d = "(" + x + " - " + at(mu, r.kept_vars) + ")";
  e.stage(fmt::format("{} = (sum({}) {} * {}) / {}", lhs(var, kept, r.kept_shape), r.header, d, d, r.count));
  return {mu, var};
}

void emit_layernorm(Emit& e) {
  e.known_attrs({"axis", "epsilon", "stash_type"});
  e.require_float(0);
  if (e.attr_int("stash_type", 1) != 1) e.refuse(fmt::format("`stash_type` = {}", e.attr_int("stash_type", 1)), "1 (float)");
  const auto& xs = e.shape(0);
  int64_t rank = static_cast<int64_t>(xs.size());
  int64_t axis = normalize_axis(e, e.attr_int("axis", -1), rank, "`axis`");
  double eps = e.attr_float("epsilon", 1e-5);
  for (size_t k : {size_t{1}, size_t{2}})
    if (e.has(k) && broadcast_shape(e, xs, e.shape(k)) != xs)
      e.refuse(fmt::format("input {} {} does not broadcast to X {}", k, shape_text(e.shape(k)), shape_text(xs)));
  std::vector<int64_t> axes(static_cast<size_t>(rank - axis));
  std::iota(axes.begin(), axes.end(), axis);
  std::vector<int64_t> stat_shape(xs.begin(), xs.begin() + axis);
  stat_shape.resize(xs.size(), 1);
  e.set_out(0, e.dtype(0), xs);
  e.set_out(1, e.dtype(0), stat_shape);
  e.set_out(2, e.dtype(0), stat_shape);
  auto v = index_vars("i", xs.size());
  Reduction r = reduction(xs, axes, v);
  auto [mu, var] = moments(e, r, r.kept_vars);
  std::string m = at(mu, r.kept_vars), s = at(var, r.kept_vars);
  std::string y = fmt::format("({} - {}) * rsqrt({} + {}) * {}", e.read(0, v), m, s, literal(eps, e.dtype(0)), e.read_bcast(1, v, xs));
  if (e.has(2)) y += " + " + e.read_bcast(2, v, xs);
  e.define(0, y);
  e.define(1, m);
  e.define(2, fmt::format("rsqrt({} + {})", s, literal(eps, e.dtype(0))));
}

void emit_instancenorm(Emit& e) {
  e.known_attrs({"epsilon", "consumed_inputs"});
  e.require_float(0);
  const auto& xs = e.shape(0);
  if (xs.size() < 3) e.refuse(fmt::format("X {} has no spatial dimensions", shape_text(xs)));
  for (size_t k : {size_t{1}, size_t{2}})
    if (e.shape(k) != std::vector<int64_t>{xs[1]})
      e.refuse(fmt::format("input {} has shape {}, expected [{}]", k, shape_text(e.shape(k)), xs[1]));
  double eps = e.attr_float("epsilon", 1e-5);
  std::vector<int64_t> axes(xs.size() - 2);
  std::iota(axes.begin(), axes.end(), 2);
  e.set_out(0, e.dtype(0), xs);
  auto v = e.out_vars(0);
  Reduction r = reduction(xs, axes, v);
  auto [mu, var] = moments(e, r, r.kept_vars);
  e.define(0, fmt::format("{} * ({} - {}) * rsqrt({} + {}) + {}", e.read(1, {v[1]}), e.read(0, v), at(mu, r.kept_vars),
                          at(var, r.kept_vars), literal(eps, e.dtype(0)), e.read(2, {v[1]})));
}

void emit_softmax(Emit& e, bool log) {
  e.known_attrs({"axis"});
  e.require_float(0);
  const auto& xs = e.shape(0);
  int64_t rank = static_cast<int64_t>(xs.size());
  if (rank == 0) e.refuse("a scalar input");
  std::vector<int64_t> axes;
  if (e.opset() < 13) {
    // Softmax-1/11: the input is seen as 2-D, [prod(dims before axis), prod(dims from axis)].
    int64_t axis = normalize_axis(e, e.attr_int("axis", 1), rank, "`axis`");
    for (int64_t k = axis; k < rank; ++k) axes.push_back(k);
  } else {
    axes.push_back(normalize_axis(e, e.attr_int("axis", -1), rank, "`axis`"));
  }
  e.set_out(0, e.dtype(0), xs);
  auto v = e.out_vars(0);
  Reduction r = reduction(xs, axes, v);
  std::string mx = e.fresh("max"), ex = e.fresh("exp"), sm = e.fresh("sum");
  e.stage(fmt::format("{} = max({}) {}", lhs(mx, r.kept_vars, r.kept_shape), r.header, e.read(0, r.idx)));
  std::string m = at(mx, r.kept_vars);
  if (log) {
    e.stage(fmt::format("{} = sum({}) exp({} - {})", lhs(sm, r.kept_vars, r.kept_shape), r.header, e.read(0, r.idx), m));
    e.define(0, fmt::format("{} - {} - log({})", e.read(0, v), m, at(sm, r.kept_vars)));
    return;
  }
  e.stage(fmt::format("{} = exp({} - {})", lhs(ex, v, xs), e.read(0, v), m));
  e.stage(fmt::format("{} = sum({}) {}", lhs(sm, r.kept_vars, r.kept_shape), r.header, at(ex, r.idx)));
  e.define(0, fmt::format("{} / {}", at(ex, v), at(sm, r.kept_vars)));
}

}  // namespace

void register_norm_ops(OpTable& t) {
  t.push_back({"BatchNormalization", emit_batchnorm, "normalization", {"X", "scale", "B", "mean", "var"},
               {"Y", "running_mean", "running_var", "saved_mean", "saved_var"}, false, false, OpKind::compute, "1-15"});
  t.push_back({"LayerNormalization", emit_layernorm, "normalization", {"X", "Scale", "B"}, {"Y", "Mean", "InvStdDev"},
               false, false, OpKind::compute, "17"});
  t.push_back({"InstanceNormalization", emit_instancenorm, "normalization", {"X", "scale", "B"}, {"Y"}, false, false,
               OpKind::compute, "1-22"});
  t.push_back({"Softmax", [](Emit& e) { emit_softmax(e, false); }, "normalization", {"X"}, {"Y"}, false, false,
               OpKind::compute, "1-13"});
  t.push_back({"LogSoftmax", [](Emit& e) { emit_softmax(e, true); }, "normalization", {"X"}, {"Y"}, false, false,
               OpKind::compute, "1-13"});
}

}  // namespace ekb::onnx_io
