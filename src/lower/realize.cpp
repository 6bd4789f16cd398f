// Realization, step by step for one stage (`Realizer::realize`):
//  1. extents of every loop from the region and the splits/fuses (ceil for split outers);
//  2. every original variable as an expression of the loops (reverse over the splits/fuses), with
//     the guards that guard-tails need and the clamps that pad-tails need;
//  3. each guard either shrinks the innermost loop it depends on (no branch in the loop body; not a
//     loop bound to GPU blocks or threads, whose extent is the launch's) or
//     becomes an `if` around the body;
//  4. the loops in schedule order; a reduction's initial values are stored just outside its
//     outermost reduction loop (or inside `decompose_reduction`'s loop);
//  5. inside each loop, the stages computed there (regions from bounds inference) and the buffers
//     stored there (sizes: constant upper bounds of the boxes touched).
#include "lower/realize.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "lower/bounds.h"
#include "lower/double_buffer.h"
#include "lower/lower_expr.h"
#include "lower/simplify.h"
#include "lower/strided_region.h"

namespace ekb::lower {

using namespace lir;

std::string qualified(const std::string& stage, const std::string& name) { return stage + "." + name; }
std::string value_name(const std::string& stage, const std::string& var) { return stage + ":" + var; }

namespace {

// Buffers computed inside loops live on the stack when at most this big (unless scoped global).
constexpr int64_t kStackBufferBytes = 64 * 1024;
// An explicitly `local` buffer above this is an error: the stack is small on edge devices.
constexpr int64_t kMaxLocalBytes = 1 << 20;

struct RegionDim {
  ExprP min, extent;
  std::optional<StridedDim> strided;  // the points min + strided->expand(j), j < extent, stored densely
};

std::string site_key(const std::string& stage, const std::string& dim) { return stage + "\x1f" + dim; }

// Renames every variable of a stage's value (free or bound by a nested reduction) to "S:v".
ExprP qualify(const ExprP& e, const std::string& stage) {
  if (e->kind == EK::var) return var(value_name(stage, e->name), e->type);
  auto c = std::make_shared<lir::Expr>(*e);
  for (auto& a : c->args) a = qualify(a, stage);
  for (auto& v : c->rvars) v = value_name(stage, v);
  return c;
}

ExprP ceil_div(const ExprP& a, int64_t f) { return simplify(floordiv(add(a, int_imm(f - 1)), int_imm(f))); }

class Realizer {
 public:
  Realizer(const Program& p, const Graph& g, const Schedule& s, DiagnosticList& d) : p_(p), g_(g), s_(s), d_(d) {
    for (const auto& st : g.stages) {
      const StageSchedule* ss = s.find(st.name);
      if (!ss || st.is_output) continue;
      std::string compute = ss->compute == StageSchedule::Compute::at ? site_key(ss->at_stage, ss->at_dim) : root_;
      std::string store = ss->store_stage.empty() ? compute : site_key(ss->store_stage, ss->store_dim);
      if (ss->compute == StageSchedule::Compute::at) compute_sites_[compute].push_back(st.name);
      store_sites_[store].push_back(st.name);
    }
    value_range_ = [this](const std::string& buffer) -> std::optional<Range> {
      for (int t : p_.inputs)
        if (p_.tensors[t].name == buffer && p_.tensors[t].dist.kind == DistSpec::Kind::int_range)
          return Range{static_cast<int64_t>(p_.tensors[t].dist.a), static_cast<int64_t>(p_.tensors[t].dist.b)};
      return std::nullopt;
    };
  }

  StmtP run() {
    std::vector<StmtP> body;
    for (const auto& st : g_.stages) {
      const StageSchedule* ss = s_.find(st.name);
      if (ss && ss->compute == StageSchedule::Compute::at) continue;
      std::vector<RegionDim> region;
      for (int64_t e : st.extents) region.push_back({int_imm(0), int_imm(e), std::nullopt});
      body.push_back(comment(fmt::format("stage {}", st.name)));
      body.push_back(realize(st, region));
    }
    return allocate_here(root_, block(body));
  }

