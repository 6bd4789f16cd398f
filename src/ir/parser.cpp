// Recursive-descent parser for the .ekb format (grammar in docs/ir.md). Statements are lines; an
// error skips the rest of its line so that later statements are still checked.
#include "ir/parser.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "ir/lexer.h"
#include "ir/limits.h"
#include "ir/operators.h"

namespace ekb {

namespace {

struct FnName {
  const char* name;
  Fn fn;
};
constexpr FnName kFunctions[] = {
    {"select", Fn::select}, {"min", Fn::min},       {"max", Fn::max},     {"abs", Fn::abs},
    {"clamp", Fn::clamp},   {"sign", Fn::sign},     {"exp", Fn::exp},     {"exp2", Fn::exp2},
    {"expm1", Fn::expm1},   {"log", Fn::log},       {"log2", Fn::log2},   {"log10", Fn::log10},
    {"log1p", Fn::log1p},   {"sqrt", Fn::sqrt},     {"rsqrt", Fn::rsqrt}, {"cbrt", Fn::cbrt},
    {"tanh", Fn::tanh},     {"sigmoid", Fn::sigmoid}, {"erf", Fn::erf},   {"sin", Fn::sin},
    {"cos", Fn::cos},       {"tan", Fn::tan},       {"asin", Fn::asin},   {"acos", Fn::acos},
    {"atan", Fn::atan},     {"atan2", Fn::atan2},   {"sinh", Fn::sinh},   {"cosh", Fn::cosh},
    {"pow", Fn::pow},       {"floor", Fn::floor},   {"ceil", Fn::ceil},   {"round", Fn::round},
    {"trunc", Fn::trunc},
};

constexpr const char* kKeywords[] = {
    "kernel", "schedule", "memory", "workloads", "dim", "const", "in", "out", "pattern", "category",
    "domain", "sum", "prod", "scan", "true", "false", "inf", "pi",
};

struct ParseError {};  // unwinds to the statement loop, which skips the line

class Parser {
 public:
  Parser(const SourcePtr& src, DiagnosticList& diags) : src_(src), diags_(diags) {
    LexResult lr = lex(src, diags);
    toks_ = std::move(lr.tokens);
    comments_ = std::move(lr.comments);
  }

  Module run() {
    Module m;
    m.source = src_;
    skip_newlines();
    while (!at(Tok::eof)) {
      if (diags_.full()) break;
      const Token& t = peek();
      if (t.kind == Tok::ident && t.text == "kernel") {
        if (m.kernel) {
          error(t.loc, "a file holds one kernel, and this is a second `kernel`",
                "put each kernel in its own .ekb file");
          skip_block();
          continue;
        }
        m.kernel = parse_kernel();
        m.order.push_back({Module::Block::kernel, 0});
      } else if (t.kind == Tok::ident && (t.text == "schedule" || t.text == "memory")) {
        m.sections.push_back(parse_section());
        m.order.push_back({Module::Block::section, static_cast<int>(m.sections.size()) - 1});
      } else if (t.kind == Tok::ident && t.text == "workloads") {
        if (m.workloads) {
          error(t.loc, "a second `workloads` section", "list every workload in one `workloads` section");
          skip_block();
          continue;
        }
        m.workloads = parse_workloads();
        m.order.push_back({Module::Block::workloads, 0});
      } else {
        error(t.loc, fmt::format("expected `kernel`, `schedule`, `memory` or `workloads`, found {}", describe(t)),
              "a file starts with `kernel NAME` followed by its statements; schedules follow in "
              "`schedule cpu` / `memory cpu` sections");
        skip_line();
      }
      skip_newlines();
    }
    for (size_t i = next_comment_; i < comments_.size(); ++i) m.trailing_comments.push_back(comments_[i].text);
    return m;
  }

