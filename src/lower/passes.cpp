// Post-realization passes over the loop IR.
#include "lower/passes.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "loops/graph.h"
#include "lower/simplify.h"

namespace ekb::lower {

using namespace lir;

namespace {

// Rebuilds a statement with a function applied to its children and expressions.
StmtP map_stmt(const StmtP& s, const std::function<StmtP(const StmtP&)>& f) {
  if (!s) return s;
  auto c = std::make_shared<Stmt>(*s);
  for (auto& b : c->body) b = f(b);
  return c;
}

struct Simplifier {
  RangeScope scope;

  ExprP e(const ExprP& x) { return x ? simplify(x, scope) : x; }

  StmtP s(const StmtP& st) {
    if (!st) return st;
    switch (st->kind) {
      case SK::for_: {
        ExprP min = e(st->min), extent = e(st->extent);
        auto lo = numeric_range(min, scope);
        auto ex = numeric_range(extent, scope);
        if (lo && ex) scope.set(st->var, Range{lo->lo, lo->hi + std::max<int64_t>(ex->hi - 1, 0)});
        StmtP body = s(st->body[0]);
        scope.erase(st->var);
        return for_loop(st->var, min, extent, st->loop, body, st->gpu_axis, st->loc);
      }
      case SK::let: {
        ExprP v = e(st->value);
        auto r = numeric_range(v, scope);
        if (r) scope.set(st->var, *r);
        StmtP body = s(st->body[0]);
        scope.erase(st->var);
        return let(st->var, v, body);
      }
      case SK::store: {
        std::vector<ExprP> idx;
        for (const auto& i : st->indices) idx.push_back(e(i));
        return store(st->buffer, idx, e(st->value));
      }
      case SK::if_: {
        ExprP c = e(st->value);
        int64_t k;
        if (is_const(c, &k) || (c->kind == EK::int_imm && c->type == DType::boolean && ((k = c->ival), true)))
          return k ? s(st->body[0]) : s(st->body[1]);
        return if_then(c, s(st->body[0]), s(st->body[1]));
      }
      case SK::allocate: {
        Buffer b = st->alloc;
        for (auto& m : b.mins) m = e(m);
        return allocate(b, s(st->body[0]));
      }
      default:
        return map_stmt(st, [this](const StmtP& x) { return s(x); });
    }
  }
};

// Substitutes a variable by an expression in every expression of a statement.
StmtP substitute_stmt(const StmtP& st, const std::string& v, const ExprP& value) {
  return map_exprs(st, [&](const ExprP& x) { return substitute(x, {{v, value}}); });
}

}  // namespace

StmtP simplify_stmt(const StmtP& s) {
  Simplifier simp;
  return simp.s(s);
}

StmtP partition_vector_loops(const StmtP& s) {
  if (!s) return s;
  if (s->kind == SK::for_ && (s->loop == LoopKind::vectorized || s->loop == LoopKind::unrolled) && !is_const(s->extent)) {
    // The extent is min(W, rest) from a guarded tail: full vectors when it equals W.
    int64_t w = 0;
    if (s->extent->kind == EK::call && s->extent->fn == Fn::min) {
      if (!is_const(s->extent->args[0], &w)) is_const(s->extent->args[1], &w);
    }
    StmtP body = partition_vector_loops(s->body[0]);
    StmtP serial = for_loop(s->var, s->min, s->extent, LoopKind::serial, body);
    if (w <= 0) return serial;
    StmtP vec = for_loop(s->var, s->min, int_imm(w), s->loop, body);
    return if_then(binary(BinOp::eq, s->extent, int_imm(w), DType::boolean), vec, serial);
  }
  return map_stmt(s, partition_vector_loops);
}

namespace {

void free_vars(const ExprP& e, std::set<std::string>& out) {
  if (!e) return;
  if (e->kind == EK::var) out.insert(e->name);
  for (const auto& a : e->args) free_vars(a, out);
}

// The first `if` inside a loop within `s` whose condition reads only variables in `bound` (so it
// has the same value on every iteration of those loops); null when there is none.
ExprP invariant_condition(const StmtP& s, const std::set<std::string>& bound, bool inside_loop) {
  if (!s) return nullptr;
  if (s->kind == SK::if_ && inside_loop) {
    std::set<std::string> vars;
    free_vars(s->value, vars);
    if (std::all_of(vars.begin(), vars.end(), [&](const std::string& v) { return bound.count(v) > 0; })) return s->value;
  }
  for (const auto& b : s->body)
    if (ExprP c = invariant_condition(b, bound, inside_loop || s->kind == SK::for_)) return c;
  return nullptr;
}

// `s` with every `if` on condition `c` (the same text) replaced by the branch `value` selects.
StmtP assume(const StmtP& s, const std::string& c, bool value) {
  if (!s) return s;
  if (s->kind == SK::if_ && to_string(s->value) == c) return assume(value ? s->body[0] : (s->body.size() > 1 ? s->body[1] : nullptr), c, value);
  auto copy = std::make_shared<Stmt>(*s);
  for (auto& b : copy->body) b = assume(b, c, value);
  if (copy->kind == SK::block) std::erase(copy->body, nullptr);
  return copy;
}

constexpr int kMaxUnswitched = 3;  // conditions hoisted on one path: each doubles the code below it

StmtP unswitch(const StmtP& s, std::set<std::string>& bound, int depth);

// The body of a binder (loop, let): its invariant conditions hoisted to its top.
StmtP unswitch_body(const StmtP& body, std::set<std::string>& bound, int depth) {
  if (depth < kMaxUnswitched)
    if (ExprP c = invariant_condition(body, bound, false)) {
      std::string key = to_string(c);
      StmtP yes = unswitch(assume(body, key, true), bound, depth + 1);
      StmtP no = unswitch(assume(body, key, false), bound, depth + 1);
      return if_then(c, yes ? yes : block({}), no ? no : block({}));
    }
  return unswitch(body, bound, depth);
}

StmtP unswitch(const StmtP& s, std::set<std::string>& bound, int depth) {
  if (!s) return s;
  auto copy = std::make_shared<Stmt>(*s);
  if (s->kind == SK::for_ || s->kind == SK::let) {
    bool added = bound.insert(s->var).second;
    copy->body[0] = unswitch_body(s->body[0], bound, depth);
    if (added) bound.erase(s->var);
    return copy;
  }
  for (auto& b : copy->body) b = unswitch(b, bound, depth);
  return copy;
}

}  // namespace

StmtP unswitch_loops(const StmtP& s) {
  std::set<std::string> bound;
  return unswitch(s, bound, 0);
}

StmtP unroll_loops(const StmtP& s) {
  if (!s) return s;
  int64_t n;
  if (s->kind == SK::for_ && s->loop == LoopKind::unrolled && is_const(s->extent, &n)) {
    StmtP body = unroll_loops(s->body[0]);
    std::vector<StmtP> copies;
    for (int64_t i = 0; i < n; ++i) copies.push_back(substitute_stmt(body, s->var, simplify(add(s->min, int_imm(i)))));
    return block(copies);
  }
  if (s->kind == SK::for_ && s->loop == LoopKind::unrolled) {
    auto c = std::make_shared<Stmt>(*s);
    c->loop = LoopKind::serial;  // a dynamic extent (a guarded tail) stays a loop
    c->body = {unroll_loops(s->body[0])};
    return c;
  }
  return map_stmt(s, unroll_loops);
}

StmtP remove_trivial_loops(const StmtP& s) {
  if (!s) return s;
  int64_t n;
  if (s->kind == SK::for_ && is_const(s->extent, &n) && n == 1 && s->loop != LoopKind::gpu_block &&
      s->loop != LoopKind::gpu_thread)
    return remove_trivial_loops(substitute_stmt(s->body[0], s->var, s->min));
  // A let of a constant or of another variable is substituted into its body.
  if (s->kind == SK::let && (is_const(s->value) || s->value->kind == EK::var))
    return remove_trivial_loops(substitute_stmt(s->body[0], s->var, s->value));
  return map_stmt(s, remove_trivial_loops);
}

namespace {

// One kernel (root loop nest) of a GPU program: its block's size and the walk for divergence.
class GpuBlockChecker {
 public:
  explicit GpuBlockChecker(const Target& t) : target_(t) {}
  std::optional<GpuBlockProblem> problem;

