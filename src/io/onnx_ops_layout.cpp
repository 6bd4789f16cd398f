// Data movement: the views Reshape, Flatten, Squeeze, Unsqueeze (a copy through the flat index),
// and Transpose, Concat, Split, Slice, Pad (constant, edge, reflect), Expand, Tile. Shapes,
// starts, pads and the like must be known at import (initializers, Constant nodes or folded); the
// opset decides whether they are attributes or inputs.
#include <fmt/format.h>

#include <numeric>

#include "io/onnx_emit.h"
#include "io/onnx_ops_conv.h"

namespace ekb::onnx_io {
namespace {

// Output k = input 0 with the same elements in row-major order, in shape `out`.
void emit_reshape_copy(Emit& e, size_t k, const std::vector<int64_t>& out) {
  const auto& in = e.shape(0);
  e.set_out(k, e.dtype(0), out);
  auto v = index_vars("i", out.size());
  // Where the dimensions other than 1 agree, index by them directly (squeeze, unsqueeze, a
  // flatten of ones); otherwise through the flat index.
  std::vector<size_t> in_nz, out_nz;
  for (size_t j = 0; j < in.size(); ++j)
    if (in[j] != 1) in_nz.push_back(j);
  for (size_t j = 0; j < out.size(); ++j)
    if (out[j] != 1) out_nz.push_back(j);
  bool direct = in_nz.size() == out_nz.size();
  for (size_t j = 0; direct && j < in_nz.size(); ++j) direct = in[in_nz[j]] == out[out_nz[j]];
  std::vector<std::string> idx(in.size(), "0");
  if (direct) {
    for (size_t j = 0; j < in_nz.size(); ++j) idx[in_nz[j]] = v[out_nz[j]];
  } else {
    std::vector<std::pair<std::string, int64_t>> terms;
    int64_t stride = 1;
    for (size_t j = out.size(); j-- > 0;) {
      if (out[j] != 1) terms.insert(terms.begin(), {v[j], stride});
      stride *= out[j];
    }
    std::string flat = "(" + linear(terms, 0) + ")";
    int64_t s = 1;
    for (size_t j = in.size(); j-- > 0;) {
      if (in[j] != 1) {
        bool outermost = true;
        for (size_t q = 0; q < j; ++q) outermost = outermost && in[q] == 1;
        std::string q = s == 1 ? flat : fmt::format("{} / {}", flat, s);
        idx[j] = outermost ? q : fmt::format("{} % {}", q, in[j]);
      }
      s *= in[j];
    }
  }
  e.define(k, e.read(0, idx));
}

int64_t product(const std::vector<int64_t>& v, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t k = from; k < to; ++k) p *= v[k];
  return p;
}

void emit_reshape(Emit& e) {
  e.known_attrs({"allowzero", "shape", "consumed_inputs"});
  std::vector<int64_t> spec = e.opset() < 5 ? e.attr_ints("shape") : e.const_ints(1, "the shape");
  bool allowzero = e.attr_int("allowzero", 0) != 0;
  const auto& in = e.shape(0);
  std::vector<int64_t> out;
  int infer = -1;
  for (size_t k = 0; k < spec.size(); ++k) {
    int64_t d = spec[k];
    if (d == 0 && !allowzero) {
      if (k >= in.size()) e.refuse(fmt::format("shape entry {} is 0 (copy) but the input has rank {}", k, in.size()));
      d = in[k];
    } else if (d == -1) {
      if (infer >= 0) e.refuse("two -1 entries in the shape");
      infer = static_cast<int>(k);
      d = 1;
    } else if (d < 0 || (d == 0 && allowzero)) {
      e.refuse(fmt::format("shape entry {} is {}", k, d));
    }
    out.push_back(d);
  }
  int64_t total = product(in, 0, in.size()), have = product(out, 0, out.size());
  if (infer >= 0) {
    if (have == 0 || total % have != 0) e.refuse(fmt::format("shape {} does not fit {} elements", shape_text(spec), total));
    out[static_cast<size_t>(infer)] = total / have;
  } else if (have != total) {
    e.refuse(fmt::format("shape {} holds {} elements, the input {}", shape_text(out), have, total));
  }
  emit_reshape_copy(e, 0, out);
}

void emit_flatten(Emit& e) {
  e.known_attrs({"axis"});
  const auto& in = e.shape(0);
  int64_t rank = static_cast<int64_t>(in.size());
  int64_t axis = e.attr_int("axis", 1);
  if (axis < -rank || axis > rank) e.refuse(fmt::format("`axis` {} is out of range for rank {}", axis, rank));
  if (axis < 0) axis += rank;
  size_t a = static_cast<size_t>(axis);
  emit_reshape_copy(e, 0, {product(in, 0, a), product(in, a, in.size())});
}

std::vector<int64_t> axes_of(Emit& e, size_t input, int64_t opset_input) {
  if (e.opset() >= opset_input) return e.has(input) ? e.const_ints(input, "the axes") : std::vector<int64_t>{};
  return e.attr_ints("axes");
}

void emit_squeeze(Emit& e) {
  e.known_attrs({"axes"});
  const auto& in = e.shape(0);
  int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> axes = axes_of(e, 1, 13);
  std::vector<bool> drop(in.size(), false);
  if (axes.empty()) {
    for (size_t k = 0; k < in.size(); ++k) drop[k] = in[k] == 1;
  }
  for (int64_t a : axes) {
    size_t k = static_cast<size_t>(normalize_axis(e, a, rank, "axis"));
    if (in[k] != 1) e.refuse(fmt::format("axis {} has size {}, not 1", a, in[k]));
    drop[k] = true;
  }
  std::vector<int64_t> out;
  for (size_t k = 0; k < in.size(); ++k)
    if (!drop[k]) out.push_back(in[k]);
  emit_reshape_copy(e, 0, out);
}

void emit_unsqueeze(Emit& e) {
  e.known_attrs({"axes"});
  const auto& in = e.shape(0);
  std::vector<int64_t> axes = axes_of(e, 1, 13);
  if (axes.empty()) e.refuse("no axes");
  int64_t rank = static_cast<int64_t>(in.size() + axes.size());
  std::vector<bool> ins(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    size_t k = static_cast<size_t>(normalize_axis(e, a, rank, "axis"));
    if (ins[k]) e.refuse(fmt::format("axis {} is given twice", a));
    ins[k] = true;
  }
  std::vector<int64_t> out;
  for (size_t k = 0, j = 0; k < ins.size(); ++k) out.push_back(ins[k] ? 1 : in[j++]);
  emit_reshape_copy(e, 0, out);
}

void emit_transpose(Emit& e) {
  e.known_attrs({"perm"});
  const auto& in = e.shape(0);
  std::vector<int64_t> perm(in.size());
  std::iota(perm.rbegin(), perm.rend(), 0);
  perm = e.attr_ints("perm", perm);
  if (perm.size() != in.size()) e.refuse(fmt::format("`perm` {} does not fit rank {}", shape_text(perm), in.size()));
  std::vector<int64_t> out;
  std::vector<bool> seen(in.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(in.size()) || seen[static_cast<size_t>(p)])
      e.refuse(fmt::format("`perm` {} is not a permutation", shape_text(perm)));
    seen[static_cast<size_t>(p)] = true;
    out.push_back(in[static_cast<size_t>(p)]);
  }
  e.set_out(0, e.dtype(0), out);
  auto v = e.out_vars(0);
  std::vector<std::string> idx(in.size());
  for (size_t k = 0; k < perm.size(); ++k) idx[static_cast<size_t>(perm[k])] = in[static_cast<size_t>(perm[k])] == 1 ? "0" : v[k];
  e.define(0, e.read(0, idx));
}

