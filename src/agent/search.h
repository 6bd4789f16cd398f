// LEKA's loop with the built-in search policy. It holds the best correct program and a budget of
// measurements (and wall time); layer by layer — L0 compute, L1 schedule, L2 memory, then back to
// L1 and L2 while they still gain — it asks the action tables for every legal revision of the
// programs in its beam, ranks them with the cost model, has the harness measure the most promising
// ones (checks on three input sets, interleaved timing against the baseline, a speedup with its
// interval), keeps the best correct ones, and records every step. A layer whose round brings no gain
// beyond the timing's noise hands over to the next. Deterministic given the measurements: a search
// resumed after a crash replays its stored measurements and goes on from where it stopped.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/actions.h"
#include "agent/cost_model.h"
#include "agent/program.h"
#include "harness/evaluate.h"

namespace ekb::agent {

// What the search asks of one measurement.
struct MeasureAsk {
  // The speedup the program must beat to matter (0: none): the measurement may stop early once the
  // program is surely slower (EvalOptions::hopeless_below).
  double hopeless_below = 0;
  // Timed as `ekb eval` times an attempt (more rounds while the interval is wide), not with the
  // search's shorter timing: the confirmation of the best, whose figure decides what is kept.
  bool full = false;
};

// Measures a program through the harness (or, in tests, a fake timer).
class Measurer {
 public:
  virtual ~Measurer() = default;
  virtual Evaluation measure(const AgentProgram& p, const MeasureAsk& ask) = 0;
};

struct SearchOptions {
  int budget = 24;           // measurements, the baseline's own program included
  double time_limit_s = 0;   // wall time of the whole search (0: none); checked between measurements
  int beam = 3;              // programs expanded per round
  int per_round = 4;         // candidates measured per round
  double min_gain = 0.03;    // a round that improves the best by less hands over to the next layer
  int max_cycles = 3;        // passes over L1 and L2 after the first L0-L1-L2 pass
  bool compute_layer = true; // try L0 rewrites first
  // Measure the best programs once more at the end (measurements of the budget kept for them, taken
  // even past the time limit): the best of many noisy measurements is the luckiest, so the best and
  // the runner-up are measured again with full timing, and the one faster on this measurement is
  // kept, if it is again beyond the start (the lower bound of its interval above 1); else the start
  // is. The runner-up is measured only on a budget of 8 or more.
  bool confirm = true;
};

// The actions of the confirmation steps (the best program, and the runner-up, measured again).
inline constexpr const char* kConfirmAction = "confirm: the best program measured again";
inline constexpr const char* kConfirmRunnerUpAction = "confirm: the runner-up measured again";
inline bool is_confirmation(const std::string& action) { return action.rfind("confirm: ", 0) == 0; }

struct Step {
  int index = 0;
  AgentLayer layer = AgentLayer::schedule;
  std::string action;       // "start: the default schedule" for the first
  AgentProgram program;
  double predicted_ms = 0;  // the cost model's prediction when it was chosen
  Evaluation eval;
  bool accepted = false;    // it became the best program
};

// What the search can ask of the store: a step measured before (resume), and where to record one.
class StepLog {
 public:
  virtual ~StepLog() = default;
  virtual std::optional<Step> stored(int index) = 0;  // step `index` if it was recorded
  virtual void record(const Step& s) = 0;             // replaces a step of the same index
  virtual void forget_from(int index) = 0;            // steps >= index no longer hold (the search went another way)
};

struct SearchResult {
  AgentProgram best;
  Evaluation best_eval;
  std::vector<Step> steps;
  int measured = 0;      // measurements spent (stored ones replayed included)
  int illegal = 0;       // revisions that did not check (never measured)
  int candidates = 0;    // legal revisions ranked
  std::string stopped;   // why it stopped: "budget", "time limit", "converged"
  bool best_is_start = false;  // no candidate beat the start (the baseline itself) beyond its noise
  bool unconfirmed = false;    // the best found did not hold when measured again: the start is kept
};

// Searches from `start` (normally the task's default schedule, which is the baseline) on `target`.
// `progress` (optional) hears about each step as it is measured.
SearchResult search(const AgentProgram& start, const Target& target, Measurer& m, const SearchOptions& o, StepLog* log = nullptr,
                    const std::function<void(const Step&)>& progress = {});

}  // namespace ekb::agent
