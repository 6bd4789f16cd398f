// A random generator of cpu schedules (L1 `schedule cpu` + L2 `memory cpu` text) for the schedule
// fuzz test. It knows a kernel's stages, axes and extents and keeps a model of the schedule that
// mirrors the checker's replay (src/schedule/apply.cpp and primitives/*.cpp): the axes each directive
// creates, their kinds (serial, parallel, vectorized, unrolled), which stages read which tensors, and
// where stages are computed. It only emits directives the model finds legal, except for a few
// deliberate mutations (an illegal directive, to exercise the checker's rejections).
//
// The order of the replay matters: all L1 lines of the kernel's stages apply first, then L2 in order;
// the L1 lines of a stage made by L2 (cache_read, cache_write, rfactor, pack) apply as soon as it
// exists. The generator follows the same order: L1 of the kernel's stages, then L2 in phases
// (inline, rfactor, pack, cache_write, cache_read, decompose_reduction, compute_at/store_at), and
// the L1 of a made stage right after the directive that makes it.
#pragma once
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ekb::test::sgen {

// splitmix64: deterministic on every platform (std distributions are not).
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {
    s = next() ^ 0x632BE59BD9B4E019ull;  // seeds 1, 2, 3... must not give shifted copies of one stream
    s = next();
  }
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int below(size_t n) { return n == 0 ? 0 : static_cast<int>(next() % n); }
  bool chance(double p) { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0) < p; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }
  template <class T>
  void shuffle(std::vector<T>& v) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
  }
};

// ---- what the generator knows about a kernel ----
struct StageSpec {
  std::string name;
  std::vector<std::pair<std::string, int64_t>> vars, rvars;  // pure, then reduction variables
  bool output = false;
  std::vector<std::string> reads;  // inputs and stages its value reads
};

struct KernelSpec {
  std::string name, text;
  std::map<std::string, std::vector<int64_t>> inputs;  // input shapes
  std::vector<StageSpec> stages;                       // producers before consumers
  std::vector<std::pair<std::string, int>> packable;   // (tensor, dimension) worth packing
};

// ---- the model ----
enum class Kind { serial, parallel, vectorized, unrolled };

struct Axis {
  std::string name;
  bool red = false;
  Kind kind = Kind::serial;
  int64_t ext = 1;
  bool orig = false;     // a variable of the stage (not a piece of a split or fuse)
  bool fixed = false;    // an inner piece: its extent is the factor whatever region the stage covers
  bool shifted = false;  // made by (a piece of) a `shift` split
  bool padded = false;   // made by (a piece of) a `pad` split
};

// Bugs the fuzzer found, now fixed: each has a repro test in schedule_fuzz_test.cpp
// (ScheduleFuzzRepro.*). Setting a flag makes the generator steer around the case again (to chase a
// different bug while one is open); all are off, so the generator makes these schedules and ekb must
// reject them with a reason or run them correctly.
struct Avoid {
  // Bug 1: a `shift` split of a pure axis that runs inside the reduction's initialisation (a
  // reduction loop outside it, or decompose_reduction outside it) added the recomputed terms twice.
  // Now rejected by the checker.
  bool shift_inside_reduction = false;
  // Bug 2: rfactor kept the split/fuse relations of the stage's *other* reduction pieces, and
  // lowering crashed. Bug 3: cache_write kept relations among reduction pieces none of whose names
  // survive (a split of a piece, a fuse of pieces), and lowering crashed. Both fixed.
  bool reduction_piece_relations = false;
  // Bug 4: a `pad` piece fused with another axis, in a stage computed inside a consumer over a
  // region of varying extent: the buffer was sized without the padded stores (fixed). Bug 5: with
  // such a fused pad piece in nested compute_at stages, simplification blew up (fixed).
  bool fuse_padded = false;
  // Bug 6: store_at a loop outside a parallel loop in which the stage is computed: every thread
  // initialised and accumulated one shared buffer. Now rejected by the checker.
  bool store_outside_parallel = false;
  // Bug 7: a parallel loop over a `shift` piece of a reduction stage: the recomputed points were
  // accumulated in place by two threads at once. Now rejected by the checker.
  bool parallel_shifted_reduction = false;
};

// compute_at nesting depth (a stage computed inside a stage computed inside ...). Deeper chains
// multiply recomputation: a schedule can take minutes to run.
constexpr int kMaxComputeDepth = 2;

