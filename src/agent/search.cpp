// The search policy's loop (search.h).
#include "agent/search.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <set>

namespace ekb::agent {

namespace {

// Rounds without a gain before a layer hands over to the next. L0's rewrites are few and each
// changes the whole program: a round that gains nothing has shown what they are worth.
int patience(AgentLayer layer) { return layer == AgentLayer::compute ? 1 : 2; }

struct Measured {
  AgentProgram program;
  Evaluation eval;
  int step = 0;
};

class Loop {
 public:
  Loop(const Target& t, Measurer& m, const SearchOptions& o, StepLog* log, const std::function<void(const Step&)>& progress)
      : t_(t), m_(m), o_(o), log_(log), progress_(progress), model_(t), start_(std::chrono::steady_clock::now()) {}

  SearchResult run(const AgentProgram& start) {
    auto a = analyze(start, t_, &err_);
    if (!a) throw std::runtime_error("the starting program does not lower: " + err_);
    predict_and_measure(start, *a, AgentLayer::schedule, "start: the default schedule");
    if (r_.best_eval.outcome != Outcome::ok) {
      r_.stopped = "the starting program failed: " + std::string(outcome_name(r_.best_eval.outcome));
      return finish();
    }
    std::vector<AgentLayer> first = {AgentLayer::schedule, AgentLayer::memory};
    if (o_.compute_layer) first.insert(first.begin(), AgentLayer::compute);
    bool gained = run_layers(first);
    for (int c = 0; c < o_.max_cycles && gained && !out_of_budget(); ++c)
      gained = run_layers({AgentLayer::schedule, AgentLayer::memory});
    if (r_.stopped.empty()) r_.stopped = out_of_budget() ? stop_reason() : "converged";
    confirm_best();
    return finish();
  }

 private:
  const Target& t_;
  Measurer& m_;
  SearchOptions o_;
  StepLog* log_;
  std::function<void(const Step&)> progress_;
  CostModel model_;
  std::chrono::steady_clock::time_point start_;
  std::string err_;
  SearchResult r_;
  std::vector<Measured> measured_;  // every measured program, in order
  std::set<uint64_t> seen_;         // programs measured or found illegal
  // Seconds the measurements took (stored with each step, so a resumed search shares its time
  // limit among the layers as the first run did).
  double spent_s_ = 0;

  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
  // The wall clock, or the measurements' own seconds where they say more (a resumed search counts
  // the time its stored steps took).
  bool out_of_time() const { return o_.time_limit_s > 0 && std::max(elapsed(), spent_s_) >= o_.time_limit_s; }
  // The measurements kept for the confirmations: the best's (a budget of 1 or 2 has none to spare)
  // and, from a budget of 8, the runner-up's.
  int reserved() const { return !o_.confirm || o_.budget < 3 ? 0 : o_.budget < 8 ? 1 : 2; }
  bool out_of_budget() const { return r_.measured >= o_.budget - reserved() || out_of_time(); }
  std::string stop_reason() const { return r_.measured >= o_.budget - reserved() ? "budget" : "time limit"; }

  // The program measured second best by the search (a correct one, neither the best nor the start).
  const Measured* runner_up() const {
    const Measured* r = nullptr;
    for (const auto& m : measured_)
      if (m.step != 0 && m.eval.correct() && m.program.hash() != r_.best.hash() && (!r || m.eval.speedup > r->eval.speedup)) r = &m;
    return r;
  }