 private:
  SourcePtr src_;
  DiagnosticList& diags_;
  std::vector<Token> toks_;
  std::vector<Comment> comments_;
  size_t pos_ = 0;
  size_t next_comment_ = 0;
  // Expression depth (ir/limits.h). `open_` counts the operators, calls, reads and reductions whose
  // operand is being parsed, `parens_` the open parentheses: both bound the recursion before any
  // tree exists. Each node's own depth is checked when it is made, which also catches the one shape
  // that nests without recursing, a left-associative chain `a + b + c + ...`.
  int open_ = 0;
  int parens_ = 0;

  // ---- token helpers ----
  const Token& peek(size_t ahead = 0) const {
    size_t i = std::min(pos_ + ahead, toks_.size() - 1);
    return toks_[i];
  }
  bool at(Tok k) const { return peek().kind == k; }
  bool at_word(const char* w) const { return peek().kind == Tok::ident && peek().text == w; }
  const Token& advance() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool accept(Tok k) {
    if (!at(k)) return false;
    advance();
    return true;
  }
  std::string describe(const Token& t) const {
    if (t.kind == Tok::ident) return "`" + t.text + "`";
    if (t.kind == Tok::int_lit || t.kind == Tok::float_lit) return "the number `" + t.text + "`";
    return tok_spelling(t.kind);
  }
  [[noreturn]] void fail(Loc loc, std::string msg, std::string fix) {
    error(loc, std::move(msg), std::move(fix));
    throw ParseError{};
  }
  void error(Loc loc, std::string msg, std::string fix) { diags_.error(src_, loc, std::move(msg), std::move(fix)); }
  // Without a fix-it, the message says to insert what is missing.
  const Token& expect(Tok k, const char* what, const char* fix = nullptr) {
    if (!at(k))
      fail(peek().loc, fmt::format("expected {} {}, found {}", tok_spelling(k), what, describe(peek())),
           fix ? fix : fmt::format("insert {} here", tok_spelling(k)));
    return advance();
  }
  std::string expect_name(const char* what, const char* fix = nullptr) {
    if (!at(Tok::ident))
      fail(peek().loc, fmt::format("expected {}, found {}", what, describe(peek())),
           fix ? fix : "write a name (letters, digits and `_`, not starting with a digit) here");
    return advance().text;
  }
  void skip_newlines() {
    while (at(Tok::newline)) advance();
  }
  void skip_line() {
    while (!at(Tok::newline) && !at(Tok::eof)) advance();
    skip_newlines();
  }
  bool at_block_start() const {
    return at_word("kernel") || at_word("schedule") || at_word("memory") || at_word("workloads");
  }
  void skip_block() {
    advance();
    skip_line();
    while (!at(Tok::eof) && !at_block_start()) skip_line();
  }
  void end_statement(const char* what) {
    if (!at(Tok::newline) && !at(Tok::eof))
      fail(peek().loc, fmt::format("unexpected {} after {}", describe(peek()), what),
           "each statement stands on its own line; remove the extra text or start a new line");
    skip_newlines();
  }

  // ---- comments ----
  Trivia take_leading(const Token& first) {
    Trivia tr;
    tr.blank_before = first.blank_line_before;
    while (next_comment_ < comments_.size() && comments_[next_comment_].line < first.loc.line) {
      tr.leading.push_back(comments_[next_comment_].text);
      ++next_comment_;
    }
    return tr;
  }
  void take_trailing(Trivia& tr) {
    // Comments up to and including the line of the last consumed token.
    int last_line = pos_ > 0 ? toks_[pos_ - 1].loc.line : 0;
    // The token before the newline(s) we skipped: find the last non-newline token consumed.
    for (size_t i = pos_; i-- > 0;) {
      if (toks_[i].kind != Tok::newline) {
        last_line = toks_[i].loc.line;
        break;
      }
    }
    while (next_comment_ < comments_.size() && comments_[next_comment_].line <= last_line) {
      const Comment& c = comments_[next_comment_];
      if (c.line == last_line && !c.own_line) {
        tr.trailing = tr.trailing.empty() ? c.text : tr.trailing + " #" + c.text;
      } else {
        tr.leading.push_back(c.text);  // a comment inside a multi-line statement moves above it
      }
      ++next_comment_;
    }
  }