struct MStage {
  std::string name;
  bool output = false, created = false, inlined = false, has_red = false;
  std::vector<Axis> dims;      // loop order, outermost first
  std::vector<int64_t> shape;  // buffer shape
  std::set<std::string> reads;
  std::string at_stage, at_dim;  // compute_at
  std::vector<std::string> l1;   // emitted L1 directives
  std::set<std::string> protect; // axes that later directives (rfactor) need untouched
  int find(const std::string& n) const {
    for (size_t i = 0; i < dims.size(); ++i)
      if (dims[i].name == n) return static_cast<int>(i);
    return -1;
  }
  int first_red() const {
    for (size_t i = 0; i < dims.size(); ++i)
      if (dims[i].red) return static_cast<int>(i);
    return -1;
  }
  int count(Kind k) const {
    int n = 0;
    for (const auto& d : dims) n += d.kind == k;
    return n;
  }
};

struct GenStats {
  std::map<std::string, int> directives;  // how often each directive was emitted (in schedules made)
};

struct Generated {
  std::string text;
  std::string mutation;  // non-empty: a deliberately illegal directive was added (what it was)
};

class Generator {
 public:
  Generator(const KernelSpec& k, uint64_t seed, Avoid avoid = {}) : k_(k), r_(seed), avoid_(avoid) {}

  Generated generate(GenStats* stats = nullptr) {
    Generated g;
    for (int attempt = 0; attempt < 8 && g.text.empty(); ++attempt) {
      reset();
      build();
      g.text = render();
      g.mutation = mutation_;
    }
    if (stats) tally(*stats);
    return g;
  }

 private:
  const KernelSpec& k_;
  Rng r_;
  Avoid avoid_;
  std::vector<MStage> st_;  // graph order
  std::vector<std::string> l1_order_;
  std::vector<std::string> l2_;  // "Stage: directive"
  std::string mutation_;
  int counter_ = 0;
  std::set<std::string> used_names_;
  std::set<std::string> rf_planned_;  // stages that will be rfactored

  void reset() {
    st_.clear();
    l1_order_.clear();
    l2_.clear();
    mutation_.clear();
    counter_ = 0;
    used_names_.clear();
    rf_planned_.clear();
    for (const auto& s : k_.stages) {
      MStage m;
      m.name = s.name;
      m.output = s.output;
      m.has_red = !s.rvars.empty();
      for (const auto& [v, e] : s.vars) {
        m.dims.push_back({v, false, Kind::serial, e, true});
        m.shape.push_back(e);
      }
      for (const auto& [v, e] : s.rvars) m.dims.push_back({v, true, Kind::serial, e, true});
      m.reads.insert(s.reads.begin(), s.reads.end());
      st_.push_back(m);
      l1_order_.push_back(s.name);
      used_names_.insert(s.name);
    }
    for (const auto& [n, shape] : k_.inputs) used_names_.insert(n);
  }

  // Counts the directives of the schedule made (by name; splits also by tail policy).
  void tally(GenStats& stats) const {
    auto add = [&](const std::string& d) {
      std::string name = d.substr(0, d.find(' '));
      stats.directives[name]++;
      for (const char* t : {" guard ", " pad ", " shift "})
        if ((name == "split" || name == "tile") && d.find(t) != std::string::npos) stats.directives[name + t]++;
      if ((name == "vectorize" || name == "unroll") && std::count(d.begin(), d.end(), ' ') == 2) stats.directives[name + " N"]++;
    };
    for (const auto& s : st_)
      for (const auto& d : s.l1) add(d);
    for (const auto& line : l2_) add(line.substr(line.find(": ") + 2));
  }

  MStage* stage(const std::string& n) {
    for (auto& s : st_)
      if (s.name == n) return &s;
    return nullptr;
  }
  int stage_index(const std::string& n) const {
    for (size_t i = 0; i < st_.size(); ++i)
      if (st_[i].name == n) return static_cast<int>(i);
    return -1;
  }
  std::vector<int64_t> shape_of(const std::string& t) {
    auto it = k_.inputs.find(t);
    if (it != k_.inputs.end()) return it->second;
    return stage(t)->shape;
  }
  // How deep `n` is computed: 0 at the root, 1 inside a root stage's loop, ...
  int depth(const std::string& n) {
    int d = 0;
    for (MStage* s = stage(n); s && !s->at_stage.empty(); s = stage(s->at_stage)) ++d;
    return d;
  }
  // How deep the stages computed inside `n` (recursively) go below it.
  int height(const std::string& n) {
    int h = 0;
    for (const auto& s : st_)
      if (s.at_stage == n) h = std::max(h, 1 + height(s.name));
    return h;
  }
  std::string fresh_axis(const std::string& base) { return fmt::format("{}{}", base, ++counter_); }
  std::string fresh_stage(const std::string& base) {
    std::string n = base;
    for (int i = 2; used_names_.count(n); ++i) n = fmt::format("{}{}", base, i);
    used_names_.insert(n);
    return n;
  }
  void insert_before(MStage s, const std::string& consumer) {
    int at = stage_index(consumer);
    st_.insert(st_.begin() + (at < 0 ? static_cast<long>(st_.size()) : at), std::move(s));
  }
  void emit_l2(const std::string& stage_name, const std::string& d) { l2_.push_back(stage_name + ": " + d); }

