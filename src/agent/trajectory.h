// The optimization path of a stored search: every step, and the chain of accepted steps with what
// each decision (at which layer) gained over the program before it, for `ekb trajectory`.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "harness/results_store.h"

namespace ekb::agent {

struct PathStep {
  const StepRecord* step;
  double gain;  // speedup over the previous accepted program's
};

struct Trajectory {
  std::vector<StepRecord> steps;
  std::vector<PathStep> path;  // the accepted steps, in order (the start first)
  // Per layer: how many steps were measured there, and the product of its accepted gains.
  std::vector<std::tuple<std::string, int, double>> by_layer;
};

Trajectory trajectory_of(std::vector<StepRecord> steps);
std::string trajectory_text(const Trajectory& t, bool programs);
nlohmann::json trajectory_json(const Trajectory& t);

}  // namespace ekb::agent
