// Matrix products: Gemm (transA, transB, alpha, beta, a bias C broadcast to [M, N]; opset 1-6's
// `broadcast` flag) and MatMul (numpy's matmul: 1-D operands promoted and dropped again, batch
// dimensions broadcast).
#include <fmt/format.h>

#include "io/onnx_emit.h"

namespace ekb::onnx_io {
namespace {

void emit_gemm(Emit& e) {
  e.known_attrs({"alpha", "beta", "transA", "transB", "broadcast"});
  e.require_float(0);
  if (e.dtype(1) != e.dtype(0) || (e.has(2) && e.dtype(2) != e.dtype(0))) e.refuse("A, B and C differ in type");
  if (e.rank(0) != 2 || e.rank(1) != 2)
    e.refuse(fmt::format("A {} and B {} are not matrices", shape_text(e.shape(0)), shape_text(e.shape(1))));
  bool ta = e.attr_int("transA", 0) != 0, tb = e.attr_int("transB", 0) != 0;
  double alpha = e.attr_float("alpha", 1.0), beta = e.attr_float("beta", 1.0);
  int64_t m = ta ? e.shape(0)[1] : e.shape(0)[0], k = ta ? e.shape(0)[0] : e.shape(0)[1];
  int64_t kb = tb ? e.shape(1)[1] : e.shape(1)[0], n = tb ? e.shape(1)[0] : e.shape(1)[1];
  if (k != kb) e.refuse(fmt::format("A {} and B {} do not multiply (transA {}, transB {})", shape_text(e.shape(0)),
                                    shape_text(e.shape(1)), ta, tb));
  std::vector<int64_t> shape = {m, n};
  if (e.has(2) && broadcast_shape(e, shape, e.shape(2)) != shape)
    e.refuse(fmt::format("C {} does not broadcast to [{}, {}]", shape_text(e.shape(2)), m, n));
  e.set_out(0, e.dtype(0), shape);
  auto v = e.out_vars(0);
  std::string a = ta ? e.read(0, {"r0", v[0]}) : e.read(0, {v[0], "r0"});
  std::string b = tb ? e.read(1, {v[1], "r0"}) : e.read(1, {"r0", v[1]});
  std::string expr = fmt::format("(sum(r0 < {}) {} * {})", k, a, b);
  if (alpha != 1.0) expr = literal(alpha, e.dtype(0)) + " * " + expr;
  if (e.has(2) && beta != 0.0) {
    std::string c = e.read_bcast(2, v, shape);
    expr += " + " + (beta == 1.0 ? c : literal(beta, e.dtype(0)) + " * " + c);
  }
  e.define(0, expr);
}

void emit_matmul(Emit& e) {
  e.known_attrs({});
  if (e.dtype(1) != e.dtype(0)) e.refuse("A and B differ in type");
  DType t = e.dtype(0);
  if (!is_float(t) && t != DType::i32 && t != DType::i64) e.refuse(fmt::format("{} operands", dtype_name(t)), "float, int32, int64");
  const auto& sa = e.shape(0);
  const auto& sb = e.shape(1);
  if (sa.empty() || sb.empty()) e.refuse("a scalar operand");
  int64_t ka = sa.back(), kb = sb.size() == 1 ? sb[0] : sb[sb.size() - 2];
  if (ka != kb) e.refuse(fmt::format("A {} and B {} do not multiply", shape_text(sa), shape_text(sb)));
  std::vector<int64_t> ba(sa.begin(), sa.size() >= 2 ? sa.end() - 2 : sa.begin());
  std::vector<int64_t> bb(sb.begin(), sb.size() >= 2 ? sb.end() - 2 : sb.begin());
  std::vector<int64_t> batch = broadcast_shape(e, ba, bb);
  std::vector<int64_t> shape = batch;
  if (sa.size() >= 2) shape.push_back(sa[sa.size() - 2]);
  if (sb.size() >= 2) shape.push_back(sb.back());
  e.set_out(0, t, shape);
  auto v = e.out_vars(0);
  size_t nb = batch.size();
  auto batch_idx = [&](const std::vector<int64_t>& own) {
    std::vector<std::string> idx;
    for (size_t j = 0; j < own.size(); ++j) idx.push_back(own[j] == 1 ? "0" : v[nb - own.size() + j]);
    return idx;
  };
  std::vector<std::string> ai = batch_idx(ba), bi = batch_idx(bb);
  if (sa.size() >= 2) ai.push_back(v[nb]);
  ai.push_back("r0");
  bi.push_back("r0");
  if (sb.size() >= 2) bi.push_back(v.back());
  if (e.rank(0) != e.rank(1) || ba != bb) e.set_category("gemm");
  e.define(0, fmt::format("sum(r0 < {}) {} * {}", ka, e.read(0, ai), e.read(1, bi)));
}

}  // namespace

void register_gemm_ops(OpTable& t) {
  t.push_back({"Gemm", emit_gemm, "gemm", {"A", "B", "C"}, {"Y"}, false, false, OpKind::compute, "1-13"});
  t.push_back({"MatMul", emit_matmul, "gemm", {"A", "B"}, {"Y"}, false, false, OpKind::compute, "1-13"});
}

}  // namespace ekb::onnx_io