 private:
  const Program& p_;
  const Graph& g_;
  const Schedule& s_;
  DiagnosticList& d_;
  const std::string root_ = site_key("", "");
  std::map<std::string, std::vector<std::string>> compute_sites_, store_sites_;
  RangeScope scope_;  // numeric ranges of the loop variables around the point being generated
  ValueRange value_range_;
  int counter_ = 0;
  struct Enclosing {
    std::string var;
    ExprP extent;
    LoopKind kind;
  };
  std::vector<Enclosing> loops_;  // the loops around the point being generated, outermost first

  void error(Loc loc, std::string msg, std::string fix) { d_.error(p_.source(), loc, std::move(msg), std::move(fix)); }

  const LStage& stage(const std::string& name) const { return g_.stages[g_.find(name)]; }

  // ---- one stage ----
  StmtP realize(const LStage& st, const std::vector<RegionDim>& region) {
    const StageSchedule& ss = *s_.find(st.name);
    auto Q = [&](const std::string& n) { return qualified(st.name, n); };

    // 1. Extents.
    std::map<std::string, ExprP> ext;
    for (size_t i = 0; i < st.vars.size(); ++i) ext[st.vars[i]] = simplify(region[i].extent, scope_);
    for (size_t i = 0; i < st.rvars.size(); ++i) ext[st.rvars[i]] = int_imm(st.rextents[i]);
    // Which original variables each name derives from (for pad).
    std::map<std::string, std::set<std::string>> origin;
    for (const auto& v : st.vars) origin[v] = {v};
    for (const auto& v : st.rvars) origin[v] = {v};
    for (const auto& r : ss.rels) {
      if (auto* sp = std::get_if<SplitRel>(&r)) {
        ext[sp->inner] = int_imm(sp->factor);
        ext[sp->outer] = ceil_div(ext[sp->old_var], sp->factor);
        origin[sp->inner] = origin[sp->outer] = origin[sp->old_var];
      } else {
        const auto& f = std::get<FuseRel>(r);
        ext[f.fused] = simplify(mul(ext[f.outer], ext[f.inner]), scope_);
        origin[f.fused] = origin[f.outer];
        origin[f.fused].insert(origin[f.inner].begin(), origin[f.inner].end());
      }
    }

    // The loops' ranges are known from here on (simplifications below rely on them).
    for (const auto& d : ss.dims) {
      auto r = numeric_range(ext[d.name], scope_);
      scope_.set(Q(d.name), Range{0, r ? std::max<int64_t>(r->hi - 1, 0) : INT64_MAX / 4});
    }
    struct Unscope {
      RangeScope& scope;
      std::vector<std::string> names;
      ~Unscope() {
        for (const auto& n : names) scope.erase(n);
      }
    } unscope{scope_, {}};
    for (const auto& d : ss.dims) unscope.names.push_back(Q(d.name));

    // 2. Values of the original variables in terms of the loops.
    std::map<std::string, ExprP> val;
    for (const auto& d : ss.dims) val[d.name] = var(Q(d.name));
    std::vector<std::pair<ExprP, ExprP>> guards;  // value < bound
    std::set<std::string> padded;
    for (auto it = ss.rels.rbegin(); it != ss.rels.rend(); ++it) {
      if (auto* sp = std::get_if<SplitRel>(&*it)) {
        int64_t e = 0, f = sp->factor;
        bool known = is_const(ext[sp->old_var], &e);
        bool divisible = known && e % f == 0;
        ExprP outer = mul(val[sp->outer], int_imm(f));
        if (!divisible && sp->tail == Tail::shift && known && e >= f) {
          val[sp->old_var] = add(min(outer, int_imm(e - f)), val[sp->inner]);
        } else {
          val[sp->old_var] = add(outer, val[sp->inner]);
          if (!divisible && sp->tail == Tail::pad) padded.insert(origin[sp->old_var].begin(), origin[sp->old_var].end());
          else if (!divisible) guards.push_back({val[sp->old_var], ext[sp->old_var]});
        }
      } else {
        const auto& fr = std::get<FuseRel>(*it);
        val[fr.outer] = floordiv(val[fr.fused], ext[fr.inner]);
        val[fr.inner] = floormod(val[fr.fused], ext[fr.inner]);
      }
    }
    if (!padded.empty() && st.is_output) {
      error(st.loc, fmt::format("a `pad` split of `{}` would write past the end of output `{}`", *padded.begin(), st.name),
            "use `guard` or `shift` on outputs, or pad an intermediate (e.g. a cache_write stage)");
      return nullptr;
    }

    // 3. Guards shrink the innermost loop they depend on when they can.
    std::map<std::string, ExprP> loop_ext;
    for (const auto& d : ss.dims) loop_ext[d.name] = ext[d.name];
    std::vector<ExprP> body_guards;
    for (const auto& [value, bound] : guards) {
      ExprP v = simplify(value, scope_);
      bool placed = false;
      for (size_t k = ss.dims.size(); k-- > 0 && !placed;) {
        const std::string lv = Q(ss.dims[k].name);
        if (!uses_var(v, lv)) continue;
        // A loop bound to GPU blocks or threads keeps its extent (the launch's size): its guard stays a branch.
        if (ss.dims[k].kind == lir::LoopKind::gpu_block || ss.dims[k].kind == lir::LoopKind::gpu_thread) break;
        auto solved = solve_for(v, lv);
        bool rest_outer = solved && solved->first == 1;
        for (size_t j = k + 1; rest_outer && j < ss.dims.size(); ++j) rest_outer = !uses_var(solved->second, Q(ss.dims[j].name));
        if (rest_outer) {
          ExprP& le = loop_ext[ss.dims[k].name];
          le = simplify(min(le, sub(bound, solved->second)), scope_);
          placed = true;
        }
        break;  // only the innermost loop it uses can take it
      }
      if (!placed) body_guards.push_back(lt(v, bound));
    }

    // 4. The body: lets for the original variables, then the store.
    std::vector<std::pair<std::string, ExprP>> lets;
    std::vector<ExprP> store_idx;
    for (size_t i = 0; i < st.vars.size(); ++i) {
      const ExprP& j = val[st.vars[i]];
      ExprP actual = simplify(add(region[i].min, region[i].strided ? region[i].strided->expand(j) : j), scope_);
      // A strided region is stored densely: point number j, not its coordinate.
      store_idx.push_back(region[i].strided ? simplify(j, scope_) : actual);
      ExprP read = padded.count(st.vars[i]) ? min(actual, int_imm(st.extents[i] - 1)) : actual;
      lets.push_back({value_name(st.name, st.vars[i]), read});
    }
    for (const auto& r : st.rvars) lets.push_back({value_name(st.name, r), simplify(val[r], scope_)});
    ExprP value = qualify(st.value, st.name);
    auto with_lets = [&](StmtP s, bool pure_only) {
      for (size_t k = lets.size(); k-- > 0;) {
        if (pure_only && k >= st.vars.size()) continue;
        s = let(lets[k].first, lets[k].second, s);
      }
      return s;
    };
    auto guarded = [&](StmtP s, bool pure_only) {
      ExprP cond;
      for (const auto& g : body_guards) {
        bool uses_reduction = false;
        for (const auto& d : ss.dims)
          if (d.reduction) uses_reduction = uses_reduction || uses_var(g, Q(d.name));
        if (pure_only && uses_reduction) continue;
        cond = cond ? land(cond, g) : g;
      }
      return cond ? if_then(cond, s) : s;
    };
    LoweredValue lv = lower_value(value, counter_);
    ExprP stored = st.has_reduction() ? reduction_combine(st.rop, load(st.name, st.type, store_idx), lv.value) : lv.value;
    const std::vector<StmtP> value_pre = lv.pre;  // what computes the value, before it is stored
    lv.pre.push_back(store(st.name, store_idx, stored));
    StmtP innermost = with_lets(guarded(block(lv.pre), false), false);

    // 5. The loops, the initial values of a reduction, and what is computed inside each loop.
    size_t init_pos = ss.dims.size();
    if (st.has_reduction()) {
      if (!ss.init_dim.empty()) init_pos = static_cast<size_t>(ss.find_dim(ss.init_dim)) + 1;
      else
        for (size_t k = 0; k < ss.dims.size(); ++k)
          if (ss.dims[k].reduction) {
            init_pos = k;
            break;
          }
    }
    StmtP init_body = st.has_reduction()
                          ? with_lets(guarded(store(st.name, store_idx, reduction_identity(st.rop, st.type)), true), true)
                          : nullptr;
    std::function<StmtP(size_t)> gen_init = [&](size_t level) -> StmtP {
      if (level == ss.dims.size()) return init_body;
      const LoopDim& d = ss.dims[level];
      if (d.reduction) return gen_init(level + 1);
      return open_loop(Q(d.name), loop_ext[d.name], d.kind, d.gpu_axis, d.loc, [&] { return gen_init(level + 1); });
    };
    // A reduction loop bound to GPU threads: a cross-thread reduction (see thread_reduction).
    int cross = cross_thread_level(st, ss);
    if (cross == -2) return nullptr;
    std::string acc;
    if (cross >= 0) {
      acc = fmt::format("{}.partial{}", st.name, counter_++);
      innermost = with_lets(guarded(block({block(value_pre),
                                           store(acc, {}, reduction_combine(st.rop, load(acc, st.type, {}), lv.value))}),
                                    false),
                            false);
    }
    // A recurrence whose step's points read each other's earlier steps across GPU threads: every
    // thread waits at the end of a step until the block has written it.
    int step_barrier = -1;
    if (st.is_scan() && s_.target.gpu()) {
      std::set<std::string> steps = derived_names({st.scan_var}, ss.rels);
      for (size_t k = 0; k < ss.dims.size(); ++k)
        if (steps.count(ss.dims[k].name)) step_barrier = static_cast<int>(k);
      bool threads_inside = false;
      for (size_t k = static_cast<size_t>(step_barrier + 1); step_barrier >= 0 && k < ss.dims.size(); ++k)
        threads_inside = threads_inside || ss.dims[k].kind == LoopKind::gpu_thread;
      if (!threads_inside || st.scan_nonlocal.empty()) step_barrier = -1;
    }
    std::function<StmtP(size_t)> gen = [&](size_t level) -> StmtP {
      if (level == ss.dims.size()) return innermost;
      const LoopDim& d = ss.dims[level];
      StmtP loop = open_loop(Q(d.name), loop_ext[d.name], d.kind, d.gpu_axis, d.loc, [&] {
        StmtP body = gen(level + 1);
        if (static_cast<int>(level) == step_barrier) body = block({body, barrier()});
        if (static_cast<int>(level) == cross) {
          // Each thread's partial over the inner reduction loops, combined across the threads; every
          // thread gets the total and stores it (the same value).
          int64_t threads = 0;
          is_const(loop_ext[d.name], &threads);
          Buffer b;
          b.name = acc;
          b.type = st.type;
          b.scope = MemScope::local;
          StmtP result = with_lets(guarded(store(st.name, store_idx, load(acc, st.type, {})), true), true);
          body = allocate(b, block({store(acc, {}, reduction_identity(st.rop, st.type)), body,
                                    thread_reduce(st.rop, acc, Q(d.name), d.gpu_axis, threads), result}));
        }
        return computed_here(st.name, d.name, body);
      });
      if (st.has_reduction() && level == init_pos && cross < 0) return block({gen_init(level), loop});
      return loop;
    };
    if (st.has_reduction() && init_pos == ss.dims.size()) return block({gen_init(ss.dims.size()), gen(0)});
    return gen(0);
  }