  void nest(const StmtP& s) {
    threads_[0] = threads_[1] = threads_[2] = 1;
    shared_bytes_ = reduce_bytes_ = 0;
    sizes(s);
    int64_t n = threads_[0] * threads_[1] * threads_[2];
    shared_bytes_ += reduce_bytes_ * n;
    if (n > target_.max_threads_per_block) {
      fail(fmt::format("a GPU block would have {} x {} x {} = {} threads, more than the {} a block may have{}", threads_[0],
                       threads_[1], threads_[2], n, target_.max_threads_per_block, on_profile()),
           fmt::format("bind smaller loops to thread.x/y/z (split them by smaller factors, so that their extents multiply to at "
                       "most {}; the rest stays serial or goes to blocks)", target_.max_threads_per_block),
           widest_thread_loop_);
      return;
    }
    if (shared_bytes_ > target_.shared_memory_per_block) {
      fail(fmt::format("a GPU block would use {} bytes of static shared memory, more than the {} bytes a block may have{}",
                       shared_bytes_, target_.shared_memory_per_block, on_profile()),
           "cache smaller tiles in shared memory (split the loop the caches are computed at by a smaller factor)",
           widest_thread_loop_);
      return;
    }
    std::set<std::string> dependent;
    walk(s, dependent, "");
  }

