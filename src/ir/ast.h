// The syntax tree of a .ekb file: an L0 kernel, L1 `schedule` and L2 `memory` sections per backend,
// and (in suite files) a `workloads` table. The parser builds it; the checker annotates expressions
// in place (types, what each name refers to), and the printer turns it back into canonical text.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ir/dtype.h"
#include "util/source.h"

namespace ekb {

// Comments and blank lines around a statement, kept so that `ekb fmt` loses nothing.
struct Trivia {
  std::vector<std::string> leading;  // own-line comments before the statement (text after '#')
  std::string trailing;              // a comment at the end of the statement's last line
  bool blank_before = false;
};

enum class ExprKind { int_lit, float_lit, bool_lit, name, access, unary, binary, call, reduce };
enum class UnOp { neg, lnot, bnot };
enum class BinOp { add, sub, mul, div, mod, lt, le, gt, ge, eq, ne, land, lor, band, bor, bxor, shl, shr };
enum class ReduceOp { sum, prod, max, min };

// Built-in functions. Casts are calls named after a dtype.
enum class Fn {
  select, min, max, abs, clamp, sign,
  exp, exp2, expm1, log, log2, log10, log1p, sqrt, rsqrt, cbrt,
  tanh, sigmoid, erf, sin, cos, tan, asin, acos, atan, atan2, sinh, cosh,
  pow, floor, ceil, round, trunc,
  cast,
};

// What a `name` expression refers to, once checked.
enum class NameRef { unresolved, index_var, dim, constant, scalar_tensor };

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct IndexVarDecl {  // `k` or `k < K` in a stage's left side or a reduction's header
  std::string name;
  Loc loc;
  ExprPtr extent;  // null when inferred
};

struct Expr {
  ExprKind kind;
  Loc loc;
  std::string text;  // literal spelling, name, tensor name, or function name
  UnOp unop = UnOp::neg;
  BinOp binop = BinOp::add;
  ReduceOp redop = ReduceOp::sum;
  std::vector<ExprPtr> args;        // operands, indices, call arguments, or the reduction body
  std::vector<IndexVarDecl> rvars;  // reduction variables

  // --- filled by the checker ---
  DType type = DType::f64;
  bool weak = false;      // an untyped literal (or an expression of literals) that adopts its partner's type
  NameRef ref = NameRef::unresolved;
  int id = -1;            // index var id within its stage, tensor id, or dim/const index
  Fn fn = Fn::select;
  DType cast_to = DType::f32;
  std::vector<int> rvar_ids;  // ids of the reduction variables within the stage
  int64_t ival = 0;           // value of an int/bool literal or a folded integer constant
  double fval = 0;            // value of a float literal or a folded float constant

  Expr(ExprKind k, Loc l) : kind(k), loc(l) {}
  ExprPtr clone() const;
};

struct MetaStmt {  // `pattern X`, `category X`, `domain X`
  std::string key, value;
  Loc loc, value_loc;
};

struct NamedValue {  // `M = 512` in a `dim` or `const` statement
  std::string name;
  Loc loc;
  ExprPtr value;
};
struct DimStmt {  // `dim M = 512, N = 256`
  std::vector<NamedValue> defs;
};
struct ConstStmt {  // `const eps = 1e-5, scale = 0.125`
  std::vector<NamedValue> defs;
};

struct Distribution {  // `~ normal(0, 1)`
  std::string kind;
  Loc loc;
  std::vector<ExprPtr> args;
  bool has_parens = false;
};

struct TensorStmt {  // `in X : f32[N, C] ~ uniform(-1, 1)` or `out Y : f32[N]`
  bool is_output = false;
  std::string name;
  Loc loc, dtype_loc;
  DType dtype = DType::f32;
  std::vector<ExprPtr> shape;
  std::optional<Distribution> dist;
};

struct StageStmt {  // `Y[i, j] = expr` (or `s = expr` for a scalar), or a recurrence `Y[t, j] = scan(t) expr`
  std::string name;
  Loc loc;
  bool bracketed = true;
  std::vector<IndexVarDecl> lhs;
  std::string scan_var;  // the left-side variable a recurrence steps along; empty for a pure stage
  Loc scan_loc;
  ExprPtr rhs;
};

struct KernelStmt {
  std::variant<MetaStmt, DimStmt, ConstStmt, TensorStmt, StageStmt> node;
  Loc loc;  // the first token
  Trivia trivia;
};

struct Kernel {
  std::string name;
  Loc loc;  // of the name
  Trivia trivia;
  std::vector<KernelStmt> stmts;
};

// L1 / L2: `STAGE: directive args... [-> outputs...]; directive ...`
struct DirectiveArg {
  std::string text;  // a name, an integer, or a dotted name like thread.x
  Loc loc;
  bool is_int = false;
  int64_t value = 0;
};

struct Directive {
  std::string name;
  Loc loc;
  std::vector<DirectiveArg> args;
  bool has_arrow = false;
  std::vector<DirectiveArg> outs;
};

struct ScheduleLine {
  std::string stage;
  Loc loc;
  std::vector<Directive> directives;
  Trivia trivia;
};

enum class Layer { schedule, memory };

struct Section {  // `schedule cpu` or `memory cuda`
  Layer layer = Layer::schedule;
  std::string backend;
  Loc loc, backend_loc;
  Trivia trivia;
  std::vector<ScheduleLine> lines;
};

struct WorkloadItem {  // `M = 512` or `domain = audio`
  std::string key;
  Loc loc;
  ExprPtr value;  // for dims
  std::string word;  // for domain
  Loc word_loc;
};
struct Workload {
  std::string name;
  Loc loc;
  std::vector<WorkloadItem> items;
  Trivia trivia;
};
struct WorkloadsSection {
  Loc loc;
  Trivia trivia;
  std::vector<Workload> items;
};

// A whole .ekb file, its top-level blocks in source order.
struct Module {
  SourcePtr source;
  std::optional<Kernel> kernel;
  std::vector<Section> sections;
  std::optional<WorkloadsSection> workloads;
  enum class Block { kernel, section, workloads };
  std::vector<std::pair<Block, int>> order;  // block kind, index into `sections` for sections
  std::vector<std::string> trailing_comments;  // after the last statement
};

}  // namespace ekb
