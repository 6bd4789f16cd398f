// Operator table.
#include "ir/operators.h"

namespace ekb {

int precedence(BinOp op) {
  switch (op) {
    case BinOp::lor: return 1;
    case BinOp::land: return 2;
    case BinOp::bor: return 3;
    case BinOp::bxor: return 4;
    case BinOp::band: return 5;
    case BinOp::eq: case BinOp::ne: return 6;
    case BinOp::lt: case BinOp::le: case BinOp::gt: case BinOp::ge: return 7;
    case BinOp::shl: case BinOp::shr: return 8;
    case BinOp::add: case BinOp::sub: return 9;
    case BinOp::mul: case BinOp::div: case BinOp::mod: return 10;
  }
  return 0;
}

const char* spelling(BinOp op) {
  switch (op) {
    case BinOp::add: return "+";
    case BinOp::sub: return "-";
    case BinOp::mul: return "*";
    case BinOp::div: return "/";
    case BinOp::mod: return "%";
    case BinOp::lt: return "<";
    case BinOp::le: return "<=";
    case BinOp::gt: return ">";
    case BinOp::ge: return ">=";
    case BinOp::eq: return "==";
    case BinOp::ne: return "!=";
    case BinOp::land: return "&&";
    case BinOp::lor: return "||";
    case BinOp::band: return "&";
    case BinOp::bor: return "|";
    case BinOp::bxor: return "^";
    case BinOp::shl: return "<<";
    case BinOp::shr: return ">>";
  }
  return "?";
}

bool is_comparison(BinOp op) { return precedence(op) == 6 || precedence(op) == 7; }

}  // namespace ekb