 private:
  const Target& target_;
  Loc widest_thread_loop_;  // the bind directive of the widest loop bound to threads
  int64_t widest_ = 0;
  int64_t threads_[3] = {1, 1, 1};
  int64_t shared_bytes_ = 0;
  int64_t reduce_bytes_ = 0;  // per thread, for the cross-thread reductions' trees
  std::map<std::string, DType> types_;

  void fail(std::string m, std::string f, Loc loc = {}) {
    if (!problem) problem = GpuBlockProblem{std::move(m), std::move(f), loc};
  }
  std::string on_profile() const { return target_.profile.empty() ? "" : " on device profile `" + target_.profile + "`"; }

  void sizes(const StmtP& s) {
    if (!s) return;
    int64_t n;
    if (s->kind == SK::for_ && s->loop == LoopKind::gpu_thread && is_const(s->extent, &n)) {
      threads_[s->gpu_axis] = std::max(threads_[s->gpu_axis], n);
      if (n > widest_ && s->loc.line > 0) widest_ = n, widest_thread_loop_ = s->loc;
    }
    if (s->kind == SK::allocate) {
      types_[s->alloc.name] = s->alloc.type;
      if (s->alloc.scope == MemScope::shared) {
        int64_t bytes = dtype_bytes(s->alloc.type);
        for (int64_t e : s->alloc.extents) bytes *= e;
        shared_bytes_ += bytes;
      }
    }
    for (const auto& b : s->body) sizes(b);
    if (s->kind == SK::thread_reduce) {
      // The printer's tree: one value per thread and one result per group of threads.
      auto t = types_.find(s->buffer);
      reduce_bytes_ += 2 * (t == types_.end() ? 8 : std::max(4, dtype_bytes(t->second)));
    }
  }

  static bool uses_any(const ExprP& e, const std::set<std::string>& vars) {
    if (!e) return false;
    for (const auto& v : vars)
      if (uses_var(e, v)) return true;
    return false;
  }

