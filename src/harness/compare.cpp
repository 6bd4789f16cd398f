// The comparison rule (see compare.h).
#include "harness/compare.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

namespace ekb {

double tolerance_for(DType t) {
  switch (t) {
    case DType::f64: return 1e-9;
    case DType::f32: return 1e-4;
    case DType::f16: return 1e-2;
    case DType::bf16: return 3e-2;
    default: return 0;
  }
}

namespace {
// A stage's own terms: the extents of its sums and products, multiplied where they nest and the
// largest of those side by side (two sums added together round separately); max and min round
// nothing.
double own_terms(const StageInfo& s, const Expr& e) {
  double inner = 1;
  for (const auto& a : e.args) inner = std::max(inner, own_terms(s, *a));
  if (e.kind != ExprKind::reduce || (e.redop != ReduceOp::sum && e.redop != ReduceOp::prod)) return inner;
  for (int id : e.rvar_ids)
    if (id >= 0 && id < static_cast<int>(s.vars.size())) inner *= static_cast<double>(std::max<int64_t>(s.vars[id].extent, 1));
  return inner;
}

// The tensors an expression reads, each with whether some read sits inside a sum or product.
void tensors_read(const Expr& e, bool in_sum, std::map<int, bool>& out) {
  if (e.kind == ExprKind::access && e.id >= 0) out[e.id] = out[e.id] || in_sum;
  bool sum = in_sum || (e.kind == ExprKind::reduce && (e.redop == ReduceOp::sum || e.redop == ReduceOp::prod));
  for (const auto& a : e.args) tensors_read(*a, sum, out);
}

bool is_plain_sum(const StageInfo& s) {
  return s.body && s.body->kind == ExprKind::reduce && (s.body->redop == ReduceOp::sum || s.body->redop == ReduceOp::prod);
}

double terms_of(const Program& p, int tensor, std::map<int, double>& memo) {
  auto it = memo.find(tensor);
  if (it != memo.end()) return it->second;
  memo[tensor] = 1;  // (a recurrence reads itself: its steps are counted below)
  double terms = 1;
  for (const auto& s : p.stages) {
    if (s.tensor != tensor || !s.body) continue;
    double own = own_terms(s, *s.body);
    // A recurrence's steps each add their own error to the state the next step reads.
    if (s.is_scan()) own *= static_cast<double>(std::max<int64_t>(s.vars[s.scan_var].extent, 1));
    double step = own;
    std::map<int, bool> reads;
    tensors_read(*s.body, false, reads);
    for (const auto& [t, in_sum] : reads) {
      if (t == tensor) continue;
      double below = terms_of(p, t, memo);
      // A sum over the results of another sum is one longer sum (an implementation may run it as
      // one); through anything else (an activation, a bias, a division, a recurrence reading
      // another one's values) their errors add.
      int producer = p.tensors[t].stage;
      bool nested = in_sum && producer >= 0 && is_plain_sum(p.stages[producer]);
      step = std::max(step, nested ? own * below : own + below - 1);
    }
    terms = std::min(step, 1e15);
  }
  memo[tensor] = terms;
  return terms;
}
}  // namespace

double reduction_terms(const Program& p, int tensor) {
  std::map<int, double> memo;
  return terms_of(p, tensor, memo);
}

double tolerance_for(const Program& p, int tensor) {
  double base = tolerance_for(p.tensors[tensor].dtype);
  return base * std::max(1.0, std::sqrt(reduction_terms(p, tensor) / 1024.0));
}

namespace {
bool has_float_to_int(const Expr& e) {
  if (e.kind == ExprKind::call && e.fn == Fn::cast && is_int(e.cast_to) && is_float(e.args[0]->type)) return true;
  for (const auto& a : e.args)
    if (has_float_to_int(*a)) return true;
  return false;
}
}  // namespace

double integer_tolerance(const Program& p) {
  for (const auto& s : p.stages)
    if (has_float_to_int(*s.body)) return 1;
  return 0;
}

std::vector<OutputComparison> compare_outputs(const Program& p, const std::vector<TensorData>& got,
                                              const std::vector<TensorData>& want, double tolerance_scale) {
  bool float_to_int = integer_tolerance(p) > 0;
  std::vector<OutputComparison> out;
  for (size_t k = 0; k < want.size(); ++k) {
    const TensorData& w = want[k];
    const TensorData& g = got[k];
    OutputComparison c;
    c.name = w.name;
    int tensor = k < p.outputs.size() ? p.outputs[k] : p.find_tensor(w.name);
    c.tolerance = (tensor >= 0 ? tolerance_for(p, tensor) : tolerance_for(w.dtype)) * tolerance_scale;
    int64_t n = w.size();
    if (g.size() != n) {
      c.pass = false;
      out.push_back(c);
      continue;
    }
    double rms = 0;
    for (int64_t q = 0; q < n; ++q) rms += w.value(q) * w.value(q);
    rms = std::sqrt(rms / static_cast<double>(std::max<int64_t>(n, 1)));
    for (int64_t q = 0; q < n; ++q) {
      double a = g.value(q), b = w.value(q);
      double abs_err = std::fabs(a - b);
      double rel = w.holds_float() ? abs_err / (std::fabs(b) + rms + 1e-300) : abs_err;
      if (std::isfinite(b) && !std::isfinite(a)) {
        c.nonfinite = true;
        rel = INFINITY;
      }
      if (!std::isfinite(b) && !(std::isnan(b) ? std::isnan(a) : a == b)) rel = INFINITY;
      if (!std::isfinite(b) && (std::isnan(b) ? std::isnan(a) : a == b)) abs_err = rel = 0;
      if (rel > c.max_rel_error || c.worst_index < 0) {
        if (rel > c.max_rel_error) c.max_rel_error = rel;
        c.worst_index = q;
        c.worst_got = a;
        c.worst_want = b;
      }
      if (abs_err > c.max_abs_error) c.max_abs_error = abs_err;
    }
    if (w.holds_float()) c.pass = !c.nonfinite && c.max_rel_error <= c.tolerance;
    else c.pass = c.max_abs_error <= (float_to_int ? std::round(tolerance_scale) : 0.0);
    out.push_back(c);
  }
  return out;
}

}  // namespace ekb
