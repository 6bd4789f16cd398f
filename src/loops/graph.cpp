// Building the stage graph from L0: every implicit conversion of the L0 type rules becomes an
// explicit cast, `&&` / `||` become lazy selects, dims and consts become constants.
#include "loops/graph.h"

#include <functional>
#include <map>

namespace ekb::lower {

using namespace lir;

int Graph::find(const std::string& name) const {
  for (size_t i = 0; i < stages.size(); ++i)
    if (stages[i].name == name) return static_cast<int>(i);
  return -1;
}

const TensorArg* Graph::input(const std::string& name) const {
  for (const auto& t : inputs)
    if (t.name == name) return &t;
  return nullptr;
}

std::vector<std::string> Graph::consumers(const std::string& name) const {
  std::vector<std::string> out;
  for (const auto& s : stages)
    if (s.name != name && reads(s.value, name)) out.push_back(s.name);
  return out;
}

std::vector<int64_t> Graph::shape_of(const std::string& name) const {
  if (const TensorArg* t = input(name)) return t->shape;
  int s = find(name);
  return s >= 0 ? stages[s].extents : std::vector<int64_t>{};
}

DType Graph::type_of(const std::string& name) const {
  if (const TensorArg* t = input(name)) return t->type;
  int s = find(name);
  return s >= 0 ? stages[s].type : DType::f32;
}

namespace {

ExprP convert_to(ExprP e, DType t) { return e->type == t ? e : cast(t, std::move(e)); }

struct Converter {
  const Program& p;
  const StageInfo& st;

  ExprP imm(double f, int64_t i, DType t) { return is_float(t) ? float_imm(f, t) : int_imm(i, t); }

