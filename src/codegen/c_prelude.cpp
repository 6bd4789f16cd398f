// Prelude text. Vector math follows Cephes' single-precision approximations (range reduction plus
// minimax polynomials): about 1-2 ulp over the ranges that matter, far inside the f32 tolerance.
#include "codegen/c_prelude.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <cstring>
#include <map>
#include <vector>

namespace ekb::codegen {

namespace {
std::string lane_short(const std::string& lane) {
  if (lane == "float") return "f32";
  if (lane == "double") return "f64";
  if (lane == "uint8_t") return "u8";
  if (lane == "uint16_t") return "u16";
  return "i" + lane.substr(3, lane.size() - 5);  // int64_t -> i64
}
}  // namespace

std::string vec_name(const VecType& v) { return fmt::format("ekb_{}x{}", lane_short(v.lane), v.width); }

std::string vec_mask_lane(const std::string& lane) {
  if (lane == "double" || lane == "int64_t") return "int64_t";
  if (lane == "float" || lane == "int32_t") return "int32_t";
  if (lane == "int16_t" || lane == "uint16_t") return "int16_t";
  return "int8_t";
}

// The C library the generated code uses, declared here instead of #include <math.h>, <stdlib.h>,
// <string.h> and <stdint.h>: parsing those headers took about half of a small kernel's compile time
// in process (13 of 30 ms). The types come from the compiler's predefined macros, which both clang
// and gcc give; the functions are the standard ones (the compilers know them as builtins). One
// declaration per line, so that a kernel's prelude keeps only those it uses (prelude_used_by).
static std::string libc_declarations() {
  std::string out =
      "/* the C library ekb's code uses (declared, not #included: parsing the headers would double a small\n"
      "   kernel's compile time) */\n"
      "typedef __INT8_TYPE__ int8_t;\ntypedef __INT16_TYPE__ int16_t;\ntypedef __INT32_TYPE__ int32_t;\n"
      "typedef __INT64_TYPE__ int64_t;\ntypedef __UINT8_TYPE__ uint8_t;\ntypedef __UINT16_TYPE__ uint16_t;\n"
      "typedef __UINT32_TYPE__ uint32_t;\ntypedef __UINT64_TYPE__ uint64_t;\ntypedef __SIZE_TYPE__ size_t;\n"
      "#define NULL ((void*)0)\n#define INFINITY (__builtin_inff())\n#define NAN (__builtin_nanf(\"\"))\n"
      "void* memcpy(void*, const void*, size_t);\nvoid* memset(void*, int, size_t);\n"
      "int posix_memalign(void**, size_t, size_t);\nvoid free(void*);\nvoid abort(void);\n";
  const char* unary[] = {"exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "tanh", "erf", "sin", "cos",
                         "tan", "asin", "acos", "atan", "sinh", "cosh", "floor", "ceil", "round", "rint", "nearbyint", "trunc",
                         "fabs"};
  const char* binary[] = {"atan2", "pow", "fmod", "fmin", "fmax"};
  for (const char* t : {"double", "float"}) {
    std::string suffix = t[0] == 'f' ? "f" : "";
    for (const char* f : unary) out += fmt::format("{} {}{}({});\n", t, f, suffix, t);
    for (const char* f : binary) out += fmt::format("{} {}{}({}, {});\n", t, f, suffix, t, t);
  }
  return out;
}

std::string c_prelude_scalar(const Dialect& d) {
  std::string helpers = c_prelude_helpers();
  if (!d.gpu) return libc_declarations() + helpers + c_prelude_alloc();
  // The same helpers as device functions.
  std::string out;
  for (size_t at = 0, next; at < helpers.size(); at = next) {
    next = helpers.find("static inline ", at);
    if (next == std::string::npos) {
      out += helpers.substr(at);
      break;
    }
    out += helpers.substr(at, next - at) + d.device_fn + " ";
    next += std::strlen("static inline ");
  }
  return out;
}

std::string c_prelude_helpers() {
  return R"(

/* ekb semantics in C: floor division and modulo, saturating float-to-int, bf16 bits. */
static inline int64_t ekb_fdiv(int64_t a, int64_t b) { int64_t q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }
static inline int64_t ekb_fmod(int64_t a, int64_t b) { int64_t r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
static inline float ekb_fmodf_floor(float a, float b) { float r = fmodf(a, b); return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
static inline double ekb_fmod_floor(double a, double b) { double r = fmod(a, b); return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
static inline int64_t ekb_f2i(double x, int64_t lo, int64_t hi) {
  if (x != x) return 0;
  if (x <= (double)lo) return lo;
  if (x >= (double)hi) return hi;
  return (int64_t)x;
}
static inline float ekb_bf16_to_f32(uint16_t h) { uint32_t u = (uint32_t)h << 16; float f; memcpy(&f, &u, 4); return f; }
static inline uint16_t ekb_f32_to_bf16(float f) {
  uint32_t u; memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}
static inline float ekb_signf(float x) { return x > 0 ? 1.0f : x < 0 ? -1.0f : x; }
static inline double ekb_sign(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : x; }
static inline float ekb_sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }
static inline double ekb_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
/* min, max, clamp, abs and sign of operands too long to repeat in the text (the same expressions) */
static inline float ekb_min_f(float a, float b) { return a < b ? a : b; }
static inline double ekb_min_d(double a, double b) { return a < b ? a : b; }
static inline int64_t ekb_min_i(int64_t a, int64_t b) { return a < b ? a : b; }
static inline float ekb_max_f(float a, float b) { return a > b ? a : b; }
static inline double ekb_max_d(double a, double b) { return a > b ? a : b; }
static inline int64_t ekb_max_i(int64_t a, int64_t b) { return a > b ? a : b; }
static inline float ekb_clamp_f(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }
static inline double ekb_clamp_d(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }
static inline int64_t ekb_clamp_i(int64_t x, int64_t lo, int64_t hi) { return x < lo ? lo : (x > hi ? hi : x); }
static inline int64_t ekb_abs_i(int64_t x) { return x < 0 ? (int64_t)(0u - (uint64_t)x) : x; }
static inline int64_t ekb_sign_i(int64_t x) { return (x > 0) - (x < 0); }
)";
}

std::string c_prelude_alloc() {
  return R"(static void* ekb_alloc(size_t bytes) {
  void* p = NULL;
  if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0) abort();
  return p;
}
)";
}

