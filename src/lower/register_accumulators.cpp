// The pass of register_accumulators.h.
#include "lower/register_accumulators.h"

#include <fmt/format.h>

#include <functional>
#include <optional>
#include <set>

namespace ekb::lower {

using namespace lir;

namespace {

std::string indices_text(const std::vector<ExprP>& idx) {
  std::string t;
  for (const auto& i : idx) t += to_string(i) + ",";
  return t;
}

void vars_of(const ExprP& e, std::set<std::string>& out) {
  if (e->kind == EK::var) out.insert(e->name);
  for (const auto& a : e->args) vars_of(a, out);
}

// Does `s` touch `buffer` only at `idx` (every store and every load), store it at least once, bind
// none of idx's variables, and hold no loop in lanes or across threads?
struct Check {
  const std::string& buffer;
  const std::string& idx;
  const std::set<std::string>& idx_vars;
  bool ok = true, stored = false;
  std::optional<DType> type;  // the type its reads have

  void expr(const ExprP& e) {
    if (!ok || !e) return;
    if (e->kind == EK::load && e->name == buffer) {
      if (indices_text(e->args) != idx) ok = false;
      type = e->type;
    }
    for (const auto& a : e->args) expr(a);
  }
  void stmt(const StmtP& s) {
    if (!ok || !s) return;
    switch (s->kind) {
      case SK::for_:
        if (s->loop != LoopKind::serial && s->loop != LoopKind::unrolled) ok = false;
        if (idx_vars.count(s->var)) ok = false;
        expr(s->min);
        expr(s->extent);
        break;
      case SK::let:
        if (idx_vars.count(s->var)) ok = false;
        expr(s->value);
        break;
      case SK::store:
        if (s->buffer == buffer) {
          if (indices_text(s->indices) != idx) ok = false;
          stored = true;
        }
        for (const auto& i : s->indices) expr(i);
        expr(s->value);
        break;
      case SK::allocate:
        if (s->alloc.name == buffer) ok = false;
        break;
      case SK::barrier:
      case SK::thread_reduce:
        ok = false;
        break;
      default:
        expr(s->value);
        break;
    }
    for (const auto& b : s->body) stmt(b);
  }
};

ExprP to_local(const ExprP& e, const std::string& buffer, const std::string& acc) {
  if (e->kind == EK::load && e->name == buffer) return load(acc, e->type, {});
  if (e->args.empty()) return e;
  auto c = std::make_shared<lir::Expr>(*e);
  for (auto& a : c->args) a = to_local(a, buffer, acc);
  return c;
}

StmtP stores_to_local(const StmtP& s, const std::string& buffer, const std::string& acc) {
  if (!s) return s;
  StmtP m = map_exprs(s, [&](const ExprP& e) { return to_local(e, buffer, acc); });
  std::function<StmtP(const StmtP&)> walk = [&](const StmtP& x) -> StmtP {
    if (!x) return x;
    auto c = std::make_shared<lir::Stmt>(*x);
    if (c->kind == SK::store && c->buffer == buffer) {
      c->buffer = acc;
      c->indices.clear();
    }
    for (auto& b : c->body) b = walk(b);
    return c;
  };
  return walk(m);
}

struct Pass {
  int counter = 0;
  std::set<std::string> names;  // every buffer name in the program (the locals' names avoid them)

  void collect(const StmtP& s) {
    if (!s) return;
    if (s->kind == SK::allocate) names.insert(s->alloc.name);
    if (s->kind == SK::store) names.insert(s->buffer);
    for (const auto& b : s->body) collect(b);
  }

  std::string fresh() {
    std::string n;
    do n = fmt::format("racc{}", counter++);
    while (names.count(n));
    names.insert(n);
    return n;
  }

  StmtP run(const StmtP& s) {
    if (!s) return s;
    auto c = std::make_shared<lir::Stmt>(*s);
    for (auto& b : c->body) b = run(b);
    if (c->kind != SK::block) return c;
    std::vector<StmtP> out;
    const auto& st = c->body;
    for (size_t i = 0; i < st.size(); ++i) {
      // The initial store, under the lets the realization puts around a stage's statement.
      const StmtP* at = &st[i];
      std::set<std::string> let_vars;
      while ((*at)->kind == SK::let && (*at)->body.size() == 1 && (*at)->body[0]) {
        let_vars.insert((*at)->var);
        at = &(*at)->body[0];
      }
      const StmtP& init = *at;
      if (i + 1 < st.size() && init->kind == SK::store && !init->indices.empty() && st[i + 1]->kind == SK::for_) {
        std::string idx = indices_text(init->indices);
        std::set<std::string> idx_vars;
        for (const auto& x : init->indices) vars_of(x, idx_vars);
        bool visible = true;  // (its indices read after the loops: no let of the chain in them)
        for (const auto& v : idx_vars) visible = visible && !let_vars.count(v);
        Check chk{init->buffer, idx, idx_vars, visible, false, std::nullopt};
        chk.stmt(st[i + 1]);
        // (Only a value read back in its own type: half floats and booleans are stored converted.)
        if (chk.ok && chk.stored && chk.type && *chk.type == init->value->type && *chk.type != DType::f16 && *chk.type != DType::bf16 &&
            *chk.type != DType::boolean) {
          DType t = *chk.type;
          Buffer b;
          b.name = fresh();
          b.type = t;
          b.scope = MemScope::local;
          out.push_back(allocate(b, nullptr));
          out.push_back(stores_to_local(st[i], init->buffer, b.name));
          out.push_back(stores_to_local(st[i + 1], init->buffer, b.name));
          out.push_back(store(init->buffer, init->indices, load(b.name, t, {})));
          ++i;
          continue;
        }
      }
      out.push_back(st[i]);
    }
    c->body = std::move(out);
    return c;
  }
};

}  // namespace

StmtP accumulate_in_registers(const StmtP& s) {
  Pass p;
  p.collect(s);
  return p.run(s);
}

}  // namespace ekb::lower
