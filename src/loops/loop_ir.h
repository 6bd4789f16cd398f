// The loop IR: what lowering turns L0 + L1 + L2 into and what every backend's printer prints.
// Expressions are immutable trees with named variables (loop variables, lets); statements are loops
// (marked serial / parallel / vectorized / unrolled / GPU-bound), stores, allocations with a scope,
// lets and guards. One IR for every backend; backends differ in their printer's dialect table.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/ast.h"
#include "ir/dtype.h"

namespace ekb::lir {

struct Expr;
using ExprP = std::shared_ptr<const Expr>;

enum class EK { int_imm, float_imm, var, load, unary, binary, select, call, cast, reduce };

struct Expr {
  EK kind;
  DType type;
  int64_t ival = 0;  // int_imm (and bool)
  double fval = 0;   // float_imm
  std::string name;  // var, the buffer of a load
  UnOp unop = UnOp::neg;
  BinOp binop = BinOp::add;
  Fn fn = Fn::exp;            // call
  ReduceOp redop = ReduceOp::sum;
  std::vector<ExprP> args;    // operands; load indices (one per dimension); reduce: args[0] is the body
  std::vector<std::string> rvars;  // reduce: its variables
  std::vector<int64_t> rextents;   // reduce: their extents
};

// Constructors (types follow the L0 rules: callers pass the result type).
ExprP int_imm(int64_t v, DType t = DType::i64);
ExprP float_imm(double v, DType t);
ExprP bool_imm(bool v);
ExprP var(const std::string& name, DType t = DType::i64);
ExprP load(const std::string& buffer, DType t, std::vector<ExprP> indices);
ExprP unary(UnOp op, ExprP a, DType t);
ExprP binary(BinOp op, ExprP a, ExprP b, DType t);
ExprP select(ExprP c, ExprP a, ExprP b);
ExprP call(Fn fn, std::vector<ExprP> args, DType t);
ExprP cast(DType to, ExprP a);
ExprP reduce(ReduceOp op, std::vector<std::string> vars, std::vector<int64_t> extents, ExprP body);
// Integer index arithmetic (i64), folding constants.
ExprP add(ExprP a, ExprP b);
ExprP sub(ExprP a, ExprP b);
ExprP mul(ExprP a, ExprP b);
ExprP floordiv(ExprP a, ExprP b);
ExprP floormod(ExprP a, ExprP b);
ExprP min(ExprP a, ExprP b);
ExprP max(ExprP a, ExprP b);
ExprP lt(ExprP a, ExprP b);
ExprP land(ExprP a, ExprP b);

bool is_const(const ExprP& e, int64_t* v = nullptr);  // an integer constant (and its value)
// An integer constant or the negation of one (`-7` as written in a task), and its value.
bool is_signed_const(const ExprP& e, int64_t* v = nullptr);

enum class LoopKind { serial, parallel, vectorized, unrolled, gpu_block, gpu_thread };
const char* loop_kind_name(LoopKind k);

enum class MemScope { global, local, shared };
const char* scope_name(MemScope s);
const char* reduce_op_name(ReduceOp op);  // "sum", "prod", "max", "min"


struct Stmt;
using StmtP = std::shared_ptr<const Stmt>;

// barrier: every thread of a GPU block waits here, and sees the others' shared-memory writes.
// thread_reduce: a cross-thread reduction (GPU): inside a loop bound to thread axis `gpu_axis` of
// `extent` threads (`var`), the scalar temporary `buffer` of every thread is combined with `redop`
// and every thread gets the total back in it (the printer writes the shared-memory tree).
enum class SK { block, for_, store, allocate, let, if_, comment, barrier, thread_reduce };

struct Buffer {
  std::string name;
  DType type = DType::f32;
  std::vector<int64_t> extents;  // allocated size per dimension (constants)
  std::vector<ExprP> mins;       // the coordinate of element 0 per dimension (0 for whole tensors)
  MemScope scope = MemScope::global;
};

struct Stmt {
  SK kind;
  std::vector<StmtP> body;  // block: statements; for / allocate / let / if: body[0] (if: body[1] is else, may be null)
  // for
  std::string var;
  ExprP min, extent;
  LoopKind loop = LoopKind::serial;
  int gpu_axis = 0;  // 0 x, 1 y, 2 z for gpu loops
  Loc loc;           // for: the schedule directive that marked it (none: a plain loop), for located errors
  // store
  std::string buffer;
  std::vector<ExprP> indices;
  ExprP value;  // store value, let value, if condition
  // allocate
  Buffer alloc;
  std::string text;  // comment
  ReduceOp redop = ReduceOp::sum;  // thread_reduce
};

StmtP block(std::vector<StmtP> stmts);
StmtP for_loop(const std::string& var, ExprP min, ExprP extent, LoopKind kind, StmtP body, int gpu_axis = 0, Loc loc = {});
StmtP store(const std::string& buffer, std::vector<ExprP> indices, ExprP value);
StmtP allocate(Buffer b, StmtP body);
StmtP let(const std::string& var, ExprP value, StmtP body);
StmtP if_then(ExprP cond, StmtP then_s, StmtP else_s = nullptr);
StmtP comment(const std::string& text);
StmtP barrier();
StmtP thread_reduce(ReduceOp op, const std::string& accumulator, const std::string& thread_var, int gpu_axis, int64_t threads);

// A copy of `s` with `f` applied to every expression in it (loop bounds, values, conditions, store
// indices, allocation mins), at every depth: the statement shape is kept.
StmtP map_exprs(const StmtP& s, const std::function<ExprP(const ExprP&)>& f);

// A readable dump of the loop IR (`ekb compile --emit loops`), for people and golden tests.
std::string to_string(const ExprP& e);
std::string to_string(const StmtP& s, int indent = 0);

}  // namespace ekb::lir