  // The best program, and the runner-up, measured again (the runner-up first): the one faster now is
  // kept when it is again faster than the start beyond noise; else the start is.
  void confirm_best() {
    if (!o_.confirm || r_.best_is_start || !r_.best_eval.correct() || r_.measured >= o_.budget) return;
    std::vector<AgentProgram> again;
    if (const Measured* second = runner_up(); second && reserved() >= 2 && r_.measured + 2 <= o_.budget) again.push_back(second->program);
    again.push_back(r_.best);
    Evaluation before = r_.best_eval;
    std::vector<size_t> at;  // the confirmation steps' indices
    for (const auto& p : again) {
      auto a = analyze(p, t_, &err_);
      if (!a) continue;
      bool best = p.hash() == r_.best.hash();
      measure_step(p, *a, r_.steps.back().layer, best ? kConfirmAction : kConfirmRunnerUpAction, MeasureAsk{0, true});
      at.push_back(r_.steps.size() - 1);
      // (Stored as measured, so that a search killed before the decision keeps the measurement.)
      if (log_ && !replayed_) log_->record(r_.steps.back());
    }
    if (at.empty()) return;
    // The one faster now, if it holds beyond the start.
    size_t keep = at.back();
    for (size_t i : at)
      if (r_.steps[i].eval.correct() && (!r_.steps[keep].eval.correct() || r_.steps[i].eval.speedup > r_.steps[keep].eval.speedup)) keep = i;
    Step& k = r_.steps[keep];
    if (k.eval.correct() && sure_speedup(k.eval) > 1.0) {
      k.accepted = true;
      r_.best = k.program;
      r_.best_eval = k.eval;  // the unselected measurement: the figure the search reports
      if (k.action == kConfirmRunnerUpAction)
        r_.stopped += fmt::format("; the runner-up measured {:.2f}x again, the best ({:.2f}x) {:.2f}x: the runner-up is kept",
                                  k.eval.speedup, before.speedup, r_.steps[at.back()].eval.speedup);
    } else {
      const Evaluation& b = r_.steps[at.back()].eval;
      r_.unconfirmed = true;
      r_.best = r_.steps.front().program;
      r_.best_eval = r_.steps.front().eval;
      r_.best_is_start = true;
      r_.stopped += fmt::format("; the best ({:.2f}x) measured {} again{}: the start is kept", before.speedup,
                                b.correct() ? fmt::format("{:.2f}x [{:.2f}, {:.2f}]", b.speedup, b.speedup_lo, b.speedup_hi)
                                            : std::string(outcome_name(b.outcome)),
                                at.size() > 1 ? ", and the runner-up no better" : "");
    }
    replayed_ = false;  // (each is stored again with the decision: the same step, replaced)
    for (size_t i : at) finish_step(r_.steps[i]);
  }

  SearchResult finish() {
    if (r_.stopped.empty()) r_.stopped = stop_reason();
    return r_;
  }

  // The best program's speedup, for comparisons. The start is the baseline itself: its speedup is 1
  // by definition, whatever the noise of its own measurement said.
  double best_speedup() const {
    if (!r_.best_eval.correct()) return 0;
    return r_.best_is_start ? 1.0 : r_.best_eval.speedup;
  }
  // A candidate replaces the best only when it is faster beyond its measurement's noise: the lower
  // bound of its speedup's 95% interval above the best's speedup (a lucky round is not a gain).
  static double sure_speedup(const Evaluation& e) { return e.speedup_lo > 0 ? e.speedup_lo : e.speedup; }

  // Measures `p` (or replays its stored measurement) as the next step, appended to the steps; the
  // caller decides whether it is accepted, then calls finish_step.
  Step& measure_step(const AgentProgram& p, const Analysis& a, AgentLayer layer, const std::string& action,
                     const MeasureAsk& ask = {}) {
    Step s;
    s.index = static_cast<int>(r_.steps.size());
    s.layer = layer;
    s.action = action;
    s.program = p;
    s.predicted_ms = model_.combine(cost_terms(a.kernel, t_)) * 1e-6;
    std::optional<Step> old = log_ ? log_->stored(s.index) : std::nullopt;
    replayed_ = old && old->program.hash() == p.hash();
    if (replayed_) {
      s.eval = old->eval;
    } else {
      if (old) log_->forget_from(s.index);
      s.eval = m_.measure(p, ask);
    }
    ++r_.measured;
    spent_s_ += s.eval.seconds;
    seen_.insert(p.hash());
    r_.steps.push_back(std::move(s));
    return r_.steps.back();
  }
  void finish_step(const Step& s) {
    if (log_ && !replayed_) log_->record(s);
    if (progress_) progress_(s);
  }
  bool replayed_ = false;  // the step measure_step last took came from the store

  // Measures `p` as the next step of the search: accepted when it beats the best beyond its noise.
  // A candidate surely slower than the best is measured no further than it takes to know that (the
  // start and the confirmation are measured in full).
  void predict_and_measure(const AgentProgram& p, const Analysis& a, AgentLayer layer, const std::string& action) {
    CostTerms terms = cost_terms(a.kernel, t_);
    Step& s = measure_step(p, a, layer, action, MeasureAsk{r_.steps.empty() ? 0.0 : best_speedup(), false});
    if (s.eval.correct()) {
      model_.observe(terms, s.eval.candidate.median);
      model_.refit();
      if (s.index == 0 || sure_speedup(s.eval) > best_speedup()) {
        s.accepted = true;
        r_.best = p;
        r_.best_eval = s.eval;
        r_.best_is_start = s.index == 0;
      }
      measured_.push_back({p, s.eval, s.index});
    } else if (s.index == 0) {
      r_.best = p;
      r_.best_eval = s.eval;
      r_.best_is_start = true;
    }
    finish_step(s);
  }