  // ---- factors and tails ----
  int64_t pick_factor(int64_t ext) {
    std::vector<int64_t> divs, others;
    for (int64_t f = 2; f < ext; ++f)
      if (ext % f == 0) divs.push_back(f);
    for (int64_t f : {2, 3, 4, 5, 7, 8, 16})
      if (f < ext && ext % f != 0) others.push_back(f);
    if (r_.chance(0.05) || (divs.empty() && others.empty())) return r_.pick(std::vector<int64_t>{2, 4, 8, 16, 64});
    if (!divs.empty() && (others.empty() || r_.chance(0.35))) return r_.pick(divs);
    return r_.pick(others);
  }
  // A tail policy legal for these axes of `s`: shift and pad never on reduction axes (the extra
  // points would be added), pad never on outputs (a padded loop would write past the output).
  std::string pick_tail(const MStage& s, bool any_red) {
    std::vector<std::string> opts = {"", "", "guard"};
    if (!any_red) opts.insert(opts.end(), {"shift", "shift"});
    if (!s.output && !any_red) opts.insert(opts.end(), {"pad", "pad"});
    return r_.pick(opts);
  }
  static std::string tail_text(const std::string& t) { return t.empty() ? "" : " " + t; }

  // ---- L1 directives on the model ----
  // May axis `a` of `s` be split (or fused)?
  bool can_relate(const MStage& s, const Axis& a) const {
    if (a.kind != Kind::serial || s.protect.count(a.name)) return false;
    if (a.red && avoid_.reduction_piece_relations && !a.orig) return false;
    return true;
  }
  std::vector<int> split_candidates(const MStage& s) const {
    std::vector<int> v;
    for (size_t i = 0; i < s.dims.size(); ++i)
      if (can_relate(s, s.dims[i]) && s.dims[i].ext >= 2) v.push_back(static_cast<int>(i));
    return v;
  }
  std::vector<int> mark_candidates(const MStage& s, bool pure_only) const {
    std::vector<int> v;
    for (size_t i = 0; i < s.dims.size(); ++i) {
      const Axis& a = s.dims[i];
      if (a.kind == Kind::serial && !s.protect.count(a.name) && !(pure_only && a.red)) v.push_back(static_cast<int>(i));
    }
    return v;
  }

  // Splits dims[i] in the model.
  void split_axis(MStage& s, int i, int64_t f, const std::string& o, const std::string& in, const std::string& tail) {
    Axis a = s.dims[i];
    Axis ao = a, ai = a;
    ao.orig = ai.orig = false;
    ao.shifted = ai.shifted = a.shifted || tail == "shift";
    ao.padded = ai.padded = a.padded || tail == "pad";
    ao.name = o;
    ao.ext = (a.ext + f - 1) / f;
    ao.fixed = false;
    ai.name = in;
    ai.ext = f;
    ai.fixed = true;
    s.dims[i] = ai;
    s.dims.insert(s.dims.begin() + i, ao);
  }

  bool do_split(MStage& s) {
    auto c = split_candidates(s);
    if (c.empty()) return false;
    int i = r_.pick(c);
    const Axis a = s.dims[i];
    int64_t f = pick_factor(a.ext);
    std::string tail = pick_tail(s, a.red);
    std::string o = fresh_axis(a.name + "o"), in = fresh_axis(a.name + "i");
    s.l1.push_back(fmt::format("split {} {}{} -> {} {}", a.name, f, tail_text(tail), o, in));
    split_axis(s, i, f, o, in, tail);
    return true;
  }

