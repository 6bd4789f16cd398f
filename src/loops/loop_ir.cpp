// Loop IR constructors (with constant folding of index arithmetic) and its text dump.
#include "loops/loop_ir.h"

#include <fmt/format.h>

#include "ir/operators.h"
#include "ir/parser.h"
#include "ir/semantics.h"

namespace ekb::lir {

namespace {
std::shared_ptr<Expr> make(EK k, DType t) {
  auto e = std::make_shared<Expr>();
  e->kind = k;
  e->type = t;
  return e;
}
}  // namespace

ExprP int_imm(int64_t v, DType t) {
  auto e = make(EK::int_imm, t);
  e->ival = v;
  return e;
}
ExprP float_imm(double v, DType t) {
  auto e = make(EK::float_imm, t);
  e->fval = v;
  return e;
}
ExprP bool_imm(bool v) { return int_imm(v ? 1 : 0, DType::boolean); }
ExprP var(const std::string& name, DType t) {
  auto e = make(EK::var, t);
  e->name = name;
  return e;
}
ExprP load(const std::string& buffer, DType t, std::vector<ExprP> indices) {
  auto e = make(EK::load, t);
  e->name = buffer;
  e->args = std::move(indices);
  return e;
}
ExprP unary(UnOp op, ExprP a, DType t) {
  auto e = make(EK::unary, t);
  e->unop = op;
  e->args = {std::move(a)};
  return e;
}
ExprP binary(BinOp op, ExprP a, ExprP b, DType t) {
  auto e = make(EK::binary, t);
  e->binop = op;
  e->args = {std::move(a), std::move(b)};
  return e;
}
ExprP select(ExprP c, ExprP a, ExprP b) {
  auto e = make(EK::select, a->type);
  e->args = {std::move(c), std::move(a), std::move(b)};
  return e;
}
ExprP call(Fn fn, std::vector<ExprP> args, DType t) {
  auto e = make(EK::call, t);
  e->fn = fn;
  e->args = std::move(args);
  return e;
}
ExprP cast(DType to, ExprP a) {
  auto e = make(EK::cast, to);
  e->args = {std::move(a)};
  return e;
}
ExprP reduce(ReduceOp op, std::vector<std::string> vars, std::vector<int64_t> extents, ExprP body) {
  auto e = make(EK::reduce, body->type);
  e->redop = op;
  e->rvars = std::move(vars);
  e->rextents = std::move(extents);
  e->args = {std::move(body)};
  return e;
}

bool is_const(const ExprP& e, int64_t* v) {
  if (!e || e->kind != EK::int_imm || is_float(e->type)) return false;
  if (v) *v = e->ival;
  return true;
}

bool is_signed_const(const ExprP& e, int64_t* v) {
  if (is_const(e, v)) return true;
  int64_t x = 0;
  if (!e || e->kind != EK::unary || e->unop != UnOp::neg || !is_const(e->args[0], &x) || x == INT64_MIN) return false;
  if (v) *v = -x;
  return true;
}

ExprP add(ExprP a, ExprP b) {
  int64_t x, y, r;
  if (is_const(a, &x) && is_const(b, &y) && !__builtin_add_overflow(x, y, &r)) return int_imm(r);
  if (is_const(b, &y) && y == 0) return a;
  if (is_const(a, &x) && x == 0) return b;
  return binary(BinOp::add, std::move(a), std::move(b), DType::i64);
}
ExprP sub(ExprP a, ExprP b) {
  int64_t x, y, r;
  if (is_const(a, &x) && is_const(b, &y) && !__builtin_sub_overflow(x, y, &r)) return int_imm(r);
  if (is_const(b, &y) && y == 0) return a;
  return binary(BinOp::sub, std::move(a), std::move(b), DType::i64);
}
ExprP mul(ExprP a, ExprP b) {
  int64_t x, y, r;
  if (is_const(a, &x) && is_const(b, &y) && !__builtin_mul_overflow(x, y, &r)) return int_imm(r);
  if ((is_const(a, &x) && x == 0) || (is_const(b, &y) && y == 0)) return int_imm(0);
  if (is_const(b, &y) && y == 1) return a;
  if (is_const(a, &x) && x == 1) return b;
  return binary(BinOp::mul, std::move(a), std::move(b), DType::i64);
}
ExprP floordiv(ExprP a, ExprP b) {
  int64_t x, y;
  if (is_const(a, &x) && is_const(b, &y) && y != 0) return int_imm(sem::floor_div(x, y));
  if (is_const(b, &y) && y == 1) return a;
  return binary(BinOp::div, std::move(a), std::move(b), DType::i64);
}
ExprP floormod(ExprP a, ExprP b) {
  int64_t x, y;
  if (is_const(a, &x) && is_const(b, &y) && y != 0) return int_imm(sem::floor_mod(x, y));
  if (is_const(b, &y) && y == 1) return int_imm(0);
  return binary(BinOp::mod, std::move(a), std::move(b), DType::i64);
}
ExprP min(ExprP a, ExprP b) {
  int64_t x, y;
  if (is_const(a, &x) && is_const(b, &y)) return int_imm(std::min(x, y));
  return call(Fn::min, {std::move(a), std::move(b)}, DType::i64);
}
ExprP max(ExprP a, ExprP b) {
  int64_t x, y;
  if (is_const(a, &x) && is_const(b, &y)) return int_imm(std::max(x, y));
  return call(Fn::max, {std::move(a), std::move(b)}, DType::i64);
}
ExprP lt(ExprP a, ExprP b) {
  int64_t x, y;
  if (is_const(a, &x) && is_const(b, &y)) return bool_imm(x < y);
  return binary(BinOp::lt, std::move(a), std::move(b), DType::boolean);
}
ExprP land(ExprP a, ExprP b) {
  int64_t x;
  if (is_const(a, &x)) return x ? b : a;
  if (is_const(b, &x)) return x ? a : b;
  return select(std::move(a), std::move(b), bool_imm(false));
}

const char* loop_kind_name(LoopKind k) {
  switch (k) {
    case LoopKind::serial: return "for";
    case LoopKind::parallel: return "parallel for";
    case LoopKind::vectorized: return "vectorized for";
    case LoopKind::unrolled: return "unrolled for";
    case LoopKind::gpu_block: return "gpu_block for";
    case LoopKind::gpu_thread: return "gpu_thread for";
  }
  return "for";
}

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::prod: return "prod";
    case ReduceOp::max: return "max";
    case ReduceOp::min: return "min";
  }
  return "sum";
}