void emit_concat(Emit& e) {
  e.known_attrs({"axis"});
  if (e.n_in() == 0) e.refuse("no inputs");
  if (e.n_in() > 24) e.refuse(fmt::format("{} inputs", e.n_in()), "at most 24 inputs (ekb's expression depth)");
  const auto& s0 = e.shape(0);
  int64_t rank = static_cast<int64_t>(s0.size());
  if (e.opset() < 4 && !e.has_attr("axis")) e.refuse("no `axis`");
  size_t axis = static_cast<size_t>(normalize_axis(e, e.attr_int("axis", 1), rank, "`axis`"));
  std::vector<int64_t> out = s0;
  out[axis] = 0;
  for (size_t k = 0; k < e.n_in(); ++k) {
    const auto& s = e.shape(k);
    if (e.dtype(k) != e.dtype(0)) e.refuse(fmt::format("input {} is {}, input 0 {}", k, dtype_name(e.dtype(k)), dtype_name(e.dtype(0))));
    for (size_t j = 0; j < s.size(); ++j)
      if (s.size() != s0.size() || (j != axis && s[j] != s0[j]))
        e.refuse(fmt::format("input {} {} does not fit input 0 {} along axis {}", k, shape_text(s), shape_text(s0), axis));
    out[axis] += s[axis];
  }
  e.set_out(0, e.dtype(0), out);
  auto v = e.out_vars(0);
  // select(j < A0, X0[.., j, ..], select(j < A0 + A1, X1[.., j - A0, ..], X2[.., j - A0 - A1, ..]))
  std::string expr;
  int64_t offset = out[axis];
  for (size_t k = e.n_in(); k-- > 0;) {
    offset -= e.shape(k)[axis];
    std::vector<std::string> idx = v;
    idx[axis] = e.shape(k)[axis] == 1 ? "0" : linear({{v[axis], 1}}, -offset);
    std::string x = e.read(k, idx);
    expr = expr.empty() ? x : fmt::format("select({} < {}, {}, {})", v[axis], offset + e.shape(k)[axis], x, expr);
  }
  e.define(0, expr);
}