  bool do_tile(MStage& s) {
    auto c = split_candidates(s);
    if (c.size() < 2) return false;
    r_.shuffle(c);
    const Axis x = s.dims[c[0]], y = s.dims[c[1]];
    int64_t fx = pick_factor(x.ext), fy = pick_factor(y.ext);
    std::string tail = pick_tail(s, x.red || y.red);
    std::string xo = fresh_axis(x.name + "o"), yo = fresh_axis(y.name + "o"), xi = fresh_axis(x.name + "i"),
                yi = fresh_axis(y.name + "i");
    s.l1.push_back(fmt::format("tile {} {} {} {}{} -> {} {} {} {}", x.name, y.name, fx, fy, tail_text(tail), xo, yo, xi, yi));
    // As the checker does: split both in place, then gather the pieces where the first one stood.
    int first = std::min(c[0], c[1]);
    split_axis(s, s.find(x.name), fx, xo, xi, tail);
    split_axis(s, s.find(y.name), fy, yo, yi, tail);
    std::vector<Axis> pieces;
    for (const auto& n : {xo, yo, xi, yi}) {
      int k = s.find(n);
      pieces.push_back(s.dims[k]);
      s.dims.erase(s.dims.begin() + k);
    }
    s.dims.insert(s.dims.begin() + first, pieces.begin(), pieces.end());
    return true;
  }

