// The .ekb lexer: identifiers, numbers, operators, comments and significant newlines.
#include "ir/lexer.h"

#include <cctype>

namespace ekb {

const char* tok_spelling(Tok t) {
  switch (t) {
    case Tok::ident: return "a name";
    case Tok::int_lit: return "an integer";
    case Tok::float_lit: return "a number";
    case Tok::lparen: return "`(`";
    case Tok::rparen: return "`)`";
    case Tok::lbracket: return "`[`";
    case Tok::rbracket: return "`]`";
    case Tok::comma: return "`,`";
    case Tok::colon: return "`:`";
    case Tok::semicolon: return "`;`";
    case Tok::assign: return "`=`";
    case Tok::arrow: return "`->`";
    case Tok::tilde: return "`~`";
    case Tok::dot: return "`.`";
    case Tok::plus: return "`+`";
    case Tok::minus: return "`-`";
    case Tok::star: return "`*`";
    case Tok::slash: return "`/`";
    case Tok::percent: return "`%`";
    case Tok::lt: return "`<`";
    case Tok::le: return "`<=`";
    case Tok::gt: return "`>`";
    case Tok::ge: return "`>=`";
    case Tok::eq: return "`==`";
    case Tok::ne: return "`!=`";
    case Tok::and_and: return "`&&`";
    case Tok::or_or: return "`||`";
    case Tok::bang: return "`!`";
    case Tok::amp: return "`&`";
    case Tok::pipe: return "`|`";
    case Tok::caret: return "`^`";
    case Tok::shl: return "`<<`";
    case Tok::shr: return "`>>`";
    case Tok::newline: return "the end of the line";
    case Tok::eof: return "the end of the file";
  }
  return "?";
}

namespace {

// A newline after one of these continues the statement on the next line.
bool continues_line(Tok t) {
  switch (t) {
    case Tok::plus: case Tok::minus: case Tok::star: case Tok::slash: case Tok::percent:
    case Tok::lt: case Tok::le: case Tok::gt: case Tok::ge: case Tok::eq: case Tok::ne:
    case Tok::and_and: case Tok::or_or: case Tok::amp: case Tok::pipe: case Tok::caret:
    case Tok::shl: case Tok::shr: case Tok::comma: case Tok::assign: case Tok::arrow:
    case Tok::tilde: case Tok::lparen: case Tok::lbracket: case Tok::semicolon: case Tok::colon:
      return true;
    default:
      return false;
  }
}

struct Lexer {
  const SourcePtr& src;
  DiagnosticList& diags;
  const std::string& s;
  size_t i = 0;
  int line = 1;
  size_t line_start = 0;
  int depth = 0;  // open ( and [
  bool pending_blank = false;
  bool line_has_token = false;
  bool line_has_comment = false;
  LexResult out;

  Lexer(const SourcePtr& src_, DiagnosticList& d) : src(src_), diags(d), s(src_->text) {}

  int col() const { return static_cast<int>(i - line_start) + 1; }

  void push(Tok k, size_t begin, std::string text) {
    Token t;
    t.kind = k;
    t.text = std::move(text);
    t.loc = {line, static_cast<int>(begin - line_start) + 1, static_cast<int>(i - begin)};
    t.blank_line_before = pending_blank;
    pending_blank = false;
    line_has_token = true;
    out.tokens.push_back(std::move(t));
  }