  // ---- kernel ----
  Kernel parse_kernel() {
    Kernel k;
    const Token& kw = peek();
    k.trivia = take_leading(kw);
    advance();
    try {
      if (!at(Tok::ident)) fail(peek().loc, "expected the kernel's name after `kernel`", "write `kernel my_kernel`");
      k.loc = peek().loc;
      k.name = advance().text;
      end_statement("the kernel's name");
    } catch (ParseError&) {
      skip_line();
    }
    take_trailing(k.trivia);
    while (!at(Tok::eof) && !at_block_start() && !diags_.full()) {
      KernelStmt st;
      st.loc = peek().loc;
      st.trivia = take_leading(peek());
      try {
        st.node = parse_kernel_stmt();
        take_trailing(st.trivia);
        k.stmts.push_back(std::move(st));
      } catch (ParseError&) {
        skip_line();
        take_trailing(st.trivia);
      }
    }
    return k;
  }

  decltype(KernelStmt::node) parse_kernel_stmt() {
    const Token& t = peek();
    if (t.kind != Tok::ident)
      fail(t.loc, fmt::format("expected a statement, found {}", describe(t)),
           "kernel statements are `dim`, `const`, `in`, `out`, `pattern`, `category`, `domain`, or a stage "
           "definition like `Y[i, j] = X[i, j] * 2.0`");
    if (t.text == "pattern" || t.text == "category" || t.text == "domain") {
      MetaStmt m;
      m.key = advance().text;
      m.loc = t.loc;
      if (!at(Tok::ident))
        fail(peek().loc, fmt::format("expected a name after `{}`", m.key),
             fmt::format("write for example `{} {}`", m.key,
                         m.key == "category" ? "gemm" : m.key == "domain" ? "vision" : "matmul"));
      m.value_loc = peek().loc;
      m.value = advance().text;
      end_statement(("`" + m.key + " " + m.value + "`").c_str());
      return m;
    }
    if (t.text == "dim" || t.text == "const") {
      bool is_dim = t.text == "dim";
      const char* example = is_dim ? "write `dim N = 128, C = 64`" : "write `const eps = 1e-5, scale = 0.125`";
      advance();
      std::vector<NamedValue> defs;
      do {
        NamedValue def;
        def.loc = peek().loc;
        def.name = expect_name(is_dim ? "a dimension name after `dim`" : "a constant name after `const`", example);
        expect(Tok::assign, is_dim ? "after the dimension name" : "after the constant name", example);
        def.value = parse_expr().e;
        defs.push_back(std::move(def));
      } while (accept(Tok::comma));
      end_statement(is_dim ? "the `dim` statement" : "the `const` statement");
      if (is_dim) return DimStmt{std::move(defs)};
      return ConstStmt{std::move(defs)};
    }
    if (t.text == "in" || t.text == "out") return parse_tensor_decl();
    return parse_stage();
  }

  TensorStmt parse_tensor_decl() {
    TensorStmt ts;
    ts.is_output = advance().text == "out";
    const char* kw = ts.is_output ? "out" : "in";
    const char* example = ts.is_output ? "out Y : f32[N, C]" : "in X : f32[N, C] ~ uniform(-1, 1)";
    ts.loc = peek().loc;
    ts.name = expect_name(fmt::format("a tensor name after `{}`", kw).c_str(), example);
    expect(Tok::colon, "between the tensor name and its type", example);
    ts.dtype_loc = peek().loc;
    std::string ty = expect_name("an element type (f64 f32 f16 bf16 i64 i32 i16 i8 u8 bool)", example);
    auto dt = dtype_from_name(ty);
    if (!dt)
      fail(ts.dtype_loc, fmt::format("unknown element type `{}`", ty),
           "element types are f64 f32 f16 bf16 i64 i32 i16 i8 u8 bool");
    ts.dtype = *dt;
    if (accept(Tok::lbracket)) ts.shape = parse_list_until(Tok::rbracket, "to close the shape", example);
    if (accept(Tok::tilde)) {
      if (ts.is_output)
        fail(toks_[pos_ - 1].loc, "an output has no input distribution",
             "remove `~ ...`; distributions are declared on `in` tensors");
      Distribution d;
      d.loc = peek().loc;
      d.kind = expect_name("a distribution after `~`",
                          "distributions: uniform(lo, hi), normal(mean, std), positive(lo, hi), "
                          "mixed(lo_exp, hi_exp), int(lo, hi), bernoulli(p)");
      if (accept(Tok::lparen)) {
        d.has_parens = true;
        d.args = parse_list_until(Tok::rparen, "to close the distribution's arguments");
      }
      ts.dist = std::move(d);
    }
    end_statement("the tensor declaration");
    return ts;
  }