  ExprP conv(const ekb::Expr& e) {
    switch (e.kind) {
      case ExprKind::int_lit:
      case ExprKind::bool_lit:
        return imm(static_cast<double>(e.ival), e.ival, e.type);
      case ExprKind::float_lit:
        return float_imm(e.fval, e.type);
      case ExprKind::name:
        switch (e.ref) {
          case NameRef::index_var: return var(st.vars[e.id].name, DType::i64);
          case NameRef::dim: return imm(static_cast<double>(e.ival), e.ival, e.type);
          case NameRef::constant: return imm(e.fval != 0 ? e.fval : static_cast<double>(e.ival), e.ival, e.type);
          case NameRef::scalar_tensor: return load(p.tensors[e.id].name, e.type, {});
          default: return int_imm(0);
        }
      case ExprKind::access: {
        std::vector<ExprP> idx;
        for (const auto& a : e.args) idx.push_back(convert_to(conv(*a), DType::i64));
        return load(p.tensors[e.id].name, e.type, std::move(idx));
      }
      case ExprKind::unary:
        return unary(e.unop, convert_to(conv(*e.args[0]), e.type), e.type);
      case ExprKind::binary: {
        ExprP a = conv(*e.args[0]), b = conv(*e.args[1]);
        switch (e.binop) {
          case BinOp::land: return select(a, b, bool_imm(false));
          case BinOp::lor: return select(a, bool_imm(true), b);
          case BinOp::lt: case BinOp::le: case BinOp::gt: case BinOp::ge: case BinOp::eq: case BinOp::ne:
            return binary(e.binop, convert_to(a, e.cast_to), convert_to(b, e.cast_to), DType::boolean);
          case BinOp::shl: case BinOp::shr:
            return binary(e.binop, convert_to(a, e.type), b, e.type);
          default:
            return binary(e.binop, convert_to(a, e.type), convert_to(b, e.type), e.type);
        }
      }
      case ExprKind::call: {
        if (e.fn == Fn::cast) return convert_to(conv(*e.args[0]), e.cast_to);
        if (e.fn == Fn::select)
          return select(conv(*e.args[0]), convert_to(conv(*e.args[1]), e.type), convert_to(conv(*e.args[2]), e.type));
        std::vector<ExprP> args;
        for (const auto& a : e.args) args.push_back(convert_to(conv(*a), e.type));
        return call(e.fn, std::move(args), e.type);
      }
      case ExprKind::reduce: {
        std::vector<std::string> vars;
        std::vector<int64_t> ext;
        for (int id : e.rvar_ids) {
          vars.push_back(st.vars[id].name);
          ext.push_back(st.vars[id].extent);
        }
        return reduce(e.redop, std::move(vars), std::move(ext), convert_to(conv(*e.args[0]), e.type));
      }
    }
    return int_imm(0);
  }
};

}  // namespace

Graph build_graph(const Program& p) {
  Graph g;
  for (int t : p.inputs) g.inputs.push_back({p.tensors[t].name, p.tensors[t].dtype, p.tensors[t].shape});
  for (int t : p.outputs) g.outputs.push_back({p.tensors[t].name, p.tensors[t].dtype, p.tensors[t].shape});
  for (const auto& st : p.stages) {
    const TensorInfo& t = p.tensors[st.tensor];
    Converter c{p, st};
    LStage s;
    s.name = st.name;
    s.is_output = t.role == TensorRole::output;
    s.loc = st.loc;
    for (int v = 0; v < st.n_lhs; ++v) {
      s.vars.push_back(st.vars[v].name);
      s.extents.push_back(st.vars[v].extent);
    }
    if (st.is_scan()) {
      s.scan_var = st.vars[st.scan_var].name;
      for (int v = 0; v < st.n_lhs; ++v)
        if (v != st.scan_var && !st.scan_local[v]) s.scan_nonlocal.push_back(st.vars[v].name);
    }
    const ekb::Expr& body = *st.body;
    DType value_type = body.type;
    // (A recurrence's value is one expression: a reduction at its top stays inside it, so that each
    // step is complete, in its own type, before the next reads it.)
    if (body.kind == ExprKind::reduce && !st.is_scan()) {
      s.rop = body.redop;
      for (int id : body.rvar_ids) {
        s.rvars.push_back(st.vars[id].name);
        s.rextents.push_back(st.vars[id].extent);
      }
      s.value = convert_to(c.conv(*body.args[0]), value_type);
    } else {
      s.value = c.conv(body);
    }
    if (value_type == t.dtype || !s.has_reduction()) {
      s.type = t.dtype;
      if (!s.has_reduction()) s.value = convert_to(s.value, t.dtype);
      g.stages.push_back(std::move(s));
      continue;
    }
    // A reduction whose result is stored in another type (an f16 output of an f32 sum): accumulate in
    // the value's type in `<name>_acc`, then convert into the output.
    LStage acc = s;
    acc.name = s.name + "_acc";
    acc.type = value_type;
    acc.is_output = false;
    acc.created = true;
    std::vector<ExprP> idx;
    for (const auto& v : s.vars) idx.push_back(var(v));
    s.rvars.clear();
    s.rextents.clear();
    s.type = t.dtype;
    s.value = convert_to(load(acc.name, value_type, idx), t.dtype);
    g.stages.push_back(std::move(acc));
    g.stages.push_back(std::move(s));
  }
  return g;
}

bool reads(const ExprP& e, const std::string& buffer) {
  if (e->kind == EK::load && e->name == buffer) return true;
  for (const auto& a : e->args)
    if (reads(a, buffer)) return true;
  return false;
}

bool reads_pointwise(const LStage& consumer, const std::string& producer) {
  bool any = false, all = true;
  std::function<void(const ExprP&)> walk = [&](const ExprP& e) {
    if (e->kind == EK::load && e->name == producer) {
      any = true;
      bool same = e->args.size() == consumer.vars.size();
      for (size_t i = 0; same && i < e->args.size(); ++i)
        same = e->args[i]->kind == EK::var && e->args[i]->name == consumer.vars[i];
      all = all && same;
    }
    for (const auto& a : e->args) walk(a);
  };
  walk(consumer.value);
  return any && all;
}

namespace {
ExprP rebuild(const ExprP& e, std::vector<ExprP> args) {
  bool same = args.size() == e->args.size();
  for (size_t i = 0; same && i < args.size(); ++i) same = args[i] == e->args[i];
  if (same) return e;
  auto c = std::make_shared<lir::Expr>(*e);
  c->args = std::move(args);
  return c;
}
}  // namespace

ExprP substitute(const ExprP& e, const std::vector<std::pair<std::string, ExprP>>& map) {
  if (e->kind == EK::var) {
    for (const auto& [n, v] : map)
      if (n == e->name) return v;
    return e;
  }
  std::vector<ExprP> args;
  for (const auto& a : e->args) args.push_back(substitute(a, map));
  return rebuild(e, std::move(args));
}

ExprP replace_loads(const ExprP& e, const std::string& buffer, const std::function<ExprP(const std::vector<ExprP>&)>& f) {
  std::vector<ExprP> args;
  for (const auto& a : e->args) args.push_back(replace_loads(a, buffer, f));
  if (e->kind == EK::load && e->name == buffer) return f(args);
  return rebuild(e, std::move(args));
}

ExprP rename_reduction_vars(const ExprP& e, const std::string& suffix) {
  std::vector<ExprP> args;
  for (const auto& a : e->args) args.push_back(rename_reduction_vars(a, suffix));
  ExprP r = rebuild(e, std::move(args));
  if (e->kind != EK::reduce) return r;
  std::vector<std::pair<std::string, ExprP>> map;
  auto c = std::make_shared<lir::Expr>(*r);
  for (auto& v : c->rvars) {
    map.push_back({v, var(v + suffix)});
    v += suffix;
  }
  c->args[0] = substitute(c->args[0], map);
  return c;
}

}  // namespace ekb::lower
