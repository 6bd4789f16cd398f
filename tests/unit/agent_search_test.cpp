// LEKA's search logic, deterministically, with a fake timer in place of the harness: the oracle's
// time of a program is a fixed function of its lowered loops (a machine on which parallel regions
// are expensive and wide vectors pay), so the test knows what a good search must find. Also: every
// measured program is legal, the budget holds, the same measurements give the same search, and a
// search interrupted by a crash resumes from its stored steps without measuring them again.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

#include "agent/search.h"
#include "agent/trajectory.h"
#include "ir/check.h"
#include "suite/suite.h"

namespace ekb::agent {
namespace {

const Suite& suite() {
  static Suite s = Suite::load(std::string(EKB_SOURCE_DIR) + "/suite");
  return s;
}

Target host() {
  Target t = default_target(Backend::cpu);
  set_isa(t, Isa::avx2);  // the same tables on every machine the test runs on
  t.threads = 2;
  t.l1_bytes = 48 << 10;  // (an AMD Zen 5's caches, named: the host's own would vary the default schedule)
  t.l2_bytes = 1 << 20;
  t.l3_bytes = 32 << 20;
  return t;
}

// The fake machine: 20 us per parallel region, and the analytic terms otherwise.
class Oracle : public Measurer {
 public:
  explicit Oracle(const Target& t, const AgentProgram& baseline) : t_(t) { base_ms_ = time_of(baseline); }
  int calls = 0, illegal = 0;
  int throw_after = -1;  // simulate a crash after this many measurements
  double seconds = 0;    // what each measurement reports it took
  std::vector<MeasureAsk> asks;  // what each measurement was asked
  Evaluation measure(const AgentProgram& p, const MeasureAsk& ask) override {
    if (throw_after >= 0 && calls >= throw_after) throw std::runtime_error("killed");
    ++calls;
    asks.push_back(ask);
    Evaluation e;
    e.seconds = seconds;
    auto a = analyze(p, t_);
    if (!a) {
      ++illegal;
      e.outcome = Outcome::compile;
      return e;
    }
    double ms = time_of(p);
    e.candidate = summarize_times({ms, ms, ms});
    e.baseline = summarize_times({base_ms_, base_ms_, base_ms_});
    e.speedup = base_ms_ / ms;
    e.speedup_lo = e.speedup * 0.99;
    e.speedup_hi = e.speedup * 1.01;
    return e;
  }
  double time_of(const AgentProgram& p) const {
    auto a = analyze(p, t_);
    CostTerms c = cost_terms(a->kernel, t_);
    return (c.compute + c.latency + c.memory + 5 * c.parallel + c.loops) * 1e-6 + 0.002;
  }