  // `depth` (if given) is raised to the extent's depth.
  IndexVarDecl parse_index_var_decl(const char* where, const char* example, int* depth = nullptr) {
    IndexVarDecl v;
    v.loc = peek().loc;
    v.name = expect_name(fmt::format("an index variable {}", where).c_str(), example);
    if (accept(Tok::lt)) {
      Sub extent = parse_binary(kAdditivePrec);
      if (depth) *depth = std::max(*depth, extent.depth);
      v.extent = std::move(extent.e);
    }
    return v;
  }

  StageStmt parse_stage() {
    StageStmt s;
    s.loc = peek().loc;
    s.name = advance().text;
    if (accept(Tok::lbracket)) {
      if (!at(Tok::rbracket)) {
        do {
          s.lhs.push_back(parse_index_var_decl("on the left of `=`", "write `Y[i, j] = ...`, or `P[h < H + 2] = ...` to give a range"));
        } while (accept(Tok::comma));
      }
      expect(Tok::rbracket, "to close the stage's indices", "write `Y[i, j] = ...`");
    } else {
      s.bracketed = false;
    }
    if (!at(Tok::assign)) {
      fail(peek().loc,
           fmt::format("expected `=` in the definition of `{}`, found {}", s.name, describe(peek())),
           fmt::format("a stage is written `{}[i, j] = expression`; other statements start with dim, const, in, out, "
                       "pattern, category or domain", s.name));
    }
    advance();
    if (at(Tok::ident) && peek().text == "scan" && peek(1).kind == Tok::lparen) {
      // A recurrence: `scan(t)` names the left-side variable its steps follow; the body is the rest.
      s.scan_loc = advance().loc;
      advance();
      s.scan_var = expect_name("the variable the recurrence steps along", "write `S[t, c] = scan(t) ...`");
      expect(Tok::rparen, "to close `scan(...)`", "write `scan(t)` with one left-side variable");
    }
    s.rhs = parse_expr().e;
    end_statement("the stage definition");
    return s;
  }

  // ---- expressions ----
  static constexpr int kAdditivePrec = 9;

  // The binary operator a token spells, if any.
  static std::optional<BinOp> binop_of(Tok t) {
    switch (t) {
      case Tok::or_or: return BinOp::lor;
      case Tok::and_and: return BinOp::land;
      case Tok::pipe: return BinOp::bor;
      case Tok::caret: return BinOp::bxor;
      case Tok::amp: return BinOp::band;
      case Tok::eq: return BinOp::eq;
      case Tok::ne: return BinOp::ne;
      case Tok::lt: return BinOp::lt;
      case Tok::le: return BinOp::le;
      case Tok::gt: return BinOp::gt;
      case Tok::ge: return BinOp::ge;
      case Tok::shl: return BinOp::shl;
      case Tok::shr: return BinOp::shr;
      case Tok::plus: return BinOp::add;
      case Tok::minus: return BinOp::sub;
      case Tok::star: return BinOp::mul;
      case Tok::slash: return BinOp::div;
      case Tok::percent: return BinOp::mod;
      default: return std::nullopt;
    }
  }
  // A parsed expression and the depth of its tree: a name or number is 1, a node one more than its
  // deepest operand.
  struct Sub {
    ExprPtr e;
    int depth = 1;
  };

