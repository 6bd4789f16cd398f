// Inlining one stage into its readers, and the size of what that makes (loops/inlining.h).
#include "loops/inlining.h"

#include <fmt/format.h>

#include <unordered_map>

#include "ir/limits.h"

namespace ekb::lower {

lir::ExprP inline_reads(const lir::ExprP& consumer, const LStage& producer, int& site) {
  return replace_loads(consumer, producer.name, [&](const std::vector<lir::ExprP>& idx) {
    std::string suffix = fmt::format("_{}{}", producer.name, site++);
    std::vector<std::pair<std::string, lir::ExprP>> map;
    for (size_t k = 0; k < producer.vars.size(); ++k) map.push_back({producer.vars[k], idx[k]});
    lir::ExprP body = producer.value;
    if (!producer.has_reduction()) return substitute(rename_reduction_vars(body, suffix), map);
    std::vector<std::string> rv;
    for (const auto& v : producer.rvars) {
      rv.push_back(v + suffix);
      map.push_back({v, lir::var(v + suffix)});
    }
    return lir::reduce(producer.rop, rv, producer.rextents, substitute(rename_reduction_vars(body, suffix), map));
  });
}

namespace {

// Memoized over shared subexpressions, so a tree exponentially larger than its DAG is measured in
// the DAG's time.
struct Measure {
  std::unordered_map<const lir::Expr*, ExprSize> seen;
  ExprSize of(const lir::ExprP& e) {
    auto it = seen.find(e.get());
    if (it != seen.end()) return it->second;
    ExprSize s{1, 1};
    for (const auto& a : e->args) {
      ExprSize c = of(a);
      s.depth = std::max(s.depth, c.depth + 1);
      s.nodes = std::min(s.nodes + c.nodes, kMaxLoweredNodes + 1);
    }
    seen[e.get()] = s;
    return s;
  }
};

int count_reads(const lir::ExprP& e, const std::string& buffer, int cap) {
  int n = e->kind == lir::EK::load && e->name == buffer ? 1 : 0;
  for (const auto& a : e->args) {
    if (n > cap) break;
    n += count_reads(a, buffer, cap);
  }
  return n;
}

}  // namespace

ExprSize expr_size(const lir::ExprP& e) { return Measure{}.of(e); }

bool within_limits(const ExprSize& s) { return s.depth <= kMaxLoweredDepth && s.nodes <= kMaxLoweredNodes; }

std::string try_inline(const Graph& g, const LStage& producer, int& site, std::vector<std::pair<int, lir::ExprP>>* results) {
  ExprSize p = expr_size(producer.value);
  for (size_t i = 0; i < g.stages.size(); ++i) {
    const LStage& c = g.stages[i];
    if (c.name == producer.name || !reads(c.value, producer.name)) continue;
    // Each read gets a copy of the producer: too many copies are too large before they are made.
    int64_t copies = count_reads(c.value, producer.name, static_cast<int>(kMaxLoweredNodes));
    if (copies * p.nodes > kMaxLoweredNodes)
      return fmt::format("the expression of `{}` would hold more than {} operations ({} copies of `{}`'s {})", c.name,
                         kMaxLoweredNodes, copies, producer.name, p.nodes);
    lir::ExprP v = inline_reads(c.value, producer, site);
    ExprSize s = expr_size(v);
    if (s.nodes > kMaxLoweredNodes)
      return fmt::format("the expression of `{}` would hold more than {} operations", c.name, kMaxLoweredNodes);
    if (s.depth > kMaxLoweredDepth)
      return fmt::format("the expression of `{}` would nest {} levels deep once lowered, more than {}", c.name, s.depth,
                         kMaxLoweredDepth);
    if (results) results->push_back({static_cast<int>(i), std::move(v)});
  }
  return {};
}

}  // namespace ekb::lower