 private:
  Target t_;
  double base_ms_ = 1;
};

// Steps kept in memory, as the store keeps them.
class MemoryLog : public StepLog {
 public:
  std::map<int, Step> steps;
  std::optional<Step> stored(int i) override {
    auto it = steps.find(i);
    return it == steps.end() ? std::nullopt : std::optional<Step>(it->second);
  }
  void record(const Step& s) override { steps[s.index] = s; }
  void forget_from(int i) override { steps.erase(steps.lower_bound(i), steps.end()); }
};

AgentProgram start_of(const std::string& task) { return default_program(*suite().find(task)->program, host()); }
// The task's plain loops, no directive: a start the fake machine leaves room to improve on (the
// default schedule is close to what the analytic terms call best already).
AgentProgram plain_start_of(const std::string& task) { return program_from(start_of(task).kernel, "", Backend::cpu); }

TEST(AgentSearch, FindsAFasterLegalProgramWithinTheBudget) {
  for (const char* task : {"softmax_attn_4x64x64", "layernorm_128x256", "linear_qkv_64x128x384"}) {
    AgentProgram start = plain_start_of(task);
    Oracle m(host(), start);
    SearchOptions o;
    o.budget = 20;
    SearchResult r = search(start, host(), m, o);
    EXPECT_EQ(m.illegal, 0) << task << ": an illegal program was measured";
    EXPECT_LE(r.measured, o.budget) << task;
    EXPECT_EQ(m.calls, r.measured) << task;
    EXPECT_GT(r.best_eval.speedup, 1.2) << task << "\n" << r.best.text();
    EXPECT_TRUE(analyze(r.best, host())) << task;
    EXPECT_TRUE(r.steps.front().accepted) << task;  // the start is the first best
    int accepted = 0;
    for (const auto& s : r.steps) accepted += s.accepted;
    EXPECT_GE(accepted, 2) << task;
  }
}

// Each candidate is told the best's speedup at the time (it may stop timing once surely below it);
// the start is measured in full, and the final confirmation with an attempt's full timing.
TEST(AgentSearch, CandidatesAreToldTheBestTheyMustBeat) {
  AgentProgram start = start_of("layernorm_128x256");
  Oracle m(host(), start);
  SearchOptions o;
  o.budget = 12;
  SearchResult r = search(start, host(), m, o);
  ASSERT_EQ(m.asks.size(), r.steps.size());
  ASSERT_GE(r.steps.size(), 4u);
  EXPECT_EQ(m.asks.front().hopeless_below, 0.0);
  EXPECT_FALSE(m.asks.front().full);
  EXPECT_EQ(r.steps.back().action, kConfirmAction);
  EXPECT_EQ(m.asks.back().hopeless_below, 0.0);
  EXPECT_TRUE(m.asks.back().full);
  double best = 1.0;  // the start is the baseline itself
  for (size_t i = 1; i < r.steps.size(); ++i) {
    if (is_confirmation(r.steps[i].action)) {  // the best and the runner-up again, in full
      EXPECT_TRUE(m.asks[i].full) << "step " << i;
      EXPECT_EQ(m.asks[i].hopeless_below, 0.0) << "step " << i;
      continue;
    }
    EXPECT_DOUBLE_EQ(m.asks[i].hopeless_below, best) << "step " << i;
    EXPECT_FALSE(m.asks[i].full) << "step " << i;
    if (r.steps[i].accepted) best = r.steps[i].eval.speedup;
  }
  EXPECT_GT(best, 1.0);  // (so that the figures above were not all the start's)
}

// A candidate whose speedup is above the best's only within its interval's noise does not replace
// it (the start counts as 1.0: it is the baseline, whatever its own measurement said); one whose
// interval is above does.
class NoisyOracle : public Measurer {
 public:
  NoisyOracle(uint64_t start, uint64_t sure) : start_(start), sure_(sure) {}
  Evaluation measure(const AgentProgram& p, const MeasureAsk&) override {
    Evaluation e;
    e.candidate = summarize_times({1, 1, 1});
    e.baseline = summarize_times({1, 1, 1});
    if (p.hash() == start_) e.speedup = 0.96, e.speedup_lo = 0.93, e.speedup_hi = 1.0;
    else if (p.hash() == sure_) e.speedup = 1.10, e.speedup_lo = 1.06, e.speedup_hi = 1.14;
    else e.speedup = 1.04, e.speedup_lo = 0.97, e.speedup_hi = 1.11;
    return e;
  }