void emit_split(Emit& e) {
  e.known_attrs({"axis", "split", "num_outputs"});
  const auto& in = e.shape(0);
  int64_t rank = static_cast<int64_t>(in.size());
  size_t axis = static_cast<size_t>(normalize_axis(e, e.attr_int("axis", 0), rank, "`axis`"));
  std::vector<int64_t> parts;
  if (e.opset() >= 13 && e.has(1)) parts = e.const_ints(1, "the split sizes");
  else if (e.opset() < 13 && e.has_attr("split")) parts = e.attr_ints("split");
  else if (e.opset() < 13 && e.has(1)) parts = e.const_ints(1, "the split sizes");  // Split-2 took it as an input too
  size_t n = e.n_out();
  if (parts.empty()) {
    int64_t d = in[axis];
    if (e.has_attr("num_outputs")) n = static_cast<size_t>(e.attr_int("num_outputs", 0));
    if (n == 0) e.refuse("no outputs");
    int64_t each = (d + static_cast<int64_t>(n) - 1) / static_cast<int64_t>(n);
    if (!e.has_attr("num_outputs") && d % static_cast<int64_t>(n) != 0)
      e.refuse(fmt::format("axis {} of size {} does not split into {} equal parts", axis, d, n));
    for (size_t k = 0; k < n; ++k) parts.push_back(std::min(each, d - each * static_cast<int64_t>(k)));
  }
  if (parts.size() != e.n_out()) e.refuse(fmt::format("{} split sizes for {} outputs", parts.size(), e.n_out()));
  if (std::accumulate(parts.begin(), parts.end(), int64_t{0}) != in[axis])
    e.refuse(fmt::format("split sizes {} do not add up to {}", shape_text(parts), in[axis]));
  int64_t offset = 0;
  for (size_t k = 0; k < parts.size(); ++k) {
    std::vector<int64_t> out = in;
    out[axis] = parts[k];
    if (e.has_out(k)) {
      e.set_out(k, e.dtype(0), out);
      auto v = e.out_vars(k);
      std::vector<std::string> idx = v;
      for (size_t j = 0; j < in.size(); ++j)
        if (in[j] == 1) idx[j] = "0";
      idx[axis] = linear({{parts[k] == 1 ? "" : v[axis], 1}}, offset);
      e.define(k, e.read(0, idx));
    }
    offset += parts[k];
  }
}