  // The level of a reduction loop bound to GPU threads (a cross-thread reduction), -1 when there is
  // none, -2 after an error: it must be the outermost reduction loop, with only reduction loops
  // inside it (each thread's partial), and the reduction's initial value at its default place.
  int cross_thread_level(const LStage& st, const StageSchedule& ss) {
    int level = -1;
    for (size_t k = 0; k < ss.dims.size(); ++k)
      if (ss.dims[k].reduction && ss.dims[k].kind == LoopKind::gpu_thread) level = static_cast<int>(k);
    if (level < 0) return -1;
    const std::string& name = ss.dims[level].name;
    for (size_t k = 0; k < ss.dims.size(); ++k) {
      const LoopDim& d = ss.dims[k];
      bool inside = static_cast<int>(k) > level;
      if ((d.reduction && !inside && static_cast<int>(k) != level) || (!d.reduction && inside) ||
          (inside && d.kind != LoopKind::serial && d.kind != LoopKind::unrolled)) {
        error(st.loc, fmt::format("`{}` reduces across GPU threads over `{}`, but its loop `{}` is {}", st.name, name, d.name,
                                  d.reduction ? (inside ? prim_kind(d.kind) : "a reduction loop outside it") : "a pure loop inside it"),
              fmt::format("reorder `{}`'s loops so that every pure loop is outside `{}` and `{}` is the outermost reduction loop "
                          "(the loops inside it, serial or unrolled, make each thread's partial), e.g. `split c 256 -> co ci; "
                          "reorder ci co; bind ci thread.x`", st.name, name, name));
        return -2;
      }
    }
    if (!ss.init_dim.empty()) {
      error(st.loc, fmt::format("`{}` reduces across GPU threads over `{}`; decompose_reduction does not apply", st.name, name),
            "remove decompose_reduction: each thread starts its partial inside the bound loop");
      return -2;
    }
    return level;
  }
  static const char* prim_kind(LoopKind k) {
    switch (k) {
      case LoopKind::parallel: return "parallel";
      case LoopKind::vectorized: return "vectorized";
      case LoopKind::gpu_block: return "bound to GPU blocks";
      case LoopKind::gpu_thread: return "bound to GPU threads too";
      default: return "serial";
    }
  }