namespace {

// The element-wise forms clang has builtins for (since the version named), each with a loop over
// libm's scalar function elsewhere, in the template's notation (@V the vector type, @S its suffix,
// @W its lanes).
std::string lane_forms() {
  struct Form {
    const char *name, *builtin, *libm;
    int clang;
  };
  static const Form forms[] = {{"rint", "roundeven", "rintf", 17}, {"floor", "floor", "floorf", 17}, {"ceil", "ceil", "ceilf", 17},
                               {"trunc", "trunc", "truncf", 17},   {"sqrt", "sqrt", "sqrtf", 18}};
  std::string out;
  for (const Form& f : forms)
    out += fmt::format(
        "static inline @V ekb_{0}_@S(@V x) {{\n  #if defined(__clang__) && __clang_major__ >= {3}\n  return __builtin_elementwise_{1}(x);\n"
        "  #else\n  @V r; for (int i = 0; i < @W; ++i) r[i] = {2}(x[i]); return r;\n  #endif\n}}\n",
        f.name, f.builtin, f.libm, f.clang);
  return out;
}

std::string vector_math_f32(int w) {
  std::string V = vec_name({"float", w}), I = vec_name({"int32_t", w}), S = V.substr(4);
  // Each function is written once with the vector type names substituted.
  std::string t = R"(
static inline @V ekb_exp_@S(@V x) {
  x = ekb_min_@S(ekb_max_@S(x, ekb_splat_@S(-87.3f)), ekb_splat_@S(88.7f));
  @V t = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f; /* round(x / ln 2) */
  @V r = x - t * 0.693359375f + t * 2.12194440e-4f;
  @V z = r * r;
  @V p = ((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r + 4.1665795894e-2f) * r + 1.6666665459e-1f) * r + 5.0000001201e-1f;
  p = p * z + r + 1.0f;
  @I e = (__builtin_convertvector(t, @I) + 127) << 23;
  return p * (@V)e;
}
static inline @V ekb_log_@S(@V x) {
  @I bits = (@I)x;
  @V e = __builtin_convertvector(((bits >> 23) & 0xff) - 126, @V);
  @V m = (@V)((bits & 0x7fffff) | 0x3f000000); /* in [0.5, 1) */
  @I small = m < 0.707106781186547524f;
  e = e - (@V)(small & (@I)ekb_splat_@S(1.0f));
  m = m + (@V)(small & (@I)m) - 1.0f;
  @V z = m * m;
  @V y = ((((((((7.0376836292e-2f * m - 1.1514610310e-1f) * m + 1.1676998740e-1f) * m - 1.2420140846e-1f) * m + 1.4249322787e-1f) * m - 1.6668057665e-1f) * m + 2.0000714765e-1f) * m - 2.4999993993e-1f) * m + 3.3333331174e-1f) * m * z;
  y = y - 2.12194440e-4f * e - 0.5f * z;
  @V r = m + y + 0.693359375f * e;
  r = ekb_blend_@S(x == 0.0f, ekb_splat_@S(-INFINITY), r);
  r = ekb_blend_@S(x < 0.0f, ekb_splat_@S(NAN), r);
  r = ekb_blend_@S(x == INFINITY, ekb_splat_@S(INFINITY), r);
  return ekb_blend_@S(x != x, x, r);
}
static inline @V ekb_sigmoid_@S(@V x) { return 1.0f / (1.0f + ekb_exp_@S(-x)); }
static inline @V ekb_expm1_@S(@V x) {
  /* exp(x) - 1, and near 0 (where that cancels) the series to x^4 */
  @V small = x * (1.0f + x * (0.5f + x * (0.16666667f + x * 0.041666668f)));
  return ekb_blend_@S(ekb_max_@S(x, -x) < 0.05f, small, ekb_exp_@S(x) - 1.0f);
}
static inline @V ekb_log1p_@S(@V x) {
  /* log(1 + x), and near 0 (where 1 + x rounds) the series to x^4 */
  @V small = x * (1.0f + x * (-0.5f + x * (0.33333334f + x * -0.25f)));
  return ekb_blend_@S(ekb_max_@S(x, -x) < 0.01f, small, ekb_log_@S(1.0f + x));
}
static inline @V ekb_exp2_@S(@V x) { return ekb_exp_@S(x * 0.693147180559945309f); }
static inline @V ekb_log2_@S(@V x) { return ekb_log_@S(x) * 1.442695040888963407f; }
static inline @V ekb_log10_@S(@V x) { return ekb_log_@S(x) * 0.434294481903251828f; }
)" + lane_forms() + R"(static inline @V ekb_tanh_@S(@V x) {
  @V a = ekb_max_@S(x, -x);
  @V big = 1.0f - 2.0f / (ekb_exp_@S(2.0f * ekb_min_@S(a, ekb_splat_@S(44.0f))) + 1.0f);
  big = ekb_blend_@S(x < 0.0f, -big, big);
  @V z = x * x;
  @V small = x + x * z * ((((-5.70498872745e-3f * z + 2.06390887954e-2f) * z - 5.37397155531e-2f) * z + 1.33314422036e-1f) * z - 3.33332819422e-1f);
  return ekb_blend_@S(a < 0.625f, small, big);
}
static inline @V ekb_erf_@S(@V x) {
  @V a = ekb_max_@S(x, -x);
  /* |x| >= 0.5: Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7) */
  @V t = 1.0f / (1.0f + 0.3275911f * a);
  @V poly = ((((1.061405429f * t - 1.453152027f) * t + 1.421413741f) * t - 0.284496736f) * t + 0.254829592f) * t;
  @V big = 1.0f - poly * ekb_exp_@S(-a * a);
  big = ekb_blend_@S(x < 0.0f, -big, big);
  /* |x| < 0.5: the Taylor series to x^11 */
  @V z = x * x;
  @V small = x * (1.1283791670955126f + z * (-0.37612638903183754f + z * (0.11283791670955126f + z * (-0.026866170645131252f + z * (0.0052239776254421878f + z * -0.00085483270234508528f)))));
  return ekb_blend_@S(a < 0.5f, small, big);
}
)";
  std::string out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '@' && i + 1 < t.size()) {
      out += t[i + 1] == 'V' ? V : t[i + 1] == 'S' ? S : t[i + 1] == 'W' ? std::to_string(w) : I;
      ++i;
    } else {
      out += t[i];
    }
  }
  return out;
}

}  // namespace