const char* scope_name(MemScope s) {
  switch (s) {
    case MemScope::global: return "global";
    case MemScope::local: return "local";
    case MemScope::shared: return "shared";
  }
  return "global";
}

namespace {
std::shared_ptr<Stmt> make_stmt(SK k) {
  auto s = std::make_shared<Stmt>();
  s->kind = k;
  return s;
}
}  // namespace

StmtP block(std::vector<StmtP> stmts) {
  std::vector<StmtP> flat;
  for (auto& s : stmts) {
    if (!s) continue;
    if (s->kind == SK::block) flat.insert(flat.end(), s->body.begin(), s->body.end());
    else flat.push_back(std::move(s));
  }
  if (flat.size() == 1) return flat[0];
  auto b = make_stmt(SK::block);
  b->body = std::move(flat);
  return b;
}
StmtP for_loop(const std::string& v, ExprP min, ExprP extent, LoopKind kind, StmtP body, int gpu_axis, Loc loc) {
  auto s = make_stmt(SK::for_);
  s->var = v;
  s->min = std::move(min);
  s->extent = std::move(extent);
  s->loop = kind;
  s->gpu_axis = gpu_axis;
  s->loc = loc;
  s->body = {std::move(body)};
  return s;
}
StmtP store(const std::string& buffer, std::vector<ExprP> indices, ExprP value) {
  auto s = make_stmt(SK::store);
  s->buffer = buffer;
  s->indices = std::move(indices);
  s->value = std::move(value);
  return s;
}
StmtP allocate(Buffer b, StmtP body) {
  auto s = make_stmt(SK::allocate);
  s->alloc = std::move(b);
  s->body = {std::move(body)};
  return s;
}
StmtP let(const std::string& v, ExprP value, StmtP body) {
  auto s = make_stmt(SK::let);
  s->var = v;
  s->value = std::move(value);
  s->body = {std::move(body)};
  return s;
}
StmtP if_then(ExprP cond, StmtP then_s, StmtP else_s) {
  auto s = make_stmt(SK::if_);
  s->value = std::move(cond);
  s->body = {std::move(then_s), std::move(else_s)};
  return s;
}
StmtP comment(const std::string& text) {
  auto s = make_stmt(SK::comment);
  s->text = text;
  return s;
}
StmtP barrier() { return make_stmt(SK::barrier); }

