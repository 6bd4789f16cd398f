// Tokens of the .ekb text format. The format is line-oriented: a newline ends a statement, except
// inside brackets or after a token that cannot end one (a binary operator, a comma, `=`, `->`).
#pragma once
#include <string>
#include <vector>

#include "util/diagnostics.h"
#include "util/source.h"

namespace ekb {

enum class Tok {
  ident, int_lit, float_lit,
  lparen, rparen, lbracket, rbracket, comma, colon, semicolon, assign, arrow, tilde, dot,
  plus, minus, star, slash, percent,
  lt, le, gt, ge, eq, ne, and_and, or_or, bang, amp, pipe, caret, shl, shr,
  newline, eof,
};

const char* tok_spelling(Tok t);  // for messages: "`(`", "a newline", ...

struct Comment {
  int line;
  std::string text;  // without the leading '#', without trailing spaces
  bool own_line;     // nothing but whitespace before it on its line
};

struct Token {
  Tok kind;
  std::string text;
  Loc loc;
  bool blank_line_before = false;  // an empty line (or comment-only lines and one empty) precedes it
};

struct LexResult {
  std::vector<Token> tokens;  // ends with eof
  std::vector<Comment> comments;
};

// Splits `src` into tokens. Lexical errors (a stray character, a malformed number) are reported in
// `diags` and the offending characters skipped.
LexResult lex(const SourcePtr& src, DiagnosticList& diags);

}  // namespace ekb
