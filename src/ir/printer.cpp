// The canonical printer: two-space indentation, one space around binary operators, minimal
// parentheses from operator precedence (reductions as operands are always parenthesised, since a
// reduction's body extends to the end of the expression).
#include "ir/printer.h"

#include <fmt/format.h>

#include "ir/operators.h"
#include "ir/parser.h"

namespace ekb {
namespace {

void print_vars(std::string& out, const std::vector<IndexVarDecl>& vars);

// `ctx` is the precedence the position demands: a child with lower precedence gets parentheses.
void print(std::string& out, const Expr& e, int ctx) {
  switch (e.kind) {
    case ExprKind::int_lit:
    case ExprKind::float_lit:
    case ExprKind::bool_lit:
    case ExprKind::name:
      out += e.text;
      return;
    case ExprKind::access:
      out += e.text;
      out += '[';
      for (size_t i = 0; i < e.args.size(); ++i) {
        if (i) out += ", ";
        print(out, *e.args[i], 0);
      }
      out += ']';
      return;
    case ExprKind::call:
      out += e.text;
      out += '(';
      for (size_t i = 0; i < e.args.size(); ++i) {
        if (i) out += ", ";
        print(out, *e.args[i], 0);
      }
      out += ')';
      return;
    case ExprKind::unary: {
      bool paren = ctx > kPrefixPrecedence;
      if (paren) out += '(';
      out += e.unop == UnOp::neg ? "-" : e.unop == UnOp::lnot ? "!" : "~";
      print(out, *e.args[0], kPrefixPrecedence);
      if (paren) out += ')';
      return;
    }
    case ExprKind::binary: {
      int p = precedence(e.binop);
      bool paren = ctx > p;
      if (paren) out += '(';
      bool non_assoc = is_comparison(e.binop);  // comparisons do not chain: `(a < b) < c` keeps its ()
      print(out, *e.args[0], non_assoc ? p + 1 : p);
      out += ' ';
      out += spelling(e.binop);
      out += ' ';
      print(out, *e.args[1], p + 1);  // left-associative: an equal-precedence right operand needs ()
      if (paren) out += ')';
      return;
    }
    case ExprKind::reduce: {
      bool paren = ctx > 0;
      if (paren) out += '(';
      out += e.text;
      out += '(';
      print_vars(out, e.rvars);
      out += ") ";
      print(out, *e.args[0], 0);
      if (paren) out += ')';
      return;
    }
  }
}

void print_vars(std::string& out, const std::vector<IndexVarDecl>& vars) {
  for (size_t i = 0; i < vars.size(); ++i) {
    if (i) out += ", ";
    out += vars[i].name;
    if (vars[i].extent) {
      out += " < ";
      print(out, *vars[i].extent, 9);  // the extent is parsed at additive precedence
    }
  }
}

std::string comma_exprs(const std::vector<ExprPtr>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ", ";
    print(out, *v[i], 0);
  }
  return out;
}

void emit(std::string& out, const Trivia& tr, const std::string& indent, const std::string& line,
          bool comments, bool first_in_block = false) {
  if (tr.blank_before && !first_in_block) out += '\n';
  if (comments)
    for (const auto& c : tr.leading) out += indent + "#" + c + "\n";
  out += indent + line;
  if (comments && !tr.trailing.empty()) out += "  #" + tr.trailing;
  out += '\n';
}

std::string kernel_stmt_text(const KernelStmt& st, const KernelPrintOptions& o) {
  return std::visit(
      [&](const auto& n) -> std::string {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, MetaStmt>) {
          if (n.key == "domain" && !o.domain.empty()) return "domain " + o.domain;
          return n.key + " " + n.value;
        } else if constexpr (std::is_same_v<T, DimStmt> || std::is_same_v<T, ConstStmt>) {
          std::string s = std::is_same_v<T, DimStmt> ? "dim " : "const ";
          for (size_t i = 0; i < n.defs.size(); ++i) {
            if (i) s += ", ";
            auto it = o.dims.find(n.defs[i].name);
            bool replaced = std::is_same_v<T, DimStmt> && it != o.dims.end();
            s += n.defs[i].name + " = " + (replaced ? it->second : print_expr(*n.defs[i].value));
          }
          return s;
        } else if constexpr (std::is_same_v<T, TensorStmt>) {
          std::string s = fmt::format("{} {} : {}", n.is_output ? "out" : "in", n.name, dtype_name(n.dtype));
          s += "[" + comma_exprs(n.shape) + "]";
          if (n.dist) {
            s += " ~ " + n.dist->kind;
            if (n.dist->has_parens) s += "(" + comma_exprs(n.dist->args) + ")";
          }
          return s;
        } else {
          std::string s = n.name;
          if (n.bracketed) {
            s += '[';
            print_vars(s, n.lhs);
            s += ']';
          }
          s += " = ";
          if (!n.scan_var.empty()) s += "scan(" + n.scan_var + ") ";
          s += print_expr(*n.rhs);
          return s;
        }
      },
      st.node);
}

}  // namespace

std::string print_expr(const Expr& e) {
  std::string out;
  print(out, e, 0);
  return out;
}

std::string print_kernel(const Kernel& k, const KernelPrintOptions& o) {
  std::string out;
  emit(out, k.trivia, "", "kernel " + (o.name.empty() ? k.name : o.name), o.comments, true);
  bool has_pattern = false;
  for (const auto& st : k.stmts)
    if (auto* m = std::get_if<MetaStmt>(&st.node); m && m->key == "pattern") has_pattern = true;
  if (!o.pattern.empty() && !has_pattern) out += "  pattern " + o.pattern + "\n";
  bool first = true;
  for (const auto& st : k.stmts) {
    emit(out, st.trivia, "  ", kernel_stmt_text(st, o), o.comments, first);
    first = false;
  }
  return out;
}

std::string directive_text(const Directive& d) {
  std::string s = d.name;
  for (const auto& a : d.args) s += " " + a.text;
  if (d.has_arrow) {
    s += " ->";
    for (const auto& o : d.outs) s += " " + o.text;
  }
  return s;
}

std::string print_module(const Module& m) {
  std::string out;
  for (const auto& [block, index] : m.order) {
    if (!out.empty()) out += '\n';
    switch (block) {
      case Module::Block::kernel:
        out += print_kernel(*m.kernel);
        break;
      case Module::Block::section: {
        const Section& s = m.sections[index];
        emit(out, s.trivia, "", std::string(s.layer == Layer::schedule ? "schedule " : "memory ") + s.backend, true, true);
        bool first = true;
        for (const auto& line : s.lines) {
          std::string text = line.stage + ":";
          for (size_t i = 0; i < line.directives.size(); ++i)
            text += (i ? "; " : " ") + directive_text(line.directives[i]);
          emit(out, line.trivia, "  ", text, true, first);
          first = false;
        }
        break;
      }
      case Module::Block::workloads: {
        const WorkloadsSection& ws = *m.workloads;
        emit(out, ws.trivia, "", "workloads", true, true);
        bool first = true;
        for (const auto& w : ws.items) {
          std::string text = w.name + ":";
          for (size_t i = 0; i < w.items.size(); ++i) {
            const auto& it = w.items[i];
            text += (i ? ", " : " ") + it.key + " = " + (it.value ? print_expr(*it.value) : it.word);
          }
          emit(out, w.trivia, "  ", text, true, first);
          first = false;
        }
        break;
      }
    }
  }
  if (!m.trailing_comments.empty()) {
    if (!out.empty()) out += '\n';
    for (const auto& c : m.trailing_comments) out += "#" + c + "\n";
  }
  return out;
}

}  // namespace ekb