StmtP map_exprs(const StmtP& s, const std::function<ExprP(const ExprP&)>& f) {
  if (!s) return s;
  auto c = std::make_shared<Stmt>(*s);
  auto g = [&](const ExprP& x) { return x ? f(x) : x; };
  c->min = g(s->min);
  c->extent = g(s->extent);
  c->value = g(s->value);
  for (auto& i : c->indices) i = g(i);
  for (auto& m : c->alloc.mins) m = g(m);
  for (auto& b : c->body) b = map_exprs(b, f);
  return c;
}
StmtP thread_reduce(ReduceOp op, const std::string& accumulator, const std::string& thread_var, int gpu_axis, int64_t threads) {
  auto s = make_stmt(SK::thread_reduce);
  s->redop = op;
  s->buffer = accumulator;
  s->var = thread_var;
  s->gpu_axis = gpu_axis;
  s->extent = int_imm(threads);
  return s;
}

std::string to_string(const ExprP& e) {
  switch (e->kind) {
    case EK::int_imm:
      if (e->type == DType::boolean) return e->ival ? "true" : "false";
      return std::to_string(e->ival);
    case EK::float_imm: return fmt::format("{}", e->fval);
    case EK::var: return e->name;
    case EK::load: {
      std::vector<std::string> idx;
      for (const auto& a : e->args) idx.push_back(to_string(a));
      return fmt::format("{}[{}]", e->name, fmt::join(idx, ", "));
    }
    case EK::unary:
      return fmt::format("{}({})", e->unop == UnOp::neg ? "-" : e->unop == UnOp::lnot ? "!" : "~", to_string(e->args[0]));
    case EK::binary:
      return fmt::format("({} {} {})", to_string(e->args[0]), spelling(e->binop), to_string(e->args[1]));
    case EK::select:
      return fmt::format("select({}, {}, {})", to_string(e->args[0]), to_string(e->args[1]), to_string(e->args[2]));
    case EK::call: {
      std::vector<std::string> a;
      for (const auto& x : e->args) a.push_back(to_string(x));
      return fmt::format("{}({})", function_name(e->fn), fmt::join(a, ", "));
    }
    case EK::cast: return fmt::format("{}({})", dtype_name(e->type), to_string(e->args[0]));
    case EK::reduce: {
      std::vector<std::string> v;
      for (size_t i = 0; i < e->rvars.size(); ++i) v.push_back(fmt::format("{} < {}", e->rvars[i], e->rextents[i]));
      const char* op = reduce_op_name(e->redop);
      return fmt::format("({}({}) {})", op, fmt::join(v, ", "), to_string(e->args[0]));
    }
  }
  return "?";
}

std::string to_string(const StmtP& s, int indent) {
  if (!s) return "";
  std::string pad(static_cast<size_t>(indent) * 2, ' ');
  switch (s->kind) {
    case SK::block: {
      std::string out;
      for (const auto& b : s->body) out += to_string(b, indent);
      return out;
    }
    case SK::for_:
      return fmt::format("{}{} {} in [{}, {} + {}):\n{}", pad, loop_kind_name(s->loop), s->var, to_string(s->min),
                         to_string(s->min), to_string(s->extent), to_string(s->body[0], indent + 1));
    case SK::store: {
      std::vector<std::string> idx;
      for (const auto& a : s->indices) idx.push_back(to_string(a));
      return fmt::format("{}{}[{}] = {}\n", pad, s->buffer, fmt::join(idx, ", "), to_string(s->value));
    }
    case SK::allocate:
      return fmt::format("{}allocate {} : {}[{}] in {}\n{}", pad, s->alloc.name, dtype_name(s->alloc.type),
                         fmt::join(s->alloc.extents, ", "), scope_name(s->alloc.scope), to_string(s->body[0], indent));
    case SK::let:
      return fmt::format("{}let {} = {}\n{}", pad, s->var, to_string(s->value), to_string(s->body[0], indent));
    case SK::if_: {
      std::string out = fmt::format("{}if {}:\n{}", pad, to_string(s->value), to_string(s->body[0], indent + 1));
      if (s->body[1]) out += fmt::format("{}else:\n{}", pad, to_string(s->body[1], indent + 1));
      return out;
    }
    case SK::comment:
      return fmt::format("{}# {}\n", pad, s->text);
    case SK::barrier:
      return pad + "barrier\n";
    case SK::thread_reduce: {
      const char* op = reduce_op_name(s->redop);
      return fmt::format("{}{} = thread_reduce_{}({} over {} threads of {})\n", pad, s->buffer, op, s->buffer, to_string(s->extent), s->var);
    }
  }
  return "";
}

}  // namespace ekb::lir