  template <typename F>
  StmtP open_loop(const std::string& v, const ExprP& extent, LoopKind kind, int gpu_axis, Loc loc, F&& body) {
    auto r = numeric_range(extent, scope_);
    scope_.set(v, Range{0, r ? std::max<int64_t>(r->hi - 1, 0) : INT64_MAX / 4});
    loops_.push_back({v, extent, kind});
    StmtP b = body();
    loops_.pop_back();
    scope_.erase(v);
    return for_loop(v, int_imm(0), extent, kind, b, gpu_axis, loc);
  }

  // GPU: a shared buffer is one per block, so the region it holds is what every thread of the block
  // touches: the enclosing loops bound to threads range over their extents (they are wrapped
  // around `inner` for bounds inference) instead of standing for one thread's index.
  StmtP relax_threads(StmtP inner) const {
    for (auto it = loops_.rbegin(); it != loops_.rend(); ++it)
      if (it->kind == LoopKind::gpu_thread) inner = for_loop(it->var, int_imm(0), it->extent, LoopKind::serial, inner);
    return inner;
  }
  bool inside_blocks() const {
    for (const auto& l : loops_)
      if (l.kind == LoopKind::gpu_block) return true;
    return false;
  }

  // ---- what is computed and stored inside a loop ----
  StmtP computed_here(const std::string& stage_name, const std::string& dim, StmtP inner) {
    std::string key = site_key(stage_name, dim);
    auto it = compute_sites_.find(key);
    if (it != compute_sites_.end()) {
      std::vector<StmtP> shared_copies;  // GPU: stages stored in shared memory, computed here by the block's threads
      for (auto p = it->second.rbegin(); p != it->second.rend(); ++p) {
        const LStage& producer = stage(*p);
        bool shared = s_.find(producer.name)->scope == MemScope::shared;
        auto box = box_touched(shared ? relax_threads(inner) : inner, producer.name, true, false, value_range_);
        if (!box) continue;  // nothing here reads it
        // A per-thread (local) cache whose reads have gaps holds just the points read (strided_region.h).
        auto strided = s_.find(producer.name)->scope == MemScope::local ? strided_reads(inner, producer.name) : std::nullopt;
        std::vector<RegionDim> region;
        for (size_t d = 0; d < producer.extents.size(); ++d) {
          if (strided && (*strided)[d]) {
            const StridedDim& sd = *(*strided)[d];
            int64_t span = 0;
            for (const auto& piece : sd.pieces) span += (piece.extent - 1) * piece.stride;
            auto r = numeric_range(sd.base, scope_);
            if (r && r->lo >= 0 && r->hi + span <= producer.extents[d] - 1) {
              region.push_back({simplify(sd.base, scope_), int_imm(sd.count()), sd});
              continue;
            }
            (*strided)[d].reset();  // it could run past the domain's edge: the box, clamped, instead
          }
          if (!(*box)[d].lo || !(*box)[d].hi) {
            // The reads' indices cannot be bounded (they come from data): no region can be proved.
            error(producer.loc,
                  fmt::format("the region of `{}` read inside `{}`'s loop `{}` cannot be bounded in dimension {}: an index "
                              "there depends on data", producer.name, stage_name, dim, d),
                  fmt::format("compute `{}` at the root (remove its compute_at; for a cache, leave out `at ...`), or "
                              "inside a loop whose reads have affine indices", producer.name));
            return inner;
          }
          ExprP lo = simplify(max((*box)[d].lo, int_imm(0)), scope_);
          ExprP hi = simplify(min((*box)[d].hi, int_imm(producer.extents[d] - 1)), scope_);
          region.push_back({lo, simplify(add(sub(hi, lo), int_imm(1)), scope_), std::nullopt});
        }
        if (std::any_of(region.begin(), region.end(), [](const RegionDim& r) { return r.strided.has_value(); }))
          inner = pack_strided_loads(inner, producer.name, *strided);
        StmtP made = block({comment(fmt::format("stage {} (computed at {}.{})", producer.name, stage_name, dim)),
                            realize(producer, region)});
        if (shared) shared_copies.insert(shared_copies.begin(), made);
        else inner = block({made, inner});
      }
      if (!shared_copies.empty()) {
        // The threads of the block fill the shared buffers together: every thread waits until they
        // are complete before reading them, and until every thread has read them before the next
        // iteration overwrites them.
        std::vector<StmtP> b = shared_copies;
        b.push_back(barrier());
        b.push_back(inner);
        b.push_back(barrier());
        inner = block(b);
      }
      std::set<std::string> doubled;
      Loc doubled_loc;
      for (const auto& name : it->second)
        if (const StageSchedule* ps = s_.find(name); ps && ps->double_buffered) {
          doubled.insert(name);
          doubled_loc = stage(name).loc;
        }
      if (!doubled.empty()) {
        // Register-staged double buffering (double_buffer.h), on the loop's body with its allocations.
        StmtP body = allocate_here(key, inner);
        DoubleBuffered db = double_buffer_copies(body, qualified(stage_name, dim), loops_.back().extent, doubled);
        if (!db.body) {
          error(doubled_loc, fmt::format("double_buffer in `{}`'s loop `{}`: {}", stage_name, dim, db.error),
                "double-buffer the caches of a `cache_read ... shared at AXIS` whose copies are loop nests of the block's threads");
          return body;
        }
        return db.body;
      }
    }
    return allocate_here(key, inner);
  }