  // The beam: the best measured correct programs, best first.
  std::vector<const Measured*> beam() const {
    std::vector<const Measured*> v;
    for (const auto& m : measured_) v.push_back(&m);
    std::stable_sort(v.begin(), v.end(), [](const Measured* a, const Measured* b) { return a->eval.speedup > b->eval.speedup; });
    if (static_cast<int>(v.size()) > o_.beam) v.resize(static_cast<size_t>(o_.beam));
    return v;
  }

  struct Ranked {
    Action action;
    Analysis analysis;
    double predicted;
  };

  // One layer's rounds until it stops gaining, its share of the budget is spent (`slice`
  // measurements, or measurements until `time_until` seconds of them), or the budget ends; true
  // when it gained.
  bool run_layer(AgentLayer layer, int slice, double time_until) {
    bool gained = false;
    int stalled = 0;
    int until = r_.measured + slice;
    auto share_spent = [&] { return r_.measured >= until || spent_s_ >= time_until; };
    while (!out_of_budget() && !share_spent()) {
      double before = best_speedup();
      std::vector<Ranked> ranked;
      for (const Measured* b : beam()) {
        auto a = analyze(b->program, t_, &err_);
        if (!a) continue;
        for (auto& act : enumerate_actions(b->program, *a, layer, t_)) {
          uint64_t h = act.program.hash();
          if (!seen_.insert(h).second) continue;
          auto ca = analyze(act.program, t_, &err_);
          if (!ca) {
            ++r_.illegal;
            continue;
          }
          ++r_.candidates;
          double pred = model_.predict(ca->kernel);
          ranked.push_back({std::move(act), std::move(*ca), pred});
        }
      }
      if (ranked.empty()) break;
      std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& x, const Ranked& y) { return x.predicted < y.predicted; });
      // The round: the best-ranked candidate of each kind of revision first (the model is only a
      // guide, and a kind it misjudges would otherwise never be measured), then the best of the rest.
      std::vector<size_t> pick;
      std::set<ActionKind> kinds;
      for (size_t i = 0; i < ranked.size() && pick.size() < static_cast<size_t>(o_.per_round); ++i)
        if (kinds.insert(ranked[i].action.kind).second) pick.push_back(i);
      for (size_t i = 0; i < ranked.size() && pick.size() < static_cast<size_t>(o_.per_round); ++i)
        if (std::find(pick.begin(), pick.end(), i) == pick.end()) pick.push_back(i);
      std::sort(pick.begin(), pick.end());
      std::set<size_t> measured;
      for (size_t i : pick) {
        if (out_of_budget() || share_spent()) break;
        predict_and_measure(ranked[i].action.program, ranked[i].analysis, ranked[i].action.layer, ranked[i].action.name);
        measured.insert(i);
      }
      // Unmeasured candidates may be generated again from another beam later: let them come back.
      for (size_t i = 0; i < ranked.size(); ++i)
        if (!measured.count(i)) seen_.erase(ranked[i].action.program.hash());
      bool round_gained = best_speedup() > before * (1 + o_.min_gain);
      gained = gained || round_gained;
      stalled = round_gained ? 0 : stalled + 1;
      if (stalled >= patience(layer)) break;
    }
    return gained;
  }

  // Each layer gets an equal share of what is left of the budget, and of the time limit (a layer
  // that stalls early leaves its share to the next): without the second, a layer whose candidates
  // take long to measure (a model graph's) would spend the time of the layers after it.
  bool run_layers(const std::vector<AgentLayer>& layers) {
    bool gained = false;
    for (size_t i = 0; i < layers.size(); ++i) {
      if (out_of_budget()) break;
      int ways = static_cast<int>(layers.size() - i);
      int slice = std::max(o_.per_round, (o_.budget - r_.measured) / ways);
      double time_until = o_.time_limit_s > 0 ? spent_s_ + std::max(0.0, o_.time_limit_s - spent_s_) / ways
                                              : std::numeric_limits<double>::infinity();
      gained = run_layer(layers[i], slice, time_until) || gained;
    }
    return gained;
  }
};

}  // namespace

SearchResult search(const AgentProgram& start, const Target& target, Measurer& m, const SearchOptions& o, StepLog* log,
                    const std::function<void(const Step&)>& progress) {
  return Loop(target, m, o, log, progress).run(start);
}

}  // namespace ekb::agent