 private:
  uint64_t start_, sure_;
};

TEST(AgentSearch, AGainWithinTheNoiseIsNotAccepted) {
  AgentProgram start = start_of("layernorm_128x256");
  SearchOptions o;
  o.budget = 12;
  NoisyOracle noisy(start.hash(), 0);
  SearchResult r = search(start, host(), noisy, o);
  ASSERT_GT(r.measured, 1);
  EXPECT_TRUE(r.best_is_start);
  EXPECT_EQ(r.best.hash(), start.hash());
  for (size_t i = 1; i < r.steps.size(); ++i) EXPECT_FALSE(r.steps[i].accepted) << r.steps[i].action;
  // The same search where the second measured program is faster beyond its noise: it is kept.
  NoisyOracle probe(start.hash(), 0);
  SearchResult first = search(start, host(), probe, o);
  uint64_t second = first.steps.at(1).program.hash();
  NoisyOracle sure(start.hash(), second);
  SearchResult k = search(start, host(), sure, o);
  EXPECT_FALSE(k.best_is_start);
  EXPECT_EQ(k.best.hash(), second);
  EXPECT_TRUE(k.steps.at(1).accepted);
}

// The same, but the program that measured faster beyond its noise measures slower the second time
// (a lucky first measurement). With `first`, its first measurement is that speedup, and `sure`
// another program that holds.
class LuckyOnceOracle : public NoisyOracle {
 public:
  LuckyOnceOracle(uint64_t start, uint64_t lucky, uint64_t sure = 0, double first = 0)
      : NoisyOracle(start, sure ? sure : lucky), lucky_(lucky), first_(first) {}
  Evaluation measure(const AgentProgram& p, const MeasureAsk& ask) override {
    Evaluation e = NoisyOracle::measure(p, ask);
    if (p.hash() != lucky_) return e;
    if (seen_++ > 0) e.speedup = 0.97, e.speedup_lo = 0.94, e.speedup_hi = 1.0;
    else if (first_ > 0) e.speedup = first_, e.speedup_lo = first_ - 0.05, e.speedup_hi = first_ + 0.05;
    return e;
  }