  // The statements of a block that mention each of some buffers: the box a buffer's allocation
  // needs comes from those alone, so that a kernel with thousands of stages at the root is not
  // walked once per stage. (The allocations already wrapped around the block add nothing: their
  // bounds read no buffer.)
  class Touching {
   public:
    Touching(const StmtP& s, const std::vector<std::string>& buffers) : whole_(s) {
      if (!s || s->kind != SK::block) return;
      std::set<std::string> wanted(buffers.begin(), buffers.end());
      for (const auto& b : s->body) {
        std::set<std::string> named;
        mentions(b, named);
        for (const auto& n : named)
          if (wanted.count(n)) parts_[n].push_back(b);
      }
      split_ = true;
    }
    StmtP of(const std::string& buffer) const {
      if (!split_) return whole_;
      auto it = parts_.find(buffer);
      return block(it == parts_.end() ? std::vector<StmtP>{} : it->second);
    }

   private:
    StmtP whole_;
    bool split_ = false;
    std::map<std::string, std::vector<StmtP>> parts_;
    static void mentions(const ExprP& e, std::set<std::string>& out) {
      if (!e) return;
      if (e->kind == EK::load) out.insert(e->name);
      for (const auto& a : e->args) mentions(a, out);
    }
    static void mentions(const StmtP& s, std::set<std::string>& out) {
      if (!s) return;
      if (s->kind == SK::store || s->kind == SK::thread_reduce) out.insert(s->buffer);
      for (const auto& e : {s->min, s->extent, s->value}) mentions(e, out);
      for (const auto& i : s->indices) mentions(i, out);
      for (const auto& m : s->alloc.mins) mentions(m, out);
      for (const auto& b : s->body) mentions(b, out);
    }
  };