  // Parsing an operand of a node (`counter` is open_) or what a parenthesis holds (parens_).
  struct Nest {
    Parser& p;
    int& counter;
    Nest(Parser& pp, int& c, Loc loc) : p(pp), counter(c) {
      // The operand of a node with `c` nodes open above it makes a tree of at least c + 2 levels
      // (those nodes, this one, the operand); a parenthesis inside `c` others is the (c + 1)th.
      int deepest = &c == &p.parens_ ? c + 1 : c + 2;
      if (deepest > kMaxExprDepth) p.too_deep(loc, &c == &p.parens_);
      ++counter;
    }
    ~Nest() { --counter; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
  };

  // `e` over operands whose deepest has `operand_depth` levels.
  Sub node(ExprPtr e, int operand_depth) {
    if (operand_depth + 1 > kMaxExprDepth) {
      if (e->kind == ExprKind::binary) too_deep_chain(e->loc, e->binop);
      too_deep(e->loc, false);
    }
    return {std::move(e), operand_depth + 1};
  }

  static constexpr const char* kSplitFix =
      "split the expression into several stages: a stage `T[i] = ...` holds an inner part, and the outer "
      "expression reads `T[i]`";
  [[noreturn]] void too_deep(Loc loc, bool parentheses) {
    if (parentheses)
      fail(loc, fmt::format("parentheses nested more than {} levels deep", kMaxExprDepth),
           fmt::format("remove parentheses around a single operand, or {}", kSplitFix));
    fail(loc, fmt::format("expression nested more than {} levels deep", kMaxExprDepth), kSplitFix);
  }
  // A left-associative chain `a + b + c ...` is a tree one level deeper per operator.
  [[noreturn]] void too_deep_chain(Loc loc, BinOp op) {
    std::string msg = fmt::format("expression nested more than {} levels deep: a chain `a {} b {} c ...` nests one level per `{}`",
                                  kMaxExprDepth, spelling(op), spelling(op), spelling(op));
    if (op == BinOp::add || op == BinOp::mul)
      fail(loc, msg,
           fmt::format("write the terms as a reduction over an index, e.g. `{}(k) X[i, k]`, or {}",
                       op == BinOp::add ? "sum" : "prod", kSplitFix));
    fail(loc, msg, kSplitFix);
  }

  Sub parse_expr() { return parse_binary(1); }

  // `a, b, c` up to and including `close` (the opening bracket is already consumed); may be empty.
  // `depth` (if given) receives the deepest item's depth.
  std::vector<ExprPtr> parse_list_until(Tok close, const std::string& what, const char* fix = nullptr,
                                        int* depth = nullptr) {
    std::vector<ExprPtr> items;
    int deepest = 0;
    if (!at(close)) {
      do {
        Sub item = parse_expr();
        deepest = std::max(deepest, item.depth);
        items.push_back(std::move(item.e));
      } while (accept(Tok::comma));
    }
    expect(close, what.c_str(), fix);
    if (depth) *depth = deepest;
    return items;
  }

  Sub parse_binary(int min_prec) {
    Sub lhs = parse_unary();
    while (true) {
      auto op = binop_of(peek().kind);
      if (!op || precedence(*op) < min_prec) break;
      int prec = precedence(*op);
      Loc oploc = advance().loc;
      Sub rhs;
      {
        Nest n(*this, open_, peek().loc);
        rhs = parse_binary(prec + 1);
      }
      auto e = std::make_unique<Expr>(ExprKind::binary, oploc);
      e->binop = *op;
      e->args.push_back(std::move(lhs.e));
      e->args.push_back(std::move(rhs.e));
      lhs = node(std::move(e), std::max(lhs.depth, rhs.depth));
      auto next = binop_of(peek().kind);
      if (is_comparison(*op) && next && precedence(*next) == prec)
        fail(peek().loc, "comparisons cannot be chained",
             "write `(a < b) && (b < c)` instead of `a < b < c`");
    }
    return lhs;
  }