std::string c_prelude_vectors(const std::set<VecType>& used) {
  std::set<VecType> all = used;
  for (const auto& v : used) all.insert({vec_mask_lane(v.lane), v.width});
  for (const auto& v : used)
    if (v.lane == "float") all.insert({"int32_t", v.width});
  std::string out = "\n/* Vector types and helpers (GNU vector extensions). */\n";
  for (const auto& v : all) {
    std::string n = vec_name(v);
    std::string m = vec_name({vec_mask_lane(v.lane), v.width});
    out += fmt::format("typedef {} {} __attribute__((vector_size({}), aligned(sizeof({}))));\n", v.lane, n,
                       v.width * static_cast<int>(v.lane == "double" || v.lane == "int64_t" ? 8
                                                  : v.lane == "float" || v.lane == "int32_t" ? 4
                                                  : v.lane == "int16_t" || v.lane == "uint16_t" ? 2 : 1),
                       v.lane);
    (void)m;
  }
  for (const auto& v : all) {
    std::string n = vec_name(v), m = vec_name({vec_mask_lane(v.lane), v.width});
    out += fmt::format(
        "static inline {n} ekb_splat_{s}({l} x) {{ {n} r; for (int i = 0; i < {w}; ++i) r[i] = x; return r; }}\n"
        "static inline {n} ekb_load_{s}(const {l}* p) {{ {n} r; memcpy(&r, p, sizeof r); return r; }}\n"
        "static inline void ekb_store_{s}({l}* p, {n} v) {{ memcpy(p, &v, sizeof v); }}\n"
        "static inline {n} ekb_blend_{s}({m} c, {n} a, {n} b) {{ return ({n})((c & ({m})a) | (~c & ({m})b)); }}\n"
        "static inline {n} ekb_min_{s}({n} a, {n} b) {{ return ekb_blend_{s}(a < b, a, b); }}\n"
        "static inline {n} ekb_max_{s}({n} a, {n} b) {{ return ekb_blend_{s}(a > b, a, b); }}\n"
        "static inline {n} ekb_abs_{s}({n} a) {{ return ekb_max_{s}(a, -a); }}\n"
        "static inline int ekb_all_{s}({n} c) {{\n  #if defined(__clang__)\n  return __builtin_reduce_and(c) != 0;\n  #else\n"
        "  {l} a = ({l})-1; for (int i = 0; i < {w}; ++i) a &= c[i]; return a != 0;\n  #endif\n}}\n",
        fmt::arg("n", n), fmt::arg("s", n.substr(4)), fmt::arg("l", v.lane), fmt::arg("w", v.width), fmt::arg("m", m));
  }
  for (const auto& v : all)
    if (v.lane == "float") out += vector_math_f32(v.width);
  return out;
}