  // How far `pad` splits can run variable `v` of a stage past the region it computes.
  static int64_t pad_overhang(const StageSchedule& ss, const std::string& v) {
    std::set<std::string> from_v = derived_names({v}, ss.rels);
    int64_t over = 0;
    for (const auto& r : ss.rels)
      if (auto* sp = std::get_if<SplitRel>(&r); sp && sp->tail == Tail::pad && from_v.count(sp->old_var)) over += sp->factor - 1;
    return over;
  }

  StmtP allocate_here(const std::string& key, StmtP inner) {
    auto it = store_sites_.find(key);
    if (it == store_sites_.end()) return inner;
    Touching touching(inner, it->second);
    for (auto p = it->second.rbegin(); p != it->second.rend(); ++p) {
      const LStage& st = stage(*p);
      const StageSchedule& ss = *s_.find(st.name);
      if (ss.scope == MemScope::shared && !inside_blocks()) {
        error(st.loc, fmt::format("`{}` is stored in shared memory, which exists once per GPU block, but it is {}", st.name,
                                  key == root_ ? "stored at the root, outside every block" : "stored outside the loops bound to blocks"),
              fmt::format("compute (and store) `{}` inside a loop bound to block.x/y/z or deeper, e.g. `cache_read A shared at ko` "
                          "with `ko` inside the block loops", st.name));
        continue;
      }
      StmtP relaxed = ss.scope == MemScope::shared ? relax_threads(touching.of(st.name)) : touching.of(st.name);
      auto loads = box_touched(relaxed, st.name, true, false, value_range_);
      auto stores = box_touched(relaxed, st.name, false, true, value_range_);
      Buffer b;
      b.name = st.name;
      b.type = st.type;
      int64_t bytes = dtype_bytes(st.type);
      for (size_t d = 0; d < st.extents.size(); ++d) {
        // Loads are clamped to the stage's domain (guarded reads outside it never happen); stores
        // are not (a padded loop writes past it).
        ExprP lo, hi;
        if (loads && (*loads)[d].lo && (*loads)[d].hi) {
          lo = simplify(max((*loads)[d].lo, int_imm(0)), scope_);
          hi = simplify(min((*loads)[d].hi, int_imm(st.extents[d] - 1)), scope_);
        }
        if (stores && (*stores)[d].lo && (*stores)[d].hi) {
          lo = lo ? simplify(min(lo, (*stores)[d].lo), scope_) : (*stores)[d].lo;
          hi = hi ? simplify(max(hi, (*stores)[d].hi), scope_) : (*stores)[d].hi;
        } else if (stores && lo && hi) {
          // Stores whose indices cannot be bounded (a padded piece fused with another loop over a
          // region of varying size): they stay within the region read, plus the padding.
          hi = simplify(add(hi, int_imm(pad_overhang(ss, st.vars[d]))), scope_);
        }
        // Without a bound, the whole domain, and the rows `pad` splits may write past its end.
        int64_t extent = st.extents[d] + pad_overhang(ss, st.vars[d]);
        if (lo && hi) {
          auto r = numeric_range(simplify(add(sub(hi, lo), int_imm(1)), scope_), scope_);
          if (r && r->hi >= 1) extent = r->hi;
          else lo = int_imm(0);
        } else {
          lo = int_imm(0);
        }
        b.mins.push_back(lo);
        b.extents.push_back(extent);
        bytes *= extent;
      }
      bool at_root = key == root_;
      if (ss.scope == MemScope::local && bytes > kMaxLocalBytes) {
        error(st.loc, fmt::format("`{}` is cached in local memory but needs {} bytes, more than the {} a stack allows", st.name,
                                  bytes, kMaxLocalBytes),
              "cache a smaller region (compute it at an inner loop) or use the global scope");
      }
      if (ss.scope == MemScope::shared && bytes > s_.target.shared_memory_per_block) {
        error(st.loc, fmt::format("`{}` is cached in shared memory but needs {} bytes, more than the {} bytes of static shared "
                                  "memory a GPU block may have{}", st.name, bytes, s_.target.shared_memory_per_block,
                                  s_.target.profile.empty() ? "" : " on device profile `" + s_.target.profile + "`"),
              "cache a smaller tile (compute the cache at an inner loop, or split the loop it is computed at by a smaller factor)");
      }
      b.scope = ss.scope;
      if (!at_root && ss.scope == MemScope::global && bytes <= kStackBufferBytes) b.scope = MemScope::local;
      inner = allocate(b, inner);
    }
    return inner;
  }
};

}  // namespace

StmtP realize(const Program& p, const Graph& g, const Schedule& s, DiagnosticList& diags) {
  Realizer r(p, g, s, diags);
  return r.run();
}

}  // namespace ekb::lower