void emit_slice(Emit& e) {
  if (e.opset() < 10) e.known_attrs({"starts", "ends", "axes"});
  else e.known_attrs({});
  const auto& in = e.shape(0);
  int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> starts, ends, axes, steps;
  if (e.opset() < 10) {
    starts = e.attr_ints("starts");
    ends = e.attr_ints("ends");
    axes = e.attr_ints("axes");
  } else {
    starts = e.const_ints(1, "the starts");
    ends = e.const_ints(2, "the ends");
    if (e.has(3)) axes = e.const_ints(3, "the axes");
    if (e.has(4)) steps = e.const_ints(4, "the steps");
  }
  if (axes.empty()) {
    axes.resize(starts.size());
    std::iota(axes.begin(), axes.end(), 0);
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    e.refuse("starts, ends, axes and steps differ in length");
  std::vector<int64_t> out = in, first(in.size(), 0), step(in.size(), 1);
  std::vector<bool> seen(in.size(), false);
  for (size_t k = 0; k < starts.size(); ++k) {
    size_t a = static_cast<size_t>(normalize_axis(e, axes[k], rank, "axis"));
    if (seen[a]) e.refuse(fmt::format("axis {} is sliced twice", axes[k]));
    seen[a] = true;
    int64_t d = in[a], s = steps[k];
    if (s == 0) e.refuse("a step of 0");
    auto fix = [&](int64_t x, int64_t lo, int64_t hi) { return std::clamp(x < 0 ? x + d : x, lo, hi); };
    int64_t b = s > 0 ? fix(starts[k], 0, d) : fix(starts[k], 0, d - 1);
    int64_t en = s > 0 ? fix(ends[k], 0, d) : fix(ends[k], -1, d - 1);
    int64_t len = s > 0 ? (en - b + s - 1) / s : (b - en + (-s) - 1) / (-s);
    if (len <= 0) e.refuse(fmt::format("the slice of axis {} is empty", axes[k]), "non-empty slices");
    out[a] = len;
    first[a] = b;
    step[a] = s;
  }
  e.set_out(0, e.dtype(0), out);
  auto v = e.out_vars(0);
  std::vector<std::string> idx;
  for (size_t j = 0; j < in.size(); ++j) idx.push_back(out[j] == 1 ? std::to_string(first[j]) : linear({{v[j], step[j]}}, first[j]));
  e.define(0, e.read(0, idx));
}

void emit_pad(Emit& e) {
  e.known_attrs({"mode", "pads", "value", "paddings"});
  const auto& in = e.shape(0);
  size_t rank = in.size();
  std::string mode = e.attr_string("mode", "constant");
  std::vector<int64_t> pads;
  std::string fill = literal(0, e.dtype(0));
  if (e.opset() < 11) {
    pads = e.attr_ints(e.has_attr("paddings") ? "paddings" : "pads");
    fill = literal(e.attr_float("value", 0.0), e.dtype(0));
  } else {
    pads = e.const_ints(1, "the pads");
    if (e.has(2)) {
      if (e.in(2).elements() != 1) e.refuse("constant_value is not a scalar");
      fill = e.read(2, std::vector<std::string>(e.rank(2), "0"));
    }
    if (e.has(3)) {
      // Pad-18's axes: the pads cover only these axes.
      std::vector<int64_t> axes = e.const_ints(3, "the axes");
      std::vector<int64_t> full(2 * rank, 0);
      if (pads.size() != 2 * axes.size()) e.refuse("pads do not match the axes");
      for (size_t k = 0; k < axes.size(); ++k) {
        size_t a = static_cast<size_t>(normalize_axis(e, axes[k], static_cast<int64_t>(rank), "axis"));
        full[a] = pads[k];
        full[a + rank] = pads[k + axes.size()];
      }
      pads = full;
    }
  }
  if (pads.size() != 2 * rank) e.refuse(fmt::format("pads {} do not have {} entries", shape_text(pads), 2 * rank));
  if (mode != "constant" && mode != "edge" && mode != "reflect") e.refuse(fmt::format("`mode` = '{}'", mode), "constant, edge, reflect");
  std::vector<int64_t> out(rank);
  for (size_t j = 0; j < rank; ++j) {
    out[j] = in[j] + pads[j] + pads[j + rank];
    if (mode != "constant" && (pads[j] < 0 || pads[j + rank] < 0)) e.refuse("negative pads in edge or reflect mode");
    if (mode == "reflect" && (pads[j] > in[j] - 1 || pads[j + rank] > in[j] - 1))
      e.refuse(fmt::format("reflect pads {} larger than the axis {} of size {} minus one", shape_text(pads), j, in[j]));
  }
  e.set_out(0, e.dtype(0), out);
  auto v = e.out_vars(0);
  std::vector<std::string> idx, conds;
  for (size_t j = 0; j < rank; ++j) {
    int64_t pb = pads[j], d = in[j];
    std::string t = d == 1 && mode != "constant" ? "0" : linear({{v[j], 1}}, -pb);
    if (mode == "constant") {
      if (pb > 0) conds.push_back(fmt::format("{} >= {}", v[j], pb));
      if (out[j] - 1 - pb > d - 1) conds.push_back(fmt::format("{} < {}", v[j], d + pb));
      idx.push_back(d == 1 && conds.empty() ? "0" : t);
    } else if (mode == "edge") {
      idx.push_back(d == 1 ? "0" : fmt::format("clamp({}, 0, {})", t, d - 1));
    } else {
      idx.push_back(fmt::format("select({v} < {pb}, {pb} - {v}, select({v} > {hi}, {r} - {v}, {t}))", fmt::arg("v", v[j]),
                                fmt::arg("pb", pb), fmt::arg("hi", d - 1 + pb), fmt::arg("r", 2 * (d - 1) + pb),
                                fmt::arg("t", t)));
    }
  }
  std::string x = e.read(0, idx);
  e.define(0, conds.empty() ? x : "select(" + join(conds, " && ") + ", " + x + ", " + fill + ")");
}

void emit_expand(Emit& e) {
  e.known_attrs({});
  std::vector<int64_t> shape = broadcast_shape(e, e.shape(0), e.const_ints(1, "the shape"));
  e.set_category("broadcast");
  e.set_out(0, e.dtype(0), shape);
  e.define(0, e.read_bcast(0, e.out_vars(0), shape));
}

void emit_tile(Emit& e) {
  e.known_attrs({});
  const auto& in = e.shape(0);
  std::vector<int64_t> reps = e.const_ints(1, "the repeats");
  if (reps.size() != in.size()) e.refuse(fmt::format("{} repeats for rank {}", reps.size(), in.size()));
  std::vector<int64_t> out;
  for (size_t j = 0; j < in.size(); ++j) {
    if (reps[j] < 1) e.refuse(fmt::format("repeat {}", reps[j]), "repeats of at least 1");
    out.push_back(in[j] * reps[j]);
  }
  e.set_out(0, e.dtype(0), out);
  auto v = e.out_vars(0);
  std::vector<std::string> idx;
  for (size_t j = 0; j < in.size(); ++j)
    idx.push_back(in[j] == 1 ? "0" : reps[j] == 1 ? v[j] : fmt::format("{} % {}", v[j], in[j]));
  e.define(0, e.read(0, idx));
}

// Gather with indices known at import: when they step evenly (a scalar index, `x[:, 2]`, an unbind,
// a strided pick) the read is affine in the output's indices; otherwise it reads through the index
// tensor, which must then hold no negative index. Indices computed at run time (an embedding lookup
// of token ids) are refused.
void emit_gather(Emit& e) {
  e.known_attrs({"axis"});
  const auto& xs = e.shape(0);
  int64_t rank = static_cast<int64_t>(xs.size());
  size_t axis = static_cast<size_t>(normalize_axis(e, e.attr_int("axis", 0), rank, "`axis`"));
  std::vector<int64_t> idx = e.const_ints(1, "the indices");
  const auto& is = e.shape(1);
  int64_t d = xs[axis];
  for (auto& q : idx) {
    if (q < -d || q >= d) e.refuse(fmt::format("index {} is out of range for axis {} of size {}", q, axis, d));
    if (q < 0) q += d;
  }
  bool even = true, negative = false;
  int64_t step = idx.size() > 1 ? idx[1] - idx[0] : 0;
  for (size_t k = 1; k < idx.size(); ++k) even = even && idx[k] - idx[k - 1] == step;
  const std::vector<int64_t> given = e.const_ints(1, "the indices");
  for (int64_t q : given) negative = negative || q < 0;
  if (!even && negative)
    e.refuse(fmt::format("indices {} hold negative values and do not step evenly", shape_text(given)),
             "indices known at import: non-negative, or stepping evenly");
  std::vector<int64_t> out(xs.begin(), xs.begin() + static_cast<int64_t>(axis));
  out.insert(out.end(), is.begin(), is.end());
  out.insert(out.end(), xs.begin() + static_cast<int64_t>(axis) + 1, xs.end());
  e.set_out(0, e.dtype(0), out);
  auto v = e.out_vars(0);
  std::string at_axis;
  if (even) {
    // Affine in the output's indices: no index tensor to read.
    std::vector<std::pair<std::string, int64_t>> terms;
    int64_t stride = step;
    for (size_t j = is.size(); j-- > 0;) {
      if (is[j] != 1) terms.insert(terms.begin(), {v[axis + j], stride});
      stride *= is[j];
    }
    at_axis = linear(terms, idx.empty() ? 0 : idx[0]);
  } else {
    // Read through the index tensor (an input whose declared range, its own min..max, bounds it).
    std::vector<std::string> ii;
    for (size_t j = 0; j < is.size(); ++j) ii.push_back(is[j] == 1 ? "0" : v[axis + j]);
    at_axis = e.read(1, ii);
  }
  std::vector<std::string> read;
  for (size_t j = 0; j < axis; ++j) read.push_back(xs[j] == 1 ? "0" : v[j]);
  read.push_back(at_axis);
  for (size_t j = axis + 1; j < xs.size(); ++j) read.push_back(xs[j] == 1 ? "0" : v[j - 1 + is.size()]);
  e.define(0, e.read(0, read));
}

OpSpec view(const char* op, void (*fn)(Emit&), std::vector<const char*> ins, const char* opsets) {
  return {op, fn, "data_movement", std::move(ins), {"Y"}, false, false, OpKind::view, opsets};
}

}  // namespace