  Sub parse_unary() {
    const Token& t = peek();
    if (t.kind == Tok::minus || t.kind == Tok::bang || t.kind == Tok::tilde) {
      advance();
      auto e = std::make_unique<Expr>(ExprKind::unary, t.loc);
      e->unop = t.kind == Tok::minus ? UnOp::neg : t.kind == Tok::bang ? UnOp::lnot : UnOp::bnot;
      Nest n(*this, open_, peek().loc);
      Sub operand = parse_unary();
      e->args.push_back(std::move(operand.e));
      return node(std::move(e), operand.depth);
    }
    return parse_primary();
  }

  // After `name(` ... `)`, does an operand follow? Then `max(...)`/`min(...)` is a reduction.
  bool paren_group_followed_by_operand(size_t lparen_index) const {
    int depth = 0;
    for (size_t i = lparen_index; i < toks_.size(); ++i) {
      Tok k = toks_[i].kind;
      if (k == Tok::lparen) ++depth;
      if (k == Tok::rparen && --depth == 0) {
        if (i + 1 >= toks_.size()) return false;
        Tok n = toks_[i + 1].kind;
        return n == Tok::ident || n == Tok::int_lit || n == Tok::float_lit || n == Tok::lparen ||
               n == Tok::bang || n == Tok::tilde;
      }
      if (k == Tok::newline || k == Tok::eof) return false;
    }
    return false;
  }

  Sub parse_primary() {
    const Token& t = peek();
    switch (t.kind) {
      case Tok::int_lit: {
        advance();
        auto e = std::make_unique<Expr>(ExprKind::int_lit, t.loc);
        e->text = t.text;
        return {std::move(e)};
      }
      case Tok::float_lit: {
        advance();
        auto e = std::make_unique<Expr>(ExprKind::float_lit, t.loc);
        e->text = t.text;
        return {std::move(e)};
      }
      case Tok::lparen: {
        advance();
        Nest n(*this, parens_, t.loc);
        Sub inner = parse_expr();
        expect(Tok::rparen, "to close `(`");
        return inner;
      }
      case Tok::ident:
        break;
      default:
        fail(t.loc, fmt::format("expected an expression, found {}", describe(t)),
             "an expression is a number, a name, a tensor read like X[i, j], a call like exp(x), or a "
             "reduction like sum(k) A[i, k]");
    }
    advance();
    if (t.text == "true" || t.text == "false") {
      auto e = std::make_unique<Expr>(ExprKind::bool_lit, t.loc);
      e->text = t.text;
      return {std::move(e)};
    }
    if (at(Tok::lbracket)) {
      advance();
      auto e = std::make_unique<Expr>(ExprKind::access, t.loc);
      e->text = t.text;
      int depth = 0;
      {
        Nest n(*this, open_, peek().loc);
        e->args = parse_list_until(Tok::rbracket, fmt::format("to close the read of `{}`", t.text), nullptr, &depth);
      }
      return node(std::move(e), depth);
    }
    if (at(Tok::lparen)) {
      bool reduction = t.text == "sum" || t.text == "prod" ||
                       ((t.text == "max" || t.text == "min") && paren_group_followed_by_operand(pos_));
      if (reduction) return parse_reduction(t);
      advance();
      auto e = std::make_unique<Expr>(ExprKind::call, t.loc);
      e->text = t.text;
      int depth = 0;
      {
        Nest n(*this, open_, peek().loc);
        e->args = parse_list_until(Tok::rparen, fmt::format("to close the call of `{}`", t.text), nullptr, &depth);
      }
      return node(std::move(e), depth);
    }
    auto e = std::make_unique<Expr>(ExprKind::name, t.loc);
    e->text = t.text;
    return {std::move(e)};
  }

