// The double-buffering rewrite of a loop body (see double_buffer.h). Registers: each copy's store
// sits in a nest of serial loops (the copy's elements per thread) inside loops bound to threads;
// those serial loops are unrolled, and their iteration number indexes the thread's staging array.
#include "lower/double_buffer.h"

#include <fmt/format.h>

#include <functional>
#include <map>

#include "loops/graph.h"
#include "lower/simplify.h"

namespace ekb::lower {

using namespace lir;

namespace {

// The most elements a thread stages per cache: beyond that the staging array would spill.
constexpr int64_t kMaxStaged = 64;

using Subst = std::vector<std::pair<std::string, ExprP>>;

// A copy of `s` with `m` substituted (and simplified) in every expression and each serial or
// vectorized loop unrolled (`unroll` true); stores go through `on_store`.
template <typename F>
StmtP rewrite(const StmtP& s, const Subst& m, bool unroll, F&& on_store) {
  std::function<StmtP(const StmtP&)> walk = [&](const StmtP& x) -> StmtP {
    if (!x) return x;
    if (x->kind == SK::store) return on_store(*x);
    auto c = std::make_shared<lir::Stmt>(*x);
    for (auto& b : c->body) b = walk(b);
    if (unroll && x->kind == SK::for_ && (x->loop == LoopKind::serial || x->loop == LoopKind::vectorized)) c->loop = LoopKind::unrolled;
    return c;
  };
  return walk(map_exprs(s, [&](const ExprP& e) { return simplify(substitute(e, m)); }));
}

// `s` with every load of the cache `b` given `first` before its indices (which of its copies).
StmtP with_leading_index(const StmtP& s, const Buffer& b, const ExprP& first) {
  return map_exprs(s, [&](const ExprP& e) {
    return replace_loads(e, b.name, [&](std::vector<ExprP> idx) {
      idx.insert(idx.begin(), first);
      return load(b.name, b.type, std::move(idx));
    });
  });
}

// The one store of a copy nest, its enclosing serial loops (var, constant extent), or an error.
struct CopyShape {
  std::string buffer;
  std::vector<std::pair<std::string, int64_t>> serial;  // outermost first
  int stores = 0;
  std::string error;
};

void shape_of(const StmtP& s, std::vector<std::pair<std::string, int64_t>>& loops, CopyShape& out) {
  if (!s || !out.error.empty()) return;
  switch (s->kind) {
    case SK::store:
      ++out.stores;
      out.buffer = s->buffer;
      out.serial = loops;
      return;
    case SK::barrier:
    case SK::thread_reduce:
    case SK::allocate:
      out.error = "its copy is not a plain loop nest";
      return;
    case SK::for_:
      if (s->loop != LoopKind::gpu_thread) {
        int64_t n = 0;
        if (!is_const(s->extent, &n)) {
          out.error = fmt::format("its copy's loop `{}` has no constant trip count", s->var);
          return;
        }
        loops.push_back({s->var, n});
        for (const auto& b : s->body) shape_of(b, loops, out);
        loops.pop_back();
        return;
      }
      break;
    default:
      break;
  }
  for (const auto& b : s->body) shape_of(b, loops, out);
}

}  // namespace

DoubleBuffered double_buffer_copies(const StmtP& body, const std::string& loop_var, const ExprP& extent,
                                    const std::set<std::string>& caches) {
  // The allocations around the block, outermost first.
  std::vector<StmtP> chain;
  StmtP cur = body;
  while (cur && cur->kind == SK::allocate) {
    chain.push_back(cur);
    cur = cur->body[0];
  }
  std::map<std::string, const Buffer*> buffers;
  for (const auto& a : chain) buffers[a->alloc.name] = &a->alloc;
  if (!cur || cur->kind != SK::block) return {nullptr, "the loop's body is not a copy, a barrier and the step's work"};
  size_t bar = 0;
  while (bar < cur->body.size() && cur->body[bar]->kind != SK::barrier) ++bar;
  if (bar + 3 != cur->body.size() || cur->body[bar + 2]->kind != SK::barrier)
    return {nullptr, "the loop's body is not a copy, a barrier and the step's work"};
  for (const auto& c : caches)
    if (!buffers.count(c)) return {nullptr, fmt::format("`{}` is not allocated in the loop it is copied in (store_at elsewhere?)", c)};

  ExprP k = var(loop_var), next = simplify(add(k, int_imm(1)));
  Subst at_next = {{loop_var, next}};
  std::vector<StmtP> firsts, fetches, puts;
  std::vector<Buffer> staging;
  std::set<std::string> copied;
  for (size_t i = 0; i < bar; ++i) {
    const StmtP& copy = cur->body[i];
    CopyShape shape;
    std::vector<std::pair<std::string, int64_t>> loops;
    shape_of(copy, loops, shape);
    if (!shape.error.empty()) return {nullptr, fmt::format("a cache copied in this loop: {}", shape.error)};
    if (shape.stores == 0) continue;  // a comment
    if (shape.stores != 1) return {nullptr, "a cache's copy stores more than once"};
    if (!caches.count(shape.buffer))
      return {nullptr, fmt::format("`{}` is copied in the same loop but not double-buffered: double-buffer every cache of "
                                   "the loop, or none", shape.buffer)};
    copied.insert(shape.buffer);
    const Buffer& buf = *buffers[shape.buffer];
    // The thread's staging array, indexed by the iteration of the copy's serial loops.
    int64_t count = 1;
    ExprP lin = int_imm(0);
    for (const auto& [v, n] : shape.serial) {
      lin = add(mul(lin, int_imm(n)), var(v));
      count *= n;
    }
    if (count > kMaxStaged)
      return {nullptr, fmt::format("each thread would stage {} elements of `{}` in registers (at most {}): spread its copy "
                                   "over more threads", count, shape.buffer, kMaxStaged)};
    Buffer reg;
    reg.name = shape.buffer + ".staged";
    reg.type = buf.type;
    reg.extents = {count};
    reg.mins = {int_imm(0)};
    reg.scope = MemScope::local;
    staging.push_back(reg);
    lin = simplify(lin);
    // Where step i + 1's element lands in the buffer as step i's allocation places it: its index
    // minus how far the region moved.
    std::vector<ExprP> moved;
    for (const auto& mn : buf.mins) moved.push_back(simplify(sub(simplify(substitute(mn, at_next)), mn)));
    firsts.push_back(rewrite(copy, {}, false, [&](const Stmt& st) {
      std::vector<ExprP> idx = st.indices;
      idx.insert(idx.begin(), int_imm(0));
      return store(st.buffer, idx, st.value);
    }));
    fetches.push_back(rewrite(copy, at_next, true, [&](const Stmt& st) { return store(reg.name, {lin}, st.value); }));
    puts.push_back(rewrite(copy, at_next, true, [&](const Stmt& st) {
      std::vector<ExprP> idx = st.indices;
      for (size_t d = 0; d < idx.size() && d < moved.size(); ++d) idx[d] = simplify(sub(idx[d], moved[d]));
      idx.insert(idx.begin(), simplify(floormod(next, int_imm(2))));
      return store(st.buffer, idx, load(reg.name, reg.type, {lin}));
    }));
  }
  for (const auto& c : caches)
    if (!copied.count(c)) return {nullptr, fmt::format("`{}` is not copied in this loop", c)};

  StmtP work = cur->body[bar + 1];
  ExprP slot = simplify(floormod(k, int_imm(2)));
  for (const auto& c : caches) work = with_leading_index(work, *buffers[c], slot);
  ExprP has_next = lt(next, extent);
  firsts.push_back(barrier());
  StmtP step = block({if_then(lt(k, int_imm(1)), block(firsts)), if_then(has_next, block(fetches)), work,
                      if_then(has_next, block(puts)), barrier()});
  for (auto it = staging.rbegin(); it != staging.rend(); ++it) step = allocate(*it, step);
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    Buffer b = (*it)->alloc;
    if (caches.count(b.name)) {
      b.extents.insert(b.extents.begin(), 2);
      b.mins.insert(b.mins.begin(), int_imm(0));
    }
    step = allocate(b, step);
  }
  return {step, ""};
}

}  // namespace ekb::lower