void register_layout_ops(OpTable& t) {
  t.push_back(view("Reshape", emit_reshape, {"X", "shape"}, "1-21"));
  t.push_back(view("Flatten", emit_flatten, {"X"}, "1-21"));
  t.push_back(view("Squeeze", emit_squeeze, {"X", "axes"}, "1-21"));
  t.push_back(view("Unsqueeze", emit_unsqueeze, {"X", "axes"}, "1-21"));
  t.push_back({"Transpose", emit_transpose, "data_movement", {"X"}, {"Y"}, false, false, OpKind::compute, "1-21"});
  t.push_back({"Concat", emit_concat, "data_movement", {"X"}, {"Y"}, true, false, OpKind::compute, "1-13"});
  t.push_back({"Split", emit_split, "data_movement", {"X", "split"}, {"Y"}, false, true, OpKind::compute, "1-18"});
  t.push_back({"Slice", emit_slice, "data_movement", {"X", "starts", "ends", "axes", "steps"}, {"Y"}, false, false,
               OpKind::compute, "1-13"});
  t.push_back({"Pad", emit_pad, "data_movement", {"X", "pads", "value", "axes"}, {"Y"}, false, false, OpKind::compute,
               "1-18"});
  t.push_back({"Gather", emit_gather, "data_movement", {"X", "indices"}, {"Y"}, false, false, OpKind::compute, "1-13"});
  t.push_back({"Expand", emit_expand, "broadcast", {"X", "shape"}, {"Y"}, false, false, OpKind::compute, "8-13"});
  t.push_back({"Tile", emit_tile, "data_movement", {"X", "repeats"}, {"Y"}, false, false, OpKind::compute, "6-13"});
}

}  // namespace ekb::onnx_io
