// Operation counting over the checked syntax tree. Counted: arithmetic, comparisons, bitwise
// operators, min/max/abs/sign, math functions (1 each, clamp 2) and one combine per reduction point.
// Not counted: index arithmetic, tensor reads, select, casts, logical operators and constant
// subexpressions (`-1.0`, `1.0 / 64`); of a select's two branches the larger counts.
#include "suite/figures.h"

#include <algorithm>

#include "suite/must_read.h"

namespace ekb {
namespace {

// Numbers, dims, consts and arithmetic on them only: folded by any compiler, so they cost nothing.
bool is_constant(const Expr& e) {
  switch (e.kind) {
    case ExprKind::int_lit: case ExprKind::float_lit: case ExprKind::bool_lit:
      return true;
    case ExprKind::name:
      return e.ref == NameRef::dim || e.ref == NameRef::constant;
    case ExprKind::unary: case ExprKind::binary: case ExprKind::call:
      for (const auto& a : e.args)
        if (!is_constant(*a)) return false;
      return true;
    default:
      return false;
  }
}

double ops(const Expr& e, const StageInfo& st) {
  if (is_constant(e)) return 0;
  switch (e.kind) {
    case ExprKind::int_lit: case ExprKind::float_lit: case ExprKind::bool_lit: case ExprKind::name: case ExprKind::access:
      return 0;
    case ExprKind::unary:
      return (e.unop == UnOp::lnot ? 0 : 1) + ops(*e.args[0], st);
    case ExprKind::binary: {
      double own = (e.binop == BinOp::land || e.binop == BinOp::lor) ? 0 : 1;
      return own + ops(*e.args[0], st) + ops(*e.args[1], st);
    }
    case ExprKind::call:
      if (e.fn == Fn::select) return ops(*e.args[0], st) + std::max(ops(*e.args[1], st), ops(*e.args[2], st));
      if (e.fn == Fn::cast) return ops(*e.args[0], st);
      {
        double s = e.fn == Fn::clamp ? 2 : 1;
        for (const auto& a : e.args) s += ops(*a, st);
        return s;
      }
    case ExprKind::reduce: {
      double points = 1;
      for (int v : e.rvar_ids) points *= static_cast<double>(st.vars[v].extent);
      return points * (ops(*e.args[0], st) + 1);
    }
  }
  return 0;
}

bool has_access(const Expr& e) {
  if (e.kind == ExprKind::access) return true;
  for (const auto& a : e.args)
    if (has_access(*a)) return true;
  return false;
}

// How `tensor` is read in `e`: `direct` when some read has only data-independent indices, `gathered`
// when some read has an index computed from data (`Table[Ids[n], j]`).
void classify_reads(const Expr& e, int tensor, bool& direct, bool& gathered) {
  if (e.kind == ExprKind::access && e.id == tensor) {
    bool data_index = false;
    for (const auto& i : e.args) data_index = data_index || has_access(*i);
    (data_index ? gathered : direct) = true;
  }
  for (const auto& a : e.args) classify_reads(*a, tensor, direct, gathered);
}

}  // namespace

Figures compute_figures(const Program& p) {
  Figures f;
  f.stages = static_cast<int>(p.stages.size());
  for (const auto& st : p.stages) {
    double points = 1;
    for (int v = 0; v < st.n_lhs; ++v) points *= static_cast<double>(st.vars[v].extent);
    f.flops += points * ops(*st.body, st);
  }
  // An input read only through data-dependent indices (a gather, an embedding lookup) need not be
  // read whole: the indices may name the same row every time. It counts nothing.
  for (int t : p.inputs) {
    bool direct = false, gathered = false;
    for (const auto& st : p.stages) classify_reads(*st.body, t, direct, gathered);
    if (gathered && !direct) continue;
    f.bytes += p.tensors[t].elements() * dtype_bytes(p.tensors[t].dtype);
  }
  for (int t : p.outputs) f.bytes += p.tensors[t].elements() * dtype_bytes(p.tensors[t].dtype);
  f.must_read_bytes = must_read(p).bytes;
  return f;
}

}  // namespace ekb