 private:
  uint64_t lucky_;
  double first_;
  int seen_ = 0;
};

TEST(AgentSearch, TheBestIsMeasuredAgainAndKeptOnlyIfItHolds) {
  AgentProgram start = start_of("layernorm_128x256");
  SearchOptions o;
  o.budget = 12;
  NoisyOracle probe(start.hash(), 0);
  uint64_t second = search(start, host(), probe, o).steps.at(1).program.hash();
  // It holds: the last step measures it again and is accepted; the figure reported is the new one.
  NoisyOracle sure(start.hash(), second);
  SearchResult k = search(start, host(), sure, o);
  EXPECT_LE(k.measured, o.budget);
  ASSERT_EQ(k.steps.back().action, kConfirmAction);
  EXPECT_EQ(k.steps.back().program.hash(), second);
  EXPECT_TRUE(k.steps.back().accepted);
  EXPECT_FALSE(k.unconfirmed);
  EXPECT_EQ(k.best.hash(), second);
  // It does not: the start is kept, and the search says why.
  LuckyOnceOracle lucky(start.hash(), second);
  SearchResult u = search(start, host(), lucky, o);
  EXPECT_LE(u.measured, o.budget);
  ASSERT_EQ(u.steps.back().action, kConfirmAction);
  EXPECT_FALSE(u.steps.back().accepted);
  EXPECT_TRUE(u.steps.at(1).accepted);  // it had been the best
  EXPECT_TRUE(u.unconfirmed);
  EXPECT_TRUE(u.best_is_start);
  EXPECT_EQ(u.best.hash(), start.hash());
  EXPECT_NE(u.stopped.find("the start is kept"), std::string::npos) << u.stopped;
  // Without the confirmation, the lucky program would have stayed.
  o.confirm = false;
  LuckyOnceOracle again(start.hash(), second);
  EXPECT_EQ(search(start, host(), again, o).best.hash(), second);
}

// The best measured far above the rest once (lucky) and at the start's speed again; the runner-up,
// faster than the start beyond its noise both times, is kept instead of the start.
TEST(AgentSearch, TheRunnerUpIsKeptWhenTheBestDoesNotHoldAndItDoes) {
  AgentProgram start = start_of("layernorm_128x256");
  SearchOptions o;
  o.budget = 12;
  NoisyOracle probe(start.hash(), 0);
  SearchResult first = search(start, host(), probe, o);
  uint64_t lucky = first.steps.at(1).program.hash(), sure = first.steps.at(2).program.hash();
  LuckyOnceOracle m(start.hash(), lucky, sure, 1.30);
  SearchResult r = search(start, host(), m, o);
  EXPECT_LE(r.measured, o.budget);
  ASSERT_GE(r.steps.size(), 3u);
  const Step& again_second = r.steps[r.steps.size() - 2];
  const Step& again_best = r.steps.back();
  EXPECT_EQ(again_second.action, kConfirmRunnerUpAction);
  EXPECT_EQ(again_second.program.hash(), sure);
  EXPECT_TRUE(again_second.accepted);
  EXPECT_EQ(again_best.action, kConfirmAction);
  EXPECT_EQ(again_best.program.hash(), lucky);
  EXPECT_FALSE(again_best.accepted);
  EXPECT_EQ(r.best.hash(), sure);
  EXPECT_FALSE(r.unconfirmed);
  EXPECT_DOUBLE_EQ(r.best_eval.speedup, 1.10);
  EXPECT_NE(r.stopped.find("the runner-up is kept"), std::string::npos) << r.stopped;
  // The optimization path ends at the runner-up's confirmation, not at the start.
  std::vector<StepRecord> records;
  for (const auto& s : r.steps) {
    StepRecord x;
    x.step = s.index, x.layer = layer_label(s.layer), x.action = s.action, x.accepted = s.accepted, x.eval = s.eval;
    records.push_back(x);
  }
  Trajectory t = trajectory_of(records);
  ASSERT_FALSE(t.path.empty());
  EXPECT_EQ(t.path.back().step->action, kConfirmRunnerUpAction);
  // With a budget under 8 only the best is measured again (and the start is kept).
  o.budget = 7;
  LuckyOnceOracle small(start.hash(), lucky, sure, 1.30);
  SearchResult s = search(start, host(), small, o);
  for (const auto& st : s.steps) EXPECT_NE(st.action, kConfirmRunnerUpAction);
  EXPECT_TRUE(s.best_is_start);
}

TEST(AgentSearch, ATrajectoryWhoseBestDidNotHoldEndsAtTheStart) {
  auto step = [](int i, const char* layer, const char* action, double speedup, bool accepted) {
    StepRecord r;
    r.step = i;
    r.layer = layer;
    r.action = action;
    r.accepted = accepted;
    r.eval.speedup = speedup;
    return r;
  };
  Trajectory t = trajectory_of({step(0, "L1", "start: the default schedule", 1.0, true), step(1, "L1", "C: vectorize n by 8", 1.1, true),
                                step(2, "L1", kConfirmAction, 0.97, false)});
  ASSERT_EQ(t.path.size(), 3u);
  EXPECT_EQ(t.path.back().step->step, 0);
  EXPECT_NEAR(t.path.back().gain, 1.0 / 1.1, 1e-9);
  for (const auto& [layer, n, gain] : t.by_layer)
    if (layer == "L1") EXPECT_NEAR(gain, 1.1, 1e-9) << "the confirmation is no layer's gain or loss";
}

TEST(AgentSearch, TheSameMeasurementsGiveTheSameSearch) {
  AgentProgram start = start_of("layernorm_128x256");
  Oracle a(host(), start), b(host(), start);
  SearchOptions o;
  o.budget = 14;
  SearchResult x = search(start, host(), a, o), y = search(start, host(), b, o);
  ASSERT_EQ(x.steps.size(), y.steps.size());
  for (size_t i = 0; i < x.steps.size(); ++i) EXPECT_EQ(x.steps[i].program.text(), y.steps[i].program.text()) << i;
  EXPECT_EQ(x.best.text(), y.best.text());
}

TEST(AgentSearch, ACrashedSearchResumesFromItsStoredStepsWithoutMeasuringThemAgain) {
  AgentProgram start = start_of("softmax_attn_4x64x64");
  SearchOptions o;
  o.budget = 16;
  Oracle whole(host(), start);
  SearchResult uninterrupted = search(start, host(), whole, o);

  MemoryLog log;
  Oracle crashing(host(), start);
  crashing.throw_after = 7;
  EXPECT_THROW(search(start, host(), crashing, o, &log), std::runtime_error);
  EXPECT_EQ(log.steps.size(), 7u);

  Oracle resumed(host(), start);
  SearchResult r = search(start, host(), resumed, o, &log);
  EXPECT_EQ(resumed.calls, uninterrupted.measured - 7) << "stored steps were measured again";
  EXPECT_EQ(r.best.text(), uninterrupted.best.text());
  EXPECT_EQ(r.steps.size(), uninterrupted.steps.size());
}

TEST(AgentSearch, StopsAtTheTimeLimit) {
  AgentProgram start = start_of("layernorm_128x256");
  Oracle m(host(), start);
  SearchOptions o;
  o.budget = 1000;
  o.time_limit_s = 1e-9;
  SearchResult r = search(start, host(), m, o);
  EXPECT_EQ(r.stopped, "time limit");
  EXPECT_EQ(r.measured, 1);  // the start only: the limit is checked between measurements
}

// The time limit is shared among the layers as the budget is: a layer whose measurements are slow
// cannot spend the time of the layers after it. (Each measurement says it took 1 s.)
TEST(AgentSearch, EachLayerGetsItsShareOfTheTimeLimit) {
  AgentProgram start = start_of("softmax_attn_4x64x64");
  Oracle m(host(), start);
  m.seconds = 1;
  SearchOptions o;
  o.budget = 1000;
  o.time_limit_s = 13;
  SearchResult r = search(start, host(), m, o);
  std::map<AgentLayer, int> per_layer;
  for (size_t i = 1; i < r.steps.size(); ++i) ++per_layer[r.steps[i].layer];
  // The start takes 1 s; L0 then gets a third of the 12 s left, L1 half of the rest, L2 the remainder.
  EXPECT_GE(per_layer[AgentLayer::compute], 1);
  EXPECT_LE(per_layer[AgentLayer::compute], 4);
  EXPECT_GE(per_layer[AgentLayer::schedule], 1);
  EXPECT_GE(per_layer[AgentLayer::memory], 1) << "L2 got no time";
  // The measurements' own seconds count against the limit (the confirmations are taken past it).
  EXPECT_EQ(r.stopped.rfind("time limit", 0), 0u) << r.stopped;
  EXPECT_LE(r.measured, 13 + 2);
}

// L0 hands over after one round that gains nothing (L1 and L2 after two). On this task and fake
// machine no rewrite of L0 gains: its round of two is all L0 gets.
TEST(AgentSearch, TheComputeLayerHandsOverAfterOneRoundWithoutAGain) {
  AgentProgram start = start_of("layernorm_128x256");
  Oracle m(host(), start);
  SearchOptions o;
  o.budget = 20;  // L0's share (6) is not what stops it
  o.per_round = 2;
  SearchResult r = search(start, host(), m, o);
  int l0 = 0, l0_accepted = 0;
  for (const auto& s : r.steps)
    if (s.layer == AgentLayer::compute) {
      ++l0;
      l0_accepted += s.accepted;
    }
  EXPECT_EQ(l0_accepted, 0);
  EXPECT_EQ(l0, o.per_round);
  EXPECT_GT(r.steps.size(), static_cast<size_t>(1 + l0)) << "L1 was never reached";
}

TEST(AgentSearch, AFailingStartStopsTheSearch) {
  class Failing : public Measurer {
    Evaluation measure(const AgentProgram&, const MeasureAsk&) override {
      Evaluation e;
      e.outcome = Outcome::baseline;
      return e;
    }
  } m;
  SearchResult r = search(start_of("layernorm_128x256"), host(), m, SearchOptions{});
  EXPECT_EQ(r.measured, 1);
  EXPECT_NE(r.stopped.find("the starting program failed"), std::string::npos) << r.stopped;
}

}  // namespace
}  // namespace ekb::agent
