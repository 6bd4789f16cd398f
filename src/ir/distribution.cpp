// Input distributions: the declared `~ kind(args)` of an input, checked against its type, or the
// default for the type when none is written (docs/ir.md, "Inputs and outputs").
#include "ir/distribution.h"

#include <fmt/format.h>

#include <cmath>

#include "util/strings.h"

namespace ekb {
namespace {

bool validate_distribution(const Distribution& dist, DType dt, const DistSpec& ds, const std::string& name,
                           const SourcePtr& src, DiagnosticList& d) {
  using K = DistSpec::Kind;
  auto bad = [&](std::string msg, std::string fix) {
    d.error(src, dist.loc, std::move(msg), std::move(fix));
    return false;
  };
  if (dt == DType::boolean && ds.kind != K::bernoulli)
    return bad(fmt::format("`{}` is bool; its values come from bernoulli(p)", name), "write `~ bernoulli(0.5)`");
  if (ds.kind == K::bernoulli && dt != DType::boolean)
    return bad("bernoulli(p) fills bool tensors only", "use int(0, 1) for 0/1 numbers");
  if (is_int(dt) && ds.kind != K::int_range)
    return bad(fmt::format("`{}` has integer type {}; its values come from int(lo, hi)", name, dtype_name(dt)),
               "write e.g. `~ int(-128, 127)`");
  switch (ds.kind) {
    case K::uniform:
      if (!(ds.a < ds.b)) return bad("uniform(lo, hi) needs lo < hi", "write e.g. uniform(-1, 1)");
      break;
    case K::normal:
      if (!(ds.b > 0)) return bad("normal(mean, std) needs std > 0", "write e.g. normal(0, 1)");
      break;
    case K::positive:
      if (!(ds.a > 0 && ds.a < ds.b)) return bad("positive(lo, hi) needs 0 < lo < hi", "write e.g. positive(0.1, 10)");
      break;
    case K::mixed:
      if (!(ds.a < ds.b) || ds.a < -30 || ds.b > 30)
        return bad("mixed(lo_exp, hi_exp) needs lo_exp < hi_exp within -30..30 (powers of ten)",
                   "write e.g. mixed(-3, 3)");
      break;
    case K::int_range:
      if (!(ds.a <= ds.b)) return bad("int(lo, hi) needs lo <= hi", "write e.g. int(0, 9)");
      if (is_int(dt) && (ds.a < static_cast<double>(int_min(dt)) || ds.b > static_cast<double>(int_max(dt))))
        return bad(fmt::format("int({}, {}) does not fit {} (range {}..{})", ds.a, ds.b, dtype_name(dt), int_min(dt), int_max(dt)),
                   "narrow the range or widen the type");
      break;
    case K::bernoulli:
      if (!(ds.a >= 0 && ds.a <= 1)) return bad("bernoulli(p) needs 0 <= p <= 1", "write e.g. bernoulli(0.5)");
      break;
  }
  if (is_float(dt)) {
    double reach = 0;
    if (ds.kind == K::normal) reach = std::fabs(ds.a) + 10 * ds.b;
    else if (ds.kind == K::mixed) reach = std::pow(10.0, ds.b);
    else reach = std::max(std::fabs(ds.a), std::fabs(ds.b));
    if (reach > float_max(dt))
      return bad(fmt::format("values of `{}` can exceed the largest {} ({})", name, dtype_name(dt), float_max(dt)),
                 "narrow the distribution");
  }
  return true;
}

}  // namespace

std::optional<DistSpec> check_distribution(const TensorStmt& t, const ConstLookup& lookup, const SourcePtr& src,
                                          DiagnosticList& d) {
  using K = DistSpec::Kind;
  DistSpec ds;
  if (!t.dist) {
    if (is_float(t.dtype)) ds = {K::uniform, -1, 1};
    else if (t.dtype == DType::boolean) ds = {K::bernoulli, 0.5, 0};
    else if (dtype_bits(t.dtype) == 8) ds = {K::int_range, static_cast<double>(int_min(t.dtype)), static_cast<double>(int_max(t.dtype))};
    else ds = {K::int_range, -1000, 1000};
    return ds;
  }
  const Distribution& dist = *t.dist;
  struct Shape { const char* name; K kind; size_t nargs; double da, db; };
  static const Shape kShapes[] = {
      {"uniform", K::uniform, 2, -1, 1}, {"normal", K::normal, 2, 0, 1},  {"positive", K::positive, 2, 0.1, 10},
      {"mixed", K::mixed, 2, -3, 3},     {"int", K::int_range, 2, 0, 0},  {"bernoulli", K::bernoulli, 1, 0.5, 0},
  };
  const Shape* shape = nullptr;
  for (const auto& s : kShapes)
    if (dist.kind == s.name) shape = &s;
  const char* list = "uniform(lo, hi), normal(mean, std), positive(lo, hi), mixed(lo_exp, hi_exp), int(lo, hi), bernoulli(p)";
  if (!shape) {
    std::string near = closest_match(dist.kind, {"uniform", "normal", "positive", "mixed", "int", "bernoulli"});
    d.error(src, dist.loc, fmt::format("unknown distribution `{}`", dist.kind),
          (near.empty() ? std::string() : fmt::format("did you mean `{}`? ", near)) + "distributions: " + list);
    return std::nullopt;
  }
  bool args_optional = shape->kind == K::uniform || shape->kind == K::normal || shape->kind == K::positive ||
                       shape->kind == K::mixed || shape->kind == K::bernoulli;
  if (dist.args.empty() && args_optional) {
    ds = {shape->kind, shape->da, shape->db};
  } else {
    if (dist.args.size() != shape->nargs) {
      d.error(src, dist.loc, fmt::format("`{}` takes {} argument(s), got {}", dist.kind, shape->nargs, dist.args.size()),
            fmt::format("distributions: {}", list));
      return std::nullopt;
    }
    double v[2] = {0, 0};
    for (size_t i = 0; i < dist.args.size(); ++i) {
      auto c = eval_const(*dist.args[i], lookup, src, d, fmt::format("the distribution of `{}`", t.name));
      if (!c) return std::nullopt;
      if (shape->kind == K::int_range && c->is_float) {
        d.error(src, dist.args[i]->loc, "the bounds of int(lo, hi) must be integers", "write e.g. int(0, 9)");
        return std::nullopt;
      }
      v[i] = c->as_double();
      if (!std::isfinite(v[i])) {
        d.error(src, dist.args[i]->loc, "distribution arguments must be finite", "use finite numbers");
        return std::nullopt;
      }
    }
    ds = {shape->kind, v[0], v[1]};
  }
  if (!validate_distribution(dist, t.dtype, ds, t.name, src, d)) return std::nullopt;
  return ds;
}

}  // namespace ekb