  // Does the next line start with a word that only begins a statement or a block? Then the current
  // statement ends here even if it looks unfinished, so a missing value is reported where it is missing
  // instead of swallowing the next statement.
  bool next_line_starts_statement() const {
    size_t j = i + 1;
    // Skip empty and comment-only lines.
    while (true) {
      while (j < s.size() && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r')) ++j;
      if (j < s.size() && s[j] == '#') {
        while (j < s.size() && s[j] != '\n') ++j;
      }
      if (j < s.size() && s[j] == '\n') {
        ++j;
        continue;
      }
      break;
    }
    size_t b = j;
    while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
    std::string_view w(s.data() + b, j - b);
    if (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) return false;
    static constexpr std::string_view kStarters[] = {"kernel", "schedule", "memory", "workloads", "dim",
                                                     "const", "in", "out", "pattern", "category", "domain"};
    for (auto k : kStarters)
      if (w == k) return j >= s.size() || s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r';
    return false;
  }

  void newline() {
    bool had = line_has_token;
    bool last_is_newline = out.tokens.empty() || out.tokens.back().kind == Tok::newline;
    bool force_end = had && next_line_starts_statement();
    if (force_end) depth = 0;
    if (depth == 0 && had && !out.tokens.empty() && (force_end || !continues_line(out.tokens.back().kind))) {
      Token t;
      t.kind = Tok::newline;
      t.loc = {line, col(), 1};
      out.tokens.push_back(std::move(t));
    } else if (!had && !line_has_comment && last_is_newline && !out.tokens.empty()) {
      // An empty line between statements.
      pending_blank = true;
    }
    ++i;
    ++line;
    line_start = i;
    line_has_token = false;
    line_has_comment = false;
  }

  void number(size_t begin) {
    bool is_float = false;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i < s.size() && s[i] == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1]))) {
      is_float = true;
      ++i;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    } else if (i < s.size() && s[i] == '.' && (i + 1 >= s.size() || !std::isalpha(static_cast<unsigned char>(s[i + 1])))) {
      // "1." is a float; "1.x" is not a number followed by a member.
      is_float = true;
      ++i;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
      size_t save = i;
      ++i;
      if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
      if (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
        is_float = true;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      } else {
        i = save;
        Loc loc{line, col(), 1};
        diags.error(src, loc, "malformed number: an exponent needs digits after `e`",
                    "write for example 1e-5 or 2.5e3");
        ++i;
        while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '+' || s[i] == '-')) ++i;
        return;
      }
    }
    if (i < s.size() && (std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '_')) {
      size_t bad = i;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
      Loc loc{line, static_cast<int>(begin - line_start) + 1, static_cast<int>(i - begin)};
      diags.error(src, loc, "malformed number `" + s.substr(begin, i - begin) + "`",
                  "numbers are written like 3, 0.5 or 1e-5; names cannot start with a digit");
      (void)bad;
      return;
    }
    push(is_float ? Tok::float_lit : Tok::int_lit, begin, s.substr(begin, i - begin));
  }

  void run() {
    while (i < s.size()) {
      char c = s[i];
      size_t begin = i;
      if (c == '\n') {
        newline();
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r') {
        ++i;
        continue;
      }
      if (c == '#') {
        bool own = !line_has_token;
        size_t end = s.find('\n', i);
        if (end == std::string::npos) end = s.size();
        std::string text = s.substr(i + 1, end - i - 1);
        while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.pop_back();
        out.comments.push_back({line, text, own});
        line_has_comment = true;
        i = end;
        continue;
      }
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
        push(Tok::ident, begin, s.substr(begin, i - begin));
        continue;
      }
      if (std::isdigit(static_cast<unsigned char>(c)) ||
          (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
        number(begin);
        continue;
      }
      auto two = [&](char next) { return i + 1 < s.size() && s[i + 1] == next; };
      Tok k;
      size_t n = 1;
      switch (c) {
        case '(': k = Tok::lparen; ++depth; break;
        case ')': k = Tok::rparen; if (depth > 0) --depth; break;
        case '[': k = Tok::lbracket; ++depth; break;
        case ']': k = Tok::rbracket; if (depth > 0) --depth; break;
        case ',': k = Tok::comma; break;
        case ':': k = Tok::colon; break;
        case ';': k = Tok::semicolon; break;
        case '~': k = Tok::tilde; break;
        case '.': k = Tok::dot; break;
        case '+': k = Tok::plus; break;
        case '*': k = Tok::star; break;
        case '/': k = Tok::slash; break;
        case '%': k = Tok::percent; break;
        case '^': k = Tok::caret; break;
        case '-': if (two('>')) { k = Tok::arrow; n = 2; } else k = Tok::minus; break;
        case '=': if (two('=')) { k = Tok::eq; n = 2; } else k = Tok::assign; break;
        case '!': if (two('=')) { k = Tok::ne; n = 2; } else k = Tok::bang; break;
        case '<':
          if (two('=')) { k = Tok::le; n = 2; }
          else if (two('<')) { k = Tok::shl; n = 2; }
          else k = Tok::lt;
          break;
        case '>':
          if (two('=')) { k = Tok::ge; n = 2; }
          else if (two('>')) { k = Tok::shr; n = 2; }
          else k = Tok::gt;
          break;
        case '&': if (two('&')) { k = Tok::and_and; n = 2; } else k = Tok::amp; break;
        case '|': if (two('|')) { k = Tok::or_or; n = 2; } else k = Tok::pipe; break;
        default: {
          // Skip one UTF-8 sequence as one character.
          size_t len = 1;
          unsigned char uc = static_cast<unsigned char>(c);
          if (uc >= 0xc0) while (i + len < s.size() && (static_cast<unsigned char>(s[i + len]) & 0xc0) == 0x80) ++len;
          Loc loc{line, col(), 1};
          std::string shown = (uc >= 0x20 && uc < 0x7f) ? std::string(1, c) : "a non-ASCII or control character";
          diags.error(src, loc, "unexpected character " + (shown.size() == 1 ? "`" + shown + "`" : shown),
                      "ekb text uses ASCII names, numbers and the operators listed in docs/ir.md; `#` starts a comment");
          i += len;
          continue;
        }
      }
      i += n;
      push(k, begin, s.substr(begin, n));
    }
    if (line_has_token && !out.tokens.empty() && out.tokens.back().kind != Tok::newline) {
      Token t;
      t.kind = Tok::newline;
      t.loc = {line, col(), 1};
      out.tokens.push_back(t);
    }
    Token e;
    e.kind = Tok::eof;
    e.loc = {line, col(), 1};
    out.tokens.push_back(e);
  }
};

}  // namespace

LexResult lex(const SourcePtr& src, DiagnosticList& diags) {
  Lexer lx(src, diags);
  lx.run();
  return std::move(lx.out);
}

}  // namespace ekb