  Sub parse_reduction(const Token& t) {
    auto e = std::make_unique<Expr>(ExprKind::reduce, t.loc);
    e->text = t.text;
    e->redop = t.text == "sum" ? ReduceOp::sum : t.text == "prod" ? ReduceOp::prod
             : t.text == "max" ? ReduceOp::max : ReduceOp::min;
    expect(Tok::lparen, "after the reduction");
    std::string example = fmt::format("write `{}(k) A[i, k]` or `{}(k < 3) A[i + k]`", t.text, t.text);
    if (at(Tok::rparen))
      fail(peek().loc, fmt::format("`{}(...)` needs at least one reduction variable", t.text), example);
    Nest n(*this, open_, peek().loc);  // the extents and the body are the reduction's operands
    int depth = 0;
    do {
      e->rvars.push_back(parse_index_var_decl("in the reduction", example.c_str(), &depth));
    } while (accept(Tok::comma));
    if (!at(Tok::rparen))
      fail(peek().loc, fmt::format("expected `)` after the reduction variables, found {}", describe(peek())), example);
    advance();
    if (at(Tok::newline) || at(Tok::eof) || at(Tok::rparen) || at(Tok::comma) || at(Tok::rbracket))
      fail(peek().loc, fmt::format("the reduction `{}(...)` has no body", t.text), example);
    Sub body = parse_expr();
    e->args.push_back(std::move(body.e));
    return node(std::move(e), std::max(depth, body.depth));
  }

  // ---- schedule / memory sections ----
  Section parse_section() {
    Section s;
    const Token& kw = peek();
    s.trivia = take_leading(kw);
    s.loc = kw.loc;
    s.layer = kw.text == "schedule" ? Layer::schedule : Layer::memory;
    advance();
    try {
      s.backend_loc = peek().loc;
      s.backend = expect_name(fmt::format("a backend after `{}`", kw.text).c_str(),
                              "write `schedule cpu`, `schedule cuda` or `schedule opencl`");
      end_statement("the section header");
    } catch (ParseError&) {
      skip_line();
    }
    take_trailing(s.trivia);
    while (!at(Tok::eof) && !at_block_start() && !diags_.full()) {
      ScheduleLine line;
      line.trivia = take_leading(peek());
      try {
        line.loc = peek().loc;
        line.stage = expect_name("a stage name at the start of the line", "write `STAGE: directive args; directive args`");
        Loc colon = expect(Tok::colon, "after the stage name", "write `Y: split i 8 -> io ii; parallel io`").loc;
        if (at(Tok::newline) || at(Tok::eof))
          fail(colon, fmt::format("no directives after `{}:`", line.stage),
               "write directives after the colon, e.g. `Y: split i 8 -> io ii; parallel io`");
        do {
          if (at(Tok::newline) || at(Tok::eof)) break;  // a trailing `;`
          line.directives.push_back(parse_directive());
        } while (accept(Tok::semicolon));
        end_statement("the directives");
        take_trailing(line.trivia);
        s.lines.push_back(std::move(line));
      } catch (ParseError&) {
        skip_line();
        take_trailing(line.trivia);
      }
    }
    return s;
  }

  DirectiveArg parse_directive_arg() {
    DirectiveArg a;
    a.loc = peek().loc;
    if (at(Tok::minus) && peek(1).kind == Tok::int_lit) {  // a negative number: kept, and rejected by the directive
      advance();
      DirectiveArg n = parse_directive_arg();
      n.text = "-" + n.text;
      n.value = -n.value;
      n.loc = a.loc;
      n.loc.len = static_cast<int>(n.text.size());
      return n;
    }
    if (at(Tok::int_lit)) {
      a.text = advance().text;
      a.is_int = true;
      auto [p, ec] = std::from_chars(a.text.data(), a.text.data() + a.text.size(), a.value);
      if (ec != std::errc() || p != a.text.data() + a.text.size())
        fail(a.loc, fmt::format("the integer `{}` is too large", a.text), "use a value below 2^63");
      return a;
    }
    if (!at(Tok::ident))
      fail(peek().loc, fmt::format("expected a name or an integer, found {}", describe(peek())),
           "directive arguments are axis or stage names and integers, e.g. `split i 8 -> io ii`");
    a.text = advance().text;
    if (at(Tok::dot) && peek(1).kind == Tok::ident) {  // thread.x, block.y
      advance();
      a.text += "." + advance().text;
      a.loc.len = static_cast<int>(a.text.size());
    }
    return a;
  }