namespace {

// One top-level definition of a prelude: the name it defines and its text (with the comment above it).
struct PreludeItem {
  std::string name;
  std::string text;
};

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Every identifier in `text` (a word of letters, digits and '_' not starting with a digit).
std::vector<std::string> identifiers(const std::string& text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size();) {
    if (!ident_char(text[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && ident_char(text[j])) ++j;
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) out.push_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}

// The name an item's first line defines: a macro's, a typedef's (the last word before its attributes
// or the ';', after the type), or a function's (the last word before the first '(', after the type).
std::string defined_name(const std::string& line) {
  std::vector<std::string> words;
  size_t least = 2;  // a type and a name
  if (line.rfind("#define ", 0) == 0) {
    words = identifiers(line.substr(8, line.find_first_of("( ", 8) - 8));
    least = 1;
  } else if (line.rfind("typedef ", 0) == 0) {
    words = identifiers(line.substr(8, std::min(line.find("__attribute__"), line.find(';')) - 8));
  } else {
    words = identifiers(line.substr(0, line.find('(')));
  }
  if (words.size() < least) throw std::logic_error("a prelude line defines no name: " + line);
  return words.back();
}

// The prelude split into its definitions: an item starts at a line in column 0 (a comment block
// there goes with the item after it); indented lines and lines starting with '}' continue it.
std::vector<PreludeItem> prelude_items(const std::string& prelude) {
  std::vector<PreludeItem> items;
  std::string comment;
  bool in_comment = false;
  for (size_t at = 0; at < prelude.size();) {
    size_t end = prelude.find('\n', at);
    std::string line = prelude.substr(at, (end == std::string::npos ? prelude.size() : end) - at);
    at = end == std::string::npos ? prelude.size() : end + 1;
    if (in_comment || line.rfind("/*", 0) == 0) {
      comment += line + "\n";
      in_comment = line.find("*/") == std::string::npos;
      continue;
    }
    if (line.empty()) continue;
    if (line[0] == ' ' || line[0] == '}') {
      if (items.empty()) throw std::logic_error("a prelude starts with a continuation line: " + line);
      items.back().text += line + "\n";
      continue;
    }
    items.push_back({defined_name(line), std::exchange(comment, {}) + line + "\n"});
  }
  return items;
}

}  // namespace

std::string prelude_used_by(const std::string& prelude, const std::string& code) {
  std::vector<PreludeItem> items = prelude_items(prelude);
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < items.size(); ++i) by_name[items[i].name] = i;
  std::vector<bool> used(items.size(), false);
  std::vector<std::string> pending = identifiers(code);
  while (!pending.empty()) {
    std::string id = std::move(pending.back());
    pending.pop_back();
    auto it = by_name.find(id);
    if (it == by_name.end() || used[it->second]) continue;
    used[it->second] = true;
    for (std::string& d : identifiers(items[it->second].text)) pending.push_back(std::move(d));
  }
  std::string out;
  for (size_t i = 0; i < items.size(); ++i)
    if (used[i]) out += items[i].text;
  return out;
}

}  // namespace ekb::codegen