  // `why` says why the threads may not all be here ("" when they all are).
  void walk(const StmtP& s, std::set<std::string>& dep, const std::string& why) {
    if (!s || problem) return;
    std::string inner_why = why;
    bool added = false;
    switch (s->kind) {
      case SK::barrier:
      case SK::thread_reduce:
        if (!why.empty())
          fail(fmt::format("a {} would not be reached by every thread of the GPU block: it is inside {}",
                           s->kind == SK::barrier ? "barrier (after a shared-memory copy)" : "cross-thread reduction", why),
               "make every thread of the block run the loops around it: bind loops of the same extent to each thread axis "
               "(a copy stage's loops may be split so that their bound piece has as many threads as the consumer's), and keep "
               "guarded tails off the loops that contain caches (choose factors that divide the extents)");
        return;
      case SK::for_: {
        int64_t n = 0;
        if (s->loop == LoopKind::gpu_thread) {
          if (!is_const(s->extent, &n) || n < threads_[s->gpu_axis])
            inner_why = fmt::format("loop `{}`, bound to {} threads of axis {} while the block has {}", s->var, n,
                                    "xyz"[s->gpu_axis], threads_[s->gpu_axis]);
          added = dep.insert(s->var).second;
        } else if (uses_any(s->min, dep) || uses_any(s->extent, dep)) {
          inner_why = fmt::format("loop `{}`, whose trip count depends on the thread", s->var);
          added = dep.insert(s->var).second;
        }
        break;
      }
      case SK::let:
        if (uses_any(s->value, dep)) added = dep.insert(s->var).second;
        break;
      case SK::if_:
        if (uses_any(s->value, dep)) inner_why = fmt::format("a branch on the thread's index (`if` of a guarded tail)");
        break;
      default:
        break;
    }
    for (const auto& b : s->body) walk(b, dep, inner_why);
    if (added) dep.erase(s->var);
  }
};

bool has_bound_loop(const StmtP& s) {
  if (!s) return false;
  if (s->kind == SK::for_ && (s->loop == LoopKind::gpu_block || s->loop == LoopKind::gpu_thread)) return true;
  for (const auto& b : s->body)
    if (has_bound_loop(b)) return true;
  return false;
}

// A block's statements with bound loops are kernels of their own; runs of serial statements between
// them (a scalar stage: its accumulator's declaration, initial value, loop and result) are one
// kernel each, run by one thread, so that what they declare is in scope for all of them.
void root_nests(const StmtP& s, std::vector<StmtP>& nests, std::vector<StmtP>* scratch) {
  if (!s) return;
  if (s->kind == SK::block) {
    std::vector<StmtP> serial;
    auto flush = [&] {
      if (serial.size() == 1) nests.push_back(serial[0]);
      else if (!serial.empty()) nests.push_back(block(serial));
      serial.clear();
    };
    for (const auto& b : s->body) {
      if (!b || b->kind == SK::comment) continue;
      if (b->kind == SK::block || (b->kind == SK::allocate && b->alloc.scope == MemScope::global) || has_bound_loop(b)) {
        flush();
        root_nests(b, nests, scratch);
      } else {
        serial.push_back(b);
      }
    }
    flush();
  } else if (s->kind == SK::allocate && s->alloc.scope == MemScope::global) {
    if (scratch) scratch->push_back(s);
    root_nests(s->body[0], nests, scratch);
  } else if (s->kind != SK::comment) {
    nests.push_back(s);
  }
}

}  // namespace

std::vector<StmtP> gpu_kernel_nests(const StmtP& body, std::vector<StmtP>* scratch) {
  std::vector<StmtP> nests;
  root_nests(body, nests, scratch);
  return nests;
}

std::optional<GpuBlockProblem> check_gpu_blocks(const StmtP& body, const Target& target) {
  for (const auto& n : gpu_kernel_nests(body)) {
    GpuBlockChecker c(target);
    c.nest(n);
    if (c.problem) return c.problem;
  }
  return std::nullopt;
}

}  // namespace ekb::lower