  bool do_reorder(MStage& s) {
    if (s.dims.size() < 2) return false;
    std::vector<int> idx(s.dims.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int>(i);
    r_.shuffle(idx);
    size_t k = 2 + r_.below(std::min<size_t>(s.dims.size(), 5) - 1);
    idx.resize(k);
    std::vector<int> order = idx;
    r_.shuffle(order);
    // Often move a reduction axis outermost among the listed ones.
    if (r_.chance(0.5))
      for (size_t j = 0; j < order.size(); ++j)
        if (s.dims[order[j]].red) {
          std::rotate(order.begin(), order.begin() + j, order.begin() + j + 1);
          break;
        }
    std::string text = "reorder";
    for (int i : order) text += " " + s.dims[i].name;
    s.l1.push_back(text);
    std::vector<int> slots = idx;
    std::sort(slots.begin(), slots.end());
    std::vector<Axis> moved;
    for (int i : order) moved.push_back(s.dims[i]);
    for (size_t j = 0; j < slots.size(); ++j) s.dims[slots[j]] = moved[j];
    return true;
  }

  bool do_fuse(MStage& s) {
    std::vector<int> c;
    for (size_t i = 0; i + 1 < s.dims.size(); ++i) {
      const Axis &a = s.dims[i], &b = s.dims[i + 1];
      if (a.red != b.red || !can_relate(s, a) || !can_relate(s, b)) continue;
      if (a.red && avoid_.reduction_piece_relations && rf_planned_.count(s.name)) continue;
      if (avoid_.fuse_padded && (a.padded || b.padded)) continue;
      c.push_back(static_cast<int>(i));
    }
    if (c.empty()) return false;
    int i = r_.pick(c);
    std::string f = fresh_axis("f");
    s.l1.push_back(fmt::format("fuse {} {} -> {}", s.dims[i].name, s.dims[i + 1].name, f));
    Axis& a = s.dims[i];
    const Axis& b = s.dims[i + 1];
    a.name = f;
    a.ext *= b.ext;
    a.orig = false;
    a.fixed = a.fixed && b.fixed;
    a.shifted = a.shifted || b.shifted;
    a.padded = a.padded || b.padded;
    s.dims.erase(s.dims.begin() + i + 1);
    return true;
  }

  bool do_parallel(MStage& s) {
    if (s.count(Kind::parallel) > 0 && r_.chance(0.7)) return false;
    auto c = mark_candidates(s, true);
    if (avoid_.parallel_shifted_reduction && s.has_red)
      c.erase(std::remove_if(c.begin(), c.end(), [&](int i) { return s.dims[i].shifted; }), c.end());
    if (c.empty()) return false;
    int i = r_.pick(c);
    s.l1.push_back("parallel " + s.dims[i].name);
    s.dims[i].kind = Kind::parallel;
    return true;
  }

  bool do_vectorize(MStage& s, int want = -1) {
    if (want < 0 && s.count(Kind::vectorized) > 0 && r_.chance(0.7)) return false;
    std::vector<int> c = want >= 0 ? std::vector<int>{want} : mark_candidates(s, true);
    if (c.empty()) return false;
    int i = r_.pick(c);
    const Axis a = s.dims[i];
    bool whole_ok = a.ext <= 64;  // at most 64 lanes
    bool named_ok = s.find(a.name + "_o") < 0 && s.find(a.name + "_v") < 0;
    if (named_ok && (!whole_ok || r_.chance(0.5))) {
      int64_t w = r_.pick(std::vector<int64_t>{4, 8, 16});
      s.l1.push_back(fmt::format("vectorize {} {}", a.name, w));
      if (w < a.ext) {  // else the whole axis
        split_axis(s, i, w, a.name + "_o", a.name + "_v", "guard");
        ++i;
      }
      s.dims[i].kind = Kind::vectorized;
    } else if (whole_ok) {
      s.l1.push_back("vectorize " + a.name);
      s.dims[i].kind = Kind::vectorized;
    } else {
      return false;
    }
    return true;
  }

  bool do_unroll(MStage& s) {
    if (s.count(Kind::unrolled) > 0) return false;  // keep the generated C small
    auto c = mark_candidates(s, false);
    if (c.empty()) return false;
    int i = r_.pick(c);
    const Axis a = s.dims[i];
    bool split_ok = can_relate(s, a) && s.find(a.name + "_o") < 0 && s.find(a.name + "_u") < 0 && a.ext >= 2;
    if (split_ok && (a.ext > 8 || r_.chance(0.6))) {
      int64_t f = r_.pick(std::vector<int64_t>{2, 3, 4});
      s.l1.push_back(fmt::format("unroll {} {}", a.name, f));
      if (f < a.ext) {  // else the whole axis
        split_axis(s, i, f, a.name + "_o", a.name + "_u", "guard");
        ++i;
      }
      s.dims[i].kind = Kind::unrolled;
    } else if (a.ext <= 8) {
      s.l1.push_back("unroll " + a.name);
      s.dims[i].kind = Kind::unrolled;
    } else {
      return false;
    }
    return true;
  }

  void random_l1(MStage& s, int n) {
    for (int i = 0; i < n; ++i) {
      int w = r_.below(100);
      if (w < 22) do_split(s);
      else if (w < 32) do_tile(s);
      else if (w < 46) do_reorder(s);
      else if (w < 54) do_fuse(s);
      else if (w < 70) do_parallel(s);
      else if (w < 88) do_vectorize(s);
      else do_unroll(s);
    }
  }

  // Bug 1 (see Avoid): no shifted pure axis inside the reduction's initialisation.
  bool shift_ok(const MStage& s) const {
    if (!avoid_.shift_inside_reduction || !s.has_red) return true;
    int fr = s.first_red();
    for (int i = fr + 1; fr >= 0 && i < static_cast<int>(s.dims.size()); ++i)
      if (s.dims[i].shifted && !s.dims[i].red) return false;
    return true;
  }
  // random_l1, drawn again (a few times) when the result would hit a known bug.
  void checked_l1(MStage& s, int n) {
    MStage saved = s;
    for (int attempt = 0; attempt < 6; ++attempt) {
      random_l1(s, n);
      if (shift_ok(s)) return;
      s = saved;
    }
  }

  // An illegal L1 directive (the model is left as it was). Returns false when none applies.
  bool mutate_l1(MStage& s) {
    int which = r_.below(6);
    std::vector<int> red, marked;
    for (size_t i = 0; i < s.dims.size(); ++i) {
      if (s.dims[i].red) red.push_back(static_cast<int>(i));
      if (s.dims[i].kind != Kind::serial) marked.push_back(static_cast<int>(i));
    }
    std::string d;
    if (which == 0 && !red.empty()) d = "parallel " + s.dims[r_.pick(red)].name;
    else if (which == 1 && !red.empty()) d = "vectorize " + s.dims[r_.pick(red)].name + " 8";
    else if (which == 2 && !red.empty())
      d = fmt::format("split {} 4 {} -> {} {}", s.dims[r_.pick(red)].name, r_.chance(0.5) ? "shift" : "pad", fresh_axis("x"),
                      fresh_axis("y"));
    else if (which == 3 && s.dims.size() >= 3)
      d = fmt::format("fuse {} {} -> {}", s.dims[0].name, s.dims[2].name, fresh_axis("f"));
    else if (which == 4 && !marked.empty())
      d = fmt::format("split {} 2 -> {} {}", s.dims[r_.pick(marked)].name, fresh_axis("x"), fresh_axis("y"));
    else if (which == 5) {
      int p = s.first_red();
      if (p > 0 && !s.dims[p - 1].red) d = fmt::format("fuse {} {} -> {}", s.dims[p - 1].name, s.dims[p].name, fresh_axis("f"));
    }
    if (d.empty()) return false;
    s.l1.push_back(d);
    mutation_ = s.name + ": " + d;
    return true;
  }

  // ---- building one schedule ----
  struct RfactorPlan {
    std::string stage, axis;
  };

  void build() {
    bool mutate = r_.chance(0.10);
    bool mutate_in_l1 = r_.chance(0.5);
    // Which intermediates are inlined (they get no L1 lines).
    std::set<std::string> inlined;
    for (auto& s : st_)
      if (!s.output && r_.chance(0.2)) inlined.insert(s.name);
    // L1 of the kernel's stages, with the split an rfactor needs first.
    std::vector<RfactorPlan> rfactors;
    for (auto& s : st_) {
      if (inlined.count(s.name) || r_.chance(0.2)) continue;  // inlined, or left with plain loops
      if (s.has_red && r_.chance(0.3)) {
        std::vector<int> red;
        for (size_t i = 0; i < s.dims.size(); ++i)
          if (s.dims[i].red && s.dims[i].ext >= 2) red.push_back(static_cast<int>(i));
        if (red.empty()) continue;
        int i = r_.pick(red);
        const Axis a = s.dims[i];
        rf_planned_.insert(s.name);
        if (r_.chance(0.2)) {
          s.protect.insert(a.name);
          rfactors.push_back({s.name, a.name});
        } else {
          int64_t f = pick_factor(a.ext);
          std::string tail = r_.pick(std::vector<std::string>{"", "guard"});
          std::string o = fresh_axis(a.name + "o"), in = fresh_axis(a.name + "i");
          s.l1.push_back(fmt::format("split {} {}{} -> {} {}", a.name, f, tail_text(tail), o, in));
          split_axis(s, i, f, o, in, tail);
          s.protect.insert({o, in});
          rfactors.push_back({s.name, r_.chance(0.75) ? in : o});
        }
      }
      checked_l1(s, 1 + r_.below(5));
      if (mutate && mutate_in_l1 && mutation_.empty() && r_.chance(0.5)) mutate_l1(s);
    }
    for (auto& s : st_) s.protect.clear();

    // L2, phase 1: inline.
    for (const auto& s : k_.stages) {
      if (!inlined.count(s.name)) continue;
      MStage* x = stage(s.name);
      emit_l2(s.name, "inline");
      std::set<std::string> reads = x->reads;
      for (auto& c : st_)
        if (c.reads.erase(s.name)) c.reads.insert(reads.begin(), reads.end());
      st_.erase(st_.begin() + stage_index(s.name));
    }
    // Phase 2: rfactor, then L1 on the new stage's new pure axis.
    for (const auto& plan : rfactors) {
      MStage* s = stage(plan.stage);
      std::string name = fresh_stage(plan.stage + "rf");
      emit_l2(plan.stage, fmt::format("rfactor {} -> {}", plan.axis, name));
      MStage part = *s;
      part.name = name;
      part.created = true;
      part.output = false;
      part.l1.clear();
      int ai = part.find(plan.axis);
      part.dims[ai].red = false;
      part.shape.push_back(part.dims[ai].ext);
      part.has_red = part.first_red() >= 0;
      Axis ax = s->dims[s->find(plan.axis)];
      ax.kind = Kind::serial;
      std::vector<Axis> dims;
      for (const auto& d : s->dims)
        if (!d.red) dims.push_back(d);
      dims.push_back(ax);
      s->dims = dims;
      s->reads = {name};
      s->has_red = true;
      insert_before(part, plan.stage);
      MStage& p = *stage(name);
      if (r_.chance(0.8)) {
        int i = p.find(plan.axis);
        if (r_.chance(0.6)) do_vectorize(p, i);
        else {
          p.l1.push_back("parallel " + plan.axis);
          p.dims[i].kind = Kind::parallel;
        }
      }
      checked_l1(p, r_.below(3));
      l1_order_.push_back(name);
    }
    // Phase 3: pack.
    for (const auto& [tensor, dim] : k_.packable) {
      if (!r_.chance(0.3)) continue;
      std::vector<std::string> readers;
      for (const auto& s : st_)
        if (s.reads.count(tensor)) readers.push_back(s.name);
      if (readers.empty()) continue;
      std::string x = r_.pick(readers);
      std::vector<int64_t> shape = shape_of(tensor);
      int64_t f = r_.pick(std::vector<int64_t>{2, 3, 4, 8, 16});
      std::string name = fresh_stage(tensor + "pk");
      emit_l2(x, fmt::format("pack {} {} {} -> {}", tensor, dim, f, name));
      MStage p;
      p.name = name;
      p.created = true;
      p.reads = {tensor};
      p.dims.push_back({"ax0", false, Kind::serial, (shape[dim] + f - 1) / f, true});
      int next = 1;
      for (size_t k = 0; k < shape.size(); ++k)
        if (static_cast<int>(k) != dim) p.dims.push_back({fmt::format("ax{}", next++), false, Kind::serial, shape[k], true});
      p.dims.push_back({fmt::format("ax{}", next), false, Kind::serial, f, true, true});
      for (const auto& d : p.dims) p.shape.push_back(d.ext);
      MStage* xs = stage(x);
      xs->reads.erase(tensor);
      xs->reads.insert(name);
      insert_before(p, x);
      if (r_.chance(0.5)) checked_l1(*stage(name), 1 + r_.below(2));
      l1_order_.push_back(name);
    }
    // Phase 4: cache_write.
    {
      std::vector<std::string> names;
      for (const auto& s : st_) names.push_back(s.name);
      for (const auto& n : names) {
        MStage* s = stage(n);
        if (!r_.chance(s->created ? 0.08 : 0.15)) continue;
        std::string scope = r_.chance(0.5) ? "local" : "global";
        std::vector<int> pure;
        for (size_t i = 0; i < s->dims.size(); ++i)
          if (!s->dims[i].red) pure.push_back(static_cast<int>(i));
        std::string at = !pure.empty() && r_.chance(0.5) ? s->dims[r_.pick(pure)].name : "";
        std::string name = fresh_stage(n + "cw");
        emit_l2(n, fmt::format("cache_write {}{} -> {}", scope, at.empty() ? "" : " at " + at, name));
        MStage c = *s;
        c.name = name;
        c.created = true;
        c.output = false;
        c.l1.clear();
        c.at_stage = at.empty() ? "" : n;
        c.at_dim = at;
        if (!at.empty())  // it runs inside one iteration of n's loops: its loops are not parallel
          for (auto& d : c.dims)
            if (d.kind == Kind::parallel) d.kind = Kind::serial;
        std::vector<Axis> dims;
        for (const auto& d : s->dims)
          if (!d.red) dims.push_back(d);
        s->dims = dims;
        s->reads = {name};
        s->has_red = false;
        insert_before(c, n);
        if (r_.chance(0.3)) checked_l1(*stage(name), 1 + r_.below(2));
        l1_order_.push_back(name);
      }
    }
    // Phase 5: cache_read. A stage computed inside X's loop `d` can only be cached inside `d` too.
    {
      std::vector<std::string> names;
      for (const auto& s : st_) names.push_back(s.name);
      for (const auto& n : names) {
        MStage* x = stage(n);
        if (!r_.chance(0.18) || x->reads.empty()) continue;
        std::vector<std::string> reads(x->reads.begin(), x->reads.end());
        std::string t = r_.pick(reads);
        const MStage* ts = stage(t);
        int lo = 0;
        bool need_at = false;
        if (ts && !ts->at_stage.empty()) {
          if (ts->at_stage != n) continue;
          lo = x->find(ts->at_dim);
          need_at = true;
        }
        std::string at;
        if ((need_at || r_.chance(0.6)) && !x->dims.empty() && depth(n) < kMaxComputeDepth)
          at = x->dims[lo + r_.below(x->dims.size() - lo)].name;
        if (need_at && at.empty()) continue;
        std::string scope = r_.chance(0.5) ? "local" : "global";
        bool named = r_.chance(0.75) || used_names_.count(t + "_" + scope);
        std::string name = named ? fresh_stage(t + "cr") : t + "_" + scope;
        used_names_.insert(name);
        emit_l2(n, fmt::format("cache_read {} {}{}{}", t, scope, at.empty() ? "" : " at " + at, named ? " -> " + name : ""));
        MStage c;
        c.name = name;
        c.created = true;
        c.reads = {t};
        c.shape = shape_of(t);
        for (size_t k = 0; k < c.shape.size(); ++k)
          c.dims.push_back({fmt::format("ax{}", k), false, Kind::serial, c.shape[k], true});
        c.at_stage = at.empty() ? "" : n;
        c.at_dim = at;
        x->reads.erase(t);
        x->reads.insert(name);
        insert_before(c, n);
        if (named && r_.chance(0.35)) {
          checked_l1(*stage(name), 1 + r_.below(2));
          l1_order_.push_back(name);
        }
      }
    }
    // Phase 6: decompose_reduction at a pure axis outside every reduction loop (and, for bug 1,
    // inside every shifted axis).
    for (auto& s : st_) {
      if (!s.has_red || !r_.chance(0.2)) continue;
      int p = s.first_red(), lo = 0;
      if (avoid_.shift_inside_reduction)
        for (int i = 0; i < p; ++i)
          if (s.dims[i].shifted) lo = i;
      if (p <= lo) continue;
      emit_l2(s.name, "decompose_reduction " + s.dims[lo + r_.below(p - lo)].name);
    }
    // Phase 7: compute_at / store_at, consumers first. Every other consumer of a producer must be
    // computed inside the same stage, at the producer's axis or inside it.
    for (int i = static_cast<int>(st_.size()) - 1; i >= 0; --i) {
      MStage& p = st_[i];
      if (p.output || !p.at_stage.empty() || !r_.chance(0.5)) continue;
      std::vector<std::string> consumers;
      for (const auto& c : st_)
        if (c.reads.count(p.name)) consumers.push_back(c.name);
      r_.shuffle(consumers);
      for (const auto& t : consumers) {
        if (depth(t) + 1 + height(p.name) > kMaxComputeDepth) continue;
        const MStage& ts = *stage(t);
        int limit = static_cast<int>(ts.dims.size()) - 1;
        bool ok = limit >= 0;
        for (const auto& o : consumers) {
          if (o == t) continue;
          const MStage& os = *stage(o);
          if (os.at_stage != t) ok = false;
          else limit = std::min(limit, ts.find(os.at_dim));
        }
        if (!ok || limit < 0) continue;
        int d = r_.below(limit + 1);
        p.at_stage = t;
        p.at_dim = ts.dims[d].name;
        emit_l2(p.name, fmt::format("compute_at {} {}", t, p.at_dim));
        if (r_.chance(0.25)) {
          int lo = 0;  // bug 6: not outside a parallel loop that encloses the compute_at loop
          for (int k = 0; avoid_.store_outside_parallel && k <= d; ++k)
            if (ts.dims[k].kind == Kind::parallel) lo = k;
          emit_l2(p.name, fmt::format("store_at {} {}", t, ts.dims[lo + r_.below(d - lo + 1)].name));
        }
        break;
      }
    }
    if (mutate && mutation_.empty()) mutate_l2();
  }

  // An illegal L2 directive appended at the end.
  void mutate_l2() {
    int which = r_.below(4);
    std::string s, d;
    if (which == 0) {
      for (const auto& x : st_) {
        int p = x.first_red();
        if (!x.has_red || p < 0) continue;
        s = x.name;
        d = "decompose_reduction " + x.dims[p + r_.below(x.dims.size() - p)].name;  // at or inside a reduction loop
      }
    } else if (which == 1) {
      for (const auto& x : st_) {
        const MStage& t = st_.front();
        if (x.output && t.name != x.name && !t.dims.empty()) {
          s = x.name;
          d = fmt::format("compute_at {} {}", t.name, t.dims[0].name);
        }
      }
    } else if (which == 2) {
      for (const auto& x : st_)
        if (x.output) {
          s = x.name;
          d = "inline";
        }
    } else {
      // A producer with two consumers computed inside just one of them.
      for (const auto& p : st_) {
        if (p.output) continue;
        std::vector<std::string> consumers;
        for (const auto& c : st_)
          if (c.reads.count(p.name)) consumers.push_back(c.name);
        if (consumers.size() < 2) continue;
        const MStage& t = *stage(consumers[0]);
        const MStage& o = *stage(consumers[1]);
        if (o.at_stage != t.name && !t.dims.empty()) {
          s = p.name;
          d = fmt::format("compute_at {} {}", t.name, t.dims.back().name);
        }
      }
    }
    if (d.empty()) return;
    emit_l2(s, d);
    mutation_ = s + ": " + d;
  }

  std::string render() const {
    std::string l1, l2;
    for (const auto& n : l1_order_) {
      const MStage* s = nullptr;
      for (const auto& x : st_)
        if (x.name == n) s = &x;
      if (!s || s->l1.empty()) continue;
      l1 += "  " + n + ":";
      for (size_t i = 0; i < s->l1.size(); ++i) l1 += (i ? "; " : " ") + s->l1[i];
      l1 += "\n";
    }
    for (const auto& line : l2_) l2 += "  " + line + "\n";
    std::string text;
    if (!l1.empty()) text += "schedule cpu\n" + l1;
    if (!l2.empty()) text += (text.empty() ? "" : "\n") + std::string("memory cpu\n") + l2;
    return text;
  }
};

}  // namespace ekb::test::sgen
