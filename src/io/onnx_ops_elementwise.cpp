// Element-wise operators: arithmetic with numpy broadcasting (and the opset 1-6 `broadcast`/`axis`
// form), the activations of edge models (Relu, Clip, Sigmoid, Tanh, HardSigmoid, HardSwish, Gelu,
// Erf, LeakyRelu, Elu, Selu, PRelu, Softplus, Softsign), unary math, Cast, Where, and the copies
// Identity and Dropout (inference). Formulations follow tests/onnx/cases (checked against ONNX's
// node tests).
#include <fmt/format.h>

#include <cmath>

#include "io/onnx_emit.h"

namespace ekb::onnx_io {
namespace {

void same_types(Emit& e, size_t n) {
  for (size_t k = 1; k < n; ++k)
    if (e.has(k) && e.dtype(k) != e.dtype(0))
      e.refuse(fmt::format("inputs 0 and {} differ in type ({} and {})", k, dtype_name(e.dtype(0)), dtype_name(e.dtype(k))),
               "inputs of one type");
}

// Reads of A and B at each point of the output, for a binary operator (numpy broadcasting, or the
// opset 1-6 rule: B's shape is a run of A's dims starting at `axis`, or A's trailing dims).
struct BinaryReads {
  std::vector<int64_t> shape;
  std::string a, b;
  std::vector<std::string> vars;
};

BinaryReads binary_reads(Emit& e, bool legacy_broadcast_attrs) {
  BinaryReads r;
  const auto& sa = e.shape(0);
  const auto& sb = e.shape(1);
  if (legacy_broadcast_attrs && e.opset() < 7) {
    int64_t bc = e.attr_int("broadcast", 0);
    r.shape = sa;
    r.vars = index_vars("i", sa.size());
    r.a = e.read(0, r.vars);
    if (!bc || sa == sb) {
      if (sa != sb)
        e.refuse(fmt::format("shapes {} and {} differ and `broadcast` is not set (opset {})", shape_text(sa), shape_text(sb),
                             e.opset()));
      r.b = e.read(1, r.vars);
      return r;
    }
    int64_t axis = e.has_attr("axis") ? e.attr_int("axis", 0) : static_cast<int64_t>(sa.size() - sb.size());
    if (axis < 0) axis += static_cast<int64_t>(sa.size());
    if (axis < 0 || axis + static_cast<int64_t>(sb.size()) > static_cast<int64_t>(sa.size()))
      e.refuse(fmt::format("`axis` {} does not place B {} inside A {}", axis, shape_text(sb), shape_text(sa)));
    std::vector<std::string> idx;
    for (size_t j = 0; j < sb.size(); ++j) {
      int64_t d = sa[static_cast<size_t>(axis) + j];
      if (sb[j] == 1) idx.push_back("0");
      else if (sb[j] == d) idx.push_back(r.vars[static_cast<size_t>(axis) + j]);
      else e.refuse(fmt::format("B {} does not match A {} at axis {}", shape_text(sb), shape_text(sa), axis));
    }
    r.b = e.read(1, idx);
    return r;
  }
  r.shape = broadcast_shape(e, sa, sb);
  r.vars = index_vars("i", r.shape.size());
  r.a = e.read_bcast(0, r.vars, r.shape);
  r.b = e.read_bcast(1, r.vars, r.shape);
  return r;
}

void emit_binary(Emit& e, const std::string& op) {
  bool legacy = op == "Add" || op == "Sub" || op == "Mul" || op == "Div";
  if (legacy && e.opset() < 7) e.known_attrs({"broadcast", "axis", "consumed_inputs"});
  else e.known_attrs({});
  same_types(e, 2);
  DType t = e.dtype(0);
  if (t == DType::boolean) e.refuse("bool inputs", "numbers");
  BinaryReads r = binary_reads(e, legacy);
  if (e.shape(0) != e.shape(1)) e.set_category("broadcast");
  e.set_out(0, t, r.shape);
  std::string expr;
  if (op == "Add") expr = r.a + " + " + r.b;
  else if (op == "Sub") expr = r.a + " - " + r.b;
  else if (op == "Mul") expr = r.a + " * " + r.b;
  else if (op == "Div") {
    if (is_float(t) || !is_signed_int(t)) {
      expr = r.a + " / " + r.b;
    } else {
      // ONNX's integer Div truncates toward zero; ekb's `/` floors: they differ when the quotient is
      // negative and inexact.
      std::string q = "(" + r.a + " / " + r.b + ")";
      expr = fmt::format("select({q} < 0 && {q} * {b} != {a}, {q} + 1, {q})", fmt::arg("q", q), fmt::arg("a", r.a),
                         fmt::arg("b", r.b));
    }
  } else if (op == "Pow") {
    if (!is_float(t)) e.refuse(fmt::format("an integer base ({})", dtype_name(t)), "float bases");
    expr = "pow(" + r.a + ", " + r.b + ")";
  }
  e.define(0, expr);
}

void emit_pow(Emit& e) {
  e.known_attrs({});
  e.require_float(0);
  DType t = e.dtype(0);
  auto shape = broadcast_shape(e, e.shape(0), e.shape(1));
  auto vars = index_vars("i", shape.size());
  std::string a = e.read_bcast(0, vars, shape), b = e.read_bcast(1, vars, shape);
  if (e.dtype(1) == DType::boolean) e.refuse("a bool exponent");
  if (!is_float(e.dtype(1))) b = std::string(dtype_name(t)) + "(" + b + ")";
  if (e.shape(0) != e.shape(1)) e.set_category("broadcast");
  e.set_out(0, t, shape);
  e.define(0, "pow(" + a + ", " + b + ")");
}

// Max, Min, Sum, Mean: any number of inputs, broadcast together.
void emit_variadic(Emit& e, const std::string& op) {
  e.known_attrs(e.opset() < 6 ? std::initializer_list<const char*>{"consumed_inputs"} : std::initializer_list<const char*>{});
  if (e.n_in() == 0) e.refuse("no inputs");
  same_types(e, e.n_in());
  DType t = e.dtype(0);
  if (t == DType::boolean) e.refuse("bool inputs", "numbers");
  if (op == "Mean" && !is_float(t)) e.refuse("integer inputs", "float inputs");
  std::vector<int64_t> shape = e.shape(0);
  for (size_t k = 1; k < e.n_in(); ++k) {
    if (e.shape(k) != e.shape(0)) e.set_category("broadcast");
    shape = broadcast_shape(e, shape, e.shape(k));
  }
  auto vars = index_vars("i", shape.size());
  std::string expr = e.read_bcast(0, vars, shape);
  for (size_t k = 1; k < e.n_in(); ++k) {
    std::string x = e.read_bcast(k, vars, shape);
    if (op == "Max") expr = "max(" + expr + ", " + x + ")";
    else if (op == "Min") expr = "min(" + expr + ", " + x + ")";
    else expr = expr + " + " + x;
  }
  if (op == "Mean" && e.n_in() > 1) expr = "(" + expr + ") / " + literal(static_cast<double>(e.n_in()), t);
  e.set_out(0, t, shape);
  e.define(0, expr);
}

// A unary operator `f(x)` written with `{x}` for the input read at the output's point.
void emit_unary(Emit& e, const std::string& pattern, bool floats_only, bool ints_ok = true) {
  DType t = e.dtype(0);
  if (floats_only) e.require_float(0);
  if (!ints_ok && !is_float(t)) e.require_float(0);
  if (t == DType::boolean) e.refuse("a bool input", "numbers");
  e.set_out(0, t, e.shape(0));
  std::string x = e.read(0, e.out_vars(0));
  e.define(0, fmt::format(fmt::runtime(pattern), fmt::arg("x", x)));
}

std::string flit(Emit& e, double v) { return literal(v, e.dtype(0)); }

void emit_relu(Emit& e) {
  e.known_attrs(e.opset() < 6 ? std::initializer_list<const char*>{"consumed_inputs"} : std::initializer_list<const char*>{});
  emit_unary(e, is_float(e.dtype(0)) ? "max({x}, 0.0)" : "max({x}, 0)", false);
}

void emit_clip(Emit& e) {
  DType t = e.dtype(0);
  if (t == DType::boolean) e.refuse("a bool input", "numbers");
  e.set_out(0, t, e.shape(0));
  auto vars = e.out_vars(0);
  std::string x = e.read(0, vars);
  std::string lo, hi;
  if (e.opset() < 11) {
    e.known_attrs({"min", "max", "consumed_inputs"});
    if (e.has_attr("min")) lo = literal(e.attr_float("min", 0), t);
    if (e.has_attr("max")) hi = literal(e.attr_float("max", 0), t);
  } else {
    e.known_attrs({});
    auto bound = [&](size_t k) -> std::string {
      if (!e.has(k)) return "";
      if (e.in(k).elements() != 1)
        e.refuse(fmt::format("input {} (`{}`) has shape {}, Clip's bounds are scalars", k, e.in(k).name, shape_text(e.shape(k))));
      if (e.dtype(k) != t) e.refuse(fmt::format("input {} is {}, the data {}", k, dtype_name(e.dtype(k)), dtype_name(t)));
      return e.read(k, std::vector<std::string>(e.shape(k).size(), "0"));
    };
    lo = bound(1);
    hi = bound(2);
  }
  std::string expr = x;
  if (!lo.empty() && !hi.empty()) expr = "clamp(" + x + ", " + lo + ", " + hi + ")";
  else if (!lo.empty()) expr = "max(" + x + ", " + lo + ")";
  else if (!hi.empty()) expr = "min(" + x + ", " + hi + ")";
  e.define(0, expr);
}

void emit_hardsigmoid(Emit& e) {
  e.known_attrs({"alpha", "beta", "consumed_inputs"});
  double alpha = e.attr_float("alpha", 0.2), beta = e.attr_float("beta", 0.5);
  emit_unary(e, "clamp(" + flit(e, alpha) + " * {x} + " + flit(e, beta) + ", 0.0, 1.0)", true);
}

void emit_gelu(Emit& e) {
  e.known_attrs({"approximate"});
  std::string approx = e.attr_string("approximate", "none");
  if (approx == "none") {
    emit_unary(e, "0.5 * {x} * (1.0 + erf({x} * 0.7071067811865476))", true);
  } else if (approx == "tanh") {
    emit_unary(e, "0.5 * {x} * (1.0 + tanh(0.7978845608028654 * ({x} + 0.044715 * {x} * {x} * {x})))", true);
  } else {
    e.refuse(fmt::format("attribute `approximate` = '{}'", approx), "'none', 'tanh'");
  }
}

void emit_leakyrelu(Emit& e) {
  e.known_attrs({"alpha", "consumed_inputs"});
  emit_unary(e, "select({x} < 0.0, " + flit(e, e.attr_float("alpha", 0.01)) + " * {x}, {x})", true);
}

void emit_elu(Emit& e) {
  e.known_attrs({"alpha", "consumed_inputs"});
  emit_unary(e, "select({x} > 0.0, {x}, " + flit(e, e.attr_float("alpha", 1.0)) + " * (exp({x}) - 1.0))", true);
}

void emit_selu(Emit& e) {
  e.known_attrs({"alpha", "gamma", "consumed_inputs"});
  double alpha = e.attr_float("alpha", 1.67326319217681884765625), gamma = e.attr_float("gamma", 1.05070102214813232421875);
  emit_unary(e, flit(e, gamma) + " * select({x} > 0.0, {x}, " + flit(e, alpha) + " * (exp({x}) - 1.0))", true);
}

void emit_prelu(Emit& e) {
  e.known_attrs(e.opset() < 6 ? std::initializer_list<const char*>{"consumed_inputs"} : std::initializer_list<const char*>{});
  e.require_float(0);
  same_types(e, 2);
  // The slope broadcasts to X (unidirectionally); before opset 7 a 1-D slope runs along dim 1.
  std::vector<int64_t> s = e.shape(1);
  const auto& x = e.shape(0);
  auto vars = index_vars("i", x.size());
  std::string slope;
  if (e.opset() < 7 && s.size() == 1 && x.size() >= 2 && s[0] == x[1] && s[0] != x.back()) {
    slope = e.read(1, {vars[1]});
  } else {
    if (broadcast_shape(e, x, s) != x) e.refuse(fmt::format("slope {} does not broadcast to X {}", shape_text(s), shape_text(x)));
    slope = e.read_bcast(1, vars, x);
  }
  e.set_category("broadcast");
  e.set_out(0, e.dtype(0), x);
  std::string xv = e.read(0, vars);
  e.define(0, fmt::format("select({x} < 0.0, {s} * {x}, {x})", fmt::arg("x", xv), fmt::arg("s", slope)));
}

void emit_cast(Emit& e) {
  e.known_attrs({"to", "saturate"});
  int64_t to = e.attr_int("to", 0);
  auto t = dtype_of_elem(static_cast<int>(to));
  if (!t) e.refuse(fmt::format("`to` = {}", elem_type_name(static_cast<int>(to))), "float, double, float16, bfloat16, int8-64, uint8, bool");
  e.set_out(0, *t, e.shape(0));
  std::string x = e.read(0, e.out_vars(0));
  e.define(0, *t == e.dtype(0) ? x : std::string(dtype_name(*t)) + "(" + x + ")");
}

void emit_where(Emit& e) {
  e.known_attrs({});
  if (e.dtype(0) != DType::boolean) e.refuse("the condition is not bool");
  if (e.dtype(1) != e.dtype(2)) e.refuse("X and Y differ in type");
  auto shape = broadcast_shape(e, broadcast_shape(e, e.shape(0), e.shape(1)), e.shape(2));
  auto vars = index_vars("i", shape.size());
  e.set_category("broadcast");
  e.set_out(0, e.dtype(1), shape);
  std::string c = e.read_bcast(0, vars, shape), a = e.read_bcast(1, vars, shape), b = e.read_bcast(2, vars, shape);
  e.define(0, "select(" + c + ", " + a + ", " + b + ")");
}

void emit_copy(Emit& e) {
  e.set_out(0, e.dtype(0), e.shape(0));
  e.define(0, e.read(0, e.out_vars(0)));
}

void emit_dropout(Emit& e) {
  // Inference: the identity. Opset 12+ takes `ratio` and `training_mode` as inputs.
  e.known_attrs({"ratio", "is_test", "seed", "consumed_inputs"});
  if (e.has_attr("is_test") && e.attr_int("is_test", 1) == 0) e.refuse("`is_test` = 0 (training)", "inference");
  if (e.has(2)) {
    const TensorData& tm = e.constant(2, "training_mode");
    if (tm.size() != 1 || tm.value(0) != 0) e.refuse("`training_mode` is true", "inference (training_mode false)");
  }
  if (e.has_out(1)) e.refuse("the `mask` output is used", "Dropout's output alone (inference)");
  emit_copy(e);
}

OpSpec unary(const char* op, std::string pattern, bool floats_only, const char* opsets) {
  return {op,
          [pattern, floats_only](Emit& e) {
            e.known_attrs(e.opset() < 6 ? std::initializer_list<const char*>{"consumed_inputs"}
                                        : std::initializer_list<const char*>{});
            emit_unary(e, pattern, floats_only);
          },
          "elementwise", {"X"}, {"Y"}, false, false, OpKind::compute, opsets};
}

OpSpec binary(const char* op) {
  return {op, [op = std::string(op)](Emit& e) { emit_binary(e, op); }, "elementwise", {"A", "B"}, {"C"}, false, false,
          OpKind::compute, "1-14"};
}

OpSpec variadic(const char* op) {
  return {op, [op = std::string(op)](Emit& e) { emit_variadic(e, op); }, "elementwise", {"X"}, {"Y"}, true, false,
          OpKind::compute, "1-13"};
}

}  // namespace

void register_elementwise_ops(OpTable& t) {
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) t.push_back(binary(op));
  t.push_back({"Pow", emit_pow, "elementwise", {"X", "Y"}, {"Z"}, false, false, OpKind::compute, "7-15"});
  for (const char* op : {"Max", "Min", "Sum", "Mean"}) t.push_back(variadic(op));
  t.push_back({"Relu", emit_relu, "elementwise", {"X"}, {"Y"}, false, false, OpKind::compute, "1-14"});
  t.push_back({"Clip", emit_clip, "elementwise", {"X", "lo", "hi"}, {"Y"}, false, false, OpKind::compute, "1-13"});
  t.push_back(unary("Sigmoid", "sigmoid({x})", true, "1-13"));
  t.push_back(unary("Tanh", "tanh({x})", true, "1-13"));
  t.push_back(unary("Erf", "erf({x})", true, "9-13"));
  t.push_back(unary("Exp", "exp({x})", true, "1-13"));
  t.push_back(unary("Log", "log({x})", true, "1-13"));
  t.push_back(unary("Sqrt", "sqrt({x})", true, "1-13"));
  t.push_back(unary("Reciprocal", "1.0 / {x}", true, "1-13"));
  t.push_back(unary("Abs", "abs({x})", false, "1-13"));
  t.push_back(unary("Neg", "-{x}", false, "1-13"));
  t.push_back(unary("Floor", "floor({x})", true, "1-13"));
  t.push_back(unary("Ceil", "ceil({x})", true, "1-13"));
  t.push_back(unary("Round", "round({x})", true, "11-22"));
  t.push_back(unary("Sin", "sin({x})", true, "7-22"));
  t.push_back(unary("Cos", "cos({x})", true, "7-22"));
  t.push_back(unary("Softplus", "log(exp({x}) + 1.0)", true, "1-22"));
  t.push_back(unary("Softsign", "{x} / (1.0 + abs({x}))", true, "1-22"));
  t.push_back({"HardSigmoid", emit_hardsigmoid, "elementwise", {"X"}, {"Y"}, false, false, OpKind::compute, "1-22"});
  t.push_back({"HardSwish",
               [](Emit& e) {
                 e.known_attrs({});
                 emit_unary(e, "{x} * clamp({x} / 6.0 + 0.5, 0.0, 1.0)", true);
               },
               "elementwise", {"X"}, {"Y"}, false, false, OpKind::compute, "14-22"});
  t.push_back({"Gelu", emit_gelu, "elementwise", {"X"}, {"Y"}, false, false, OpKind::compute, "20"});
  t.push_back({"LeakyRelu", emit_leakyrelu, "elementwise", {"X"}, {"Y"}, false, false, OpKind::compute, "1-16"});
  t.push_back({"Elu", emit_elu, "elementwise", {"X"}, {"Y"}, false, false, OpKind::compute, "1-22"});
  t.push_back({"Selu", emit_selu, "elementwise", {"X"}, {"Y"}, false, false, OpKind::compute, "1-22"});
  t.push_back({"PRelu", emit_prelu, "broadcast", {"X", "slope"}, {"Y"}, false, false, OpKind::compute, "1-16"});
  t.push_back({"Cast", emit_cast, "elementwise", {"X"}, {"Y"}, false, false, OpKind::compute, "1-19"});
  t.push_back({"Where", emit_where, "broadcast", {"C", "X", "Y"}, {"Z"}, false, false, OpKind::compute, "9-16"});
  t.push_back({"Identity",
               [](Emit& e) {
                 e.known_attrs({});
                 emit_copy(e);
               },
               "data_movement", {"X"}, {"Y"}, false, false, OpKind::view, "1-21"});
  t.push_back({"Dropout", emit_dropout, "data_movement", {"X", "ratio", "training_mode"}, {"Y", "mask"}, false, false,
               OpKind::view, "1-22"});
}

}  // namespace ekb::onnx_io