  Directive parse_directive() {
    Directive d;
    d.loc = peek().loc;
    d.name = expect_name("a directive", "directives include split, fuse, reorder, tile, parallel, vectorize, unroll, "
                                        "bind, inline, compute_at, store_at, cache_read, cache_write, rfactor");
    while (at(Tok::ident) || at(Tok::int_lit) || (at(Tok::minus) && peek(1).kind == Tok::int_lit))
      d.args.push_back(parse_directive_arg());
    if (accept(Tok::arrow)) {
      d.has_arrow = true;
      while (at(Tok::ident)) d.outs.push_back(parse_directive_arg());
      if (d.outs.empty())
        fail(peek().loc, "expected names after `->`", "write for example `split i 8 -> io ii`");
    }
    if (!at(Tok::semicolon) && !at(Tok::newline) && !at(Tok::eof))
      fail(peek().loc, fmt::format("unexpected {} in directive `{}`", describe(peek()), d.name),
           "separate directives with `;`, e.g. `Y: split i 8 -> io ii; parallel io`");
    return d;
  }

  // ---- workloads ----
  WorkloadsSection parse_workloads() {
    WorkloadsSection ws;
    const Token& kw = peek();
    ws.trivia = take_leading(kw);
    ws.loc = kw.loc;
    advance();
    try {
      end_statement("`workloads`");
    } catch (ParseError&) {
      skip_line();
    }
    take_trailing(ws.trivia);
    const char* example = "write `matmul_256: M = 256, N = 256, K = 256` (optionally `, domain = audio`)";
    while (!at(Tok::eof) && !at_block_start() && !diags_.full()) {
      Workload w;
      w.trivia = take_leading(peek());
      try {
        w.loc = peek().loc;
        w.name = expect_name("a workload name", example);
        expect(Tok::colon, "after the workload name", example);
        if (!at(Tok::newline) && !at(Tok::eof)) {
          do {
            WorkloadItem it;
            it.loc = peek().loc;
            it.key = expect_name("a dimension name", example);
            expect(Tok::assign, "after the dimension name", example);
            if (it.key == "domain") {
              it.word_loc = peek().loc;
              it.word = expect_name("a domain name", "write `domain = audio`");
            } else {
              it.value = parse_expr().e;
            }
            w.items.push_back(std::move(it));
          } while (accept(Tok::comma));
        }
        end_statement("the workload");
        take_trailing(w.trivia);
        ws.items.push_back(std::move(w));
      } catch (ParseError&) {
        skip_line();
        take_trailing(w.trivia);
      }
    }
    return ws;
  }
};

}  // namespace

Module parse_module(const SourcePtr& src, DiagnosticList& diags) {
  Parser p(src, diags);
  return p.run();
}

bool is_reserved_word(const std::string& name) {
  for (const char* k : kKeywords)
    if (name == k) return true;
  if (dtype_from_name(name)) return true;
  return function_from_name(name).has_value();
}

std::optional<Fn> function_from_name(const std::string& name) {
  for (const auto& f : kFunctions)
    if (name == f.name) return f.fn;
  return std::nullopt;
}

const char* function_name(Fn fn) {
  for (const auto& f : kFunctions)
    if (f.fn == fn) return f.name;
  return "cast";
}

ExprPtr Expr::clone() const {
  auto e = std::make_unique<Expr>(kind, loc);
  e->text = text;
  e->unop = unop;
  e->binop = binop;
  e->redop = redop;
  for (const auto& a : args) e->args.push_back(a->clone());
  for (const auto& v : rvars) e->rvars.push_back({v.name, v.loc, v.extent ? v.extent->clone() : nullptr});
  e->type = type;
  e->weak = weak;
  e->ref = ref;
  e->id = id;
  e->fn = fn;
  e->cast_to = cast_to;
  e->rvar_ids = rvar_ids;
  e->ival = ival;
  e->fval = fval;
  return e;
}

}  // namespace ekb
