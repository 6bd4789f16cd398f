// Degeneracy checks. Seeds: 1 for the base run, 2 for "does it depend on the inputs at all", and
// 3.. for perturbing one input at a time while the others keep seed 1.
#include "suite/degenerate.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>

#include "harness/inputs.h"
#include "interp/interpreter.h"
#include "interp/reference.h"

namespace ekb {
namespace {

constexpr const char* kVerdictVersion = "degeneracy-2";
constexpr double kNearZero = 1e-6;

bool any_difference(const std::vector<TensorData>& a, const std::vector<TensorData>& b) {
  for (size_t k = 0; k < a.size(); ++k)
    if (!a[k].same_values(b[k])) return true;
  return false;
}

std::filesystem::path verdict_path(const Program& p) {
  return cache_root() / "verdicts" / (l0_hash(p) + "." + kVerdictVersion);
}

}  // namespace

DegeneracyReport check_degenerate(const Program& p, bool use_cache) {
  DegeneracyReport r;
  auto vpath = verdict_path(p);
  std::error_code ec;
  if (use_cache && std::filesystem::exists(vpath, ec)) {
    r.from_cache = true;
    return r;
  }
  ReferenceOptions ro;
  ro.use_cache = use_cache;
  auto base = reference_outputs(p, 1, ro);
  for (size_t k = 0; k < base.outputs.size(); ++k) {
    const TensorData& o = base.outputs[k];
    int64_t n = o.size();
    bool constant = true, near_zero = true;
    int64_t nonfinite = -1;
    for (int64_t q = 0; q < n; ++q) {
      double v = o.value(q);
      if (!std::isfinite(v) && nonfinite < 0) nonfinite = q;
      if (o.value(q) != o.value(0)) constant = false;
      if (o.holds_float() ? std::fabs(v) > kNearZero : v != 0) near_zero = false;
    }
    if (nonfinite >= 0)
      r.problems.push_back(fmt::format("output `{}` is {} at flat index {} on finite inputs", o.name, o.value(nonfinite), nonfinite));
    if (n > 1 && constant)
      r.problems.push_back(fmt::format("output `{}` is constant ({} everywhere)", o.name, o.value(0)));
    if (near_zero)
      r.problems.push_back(fmt::format("output `{}` is near zero everywhere (|y| <= {})", o.name, kNearZero));
  }
  auto other = reference_outputs(p, 2, ro);
  if (!any_difference(base.outputs, other.outputs))
    r.problems.push_back("the outputs are the same for two different input seeds");
  for (size_t k = 0; k < p.inputs.size(); ++k) {
    // Perturb input k alone; try a few seeds in case a tiny input (one bool) comes out the same.
    bool changed_input = false, changed_output = false;
    for (uint64_t seed = 3; seed < 8 && !changed_output; ++seed) {
      std::vector<TensorData> inputs = base.inputs;
      inputs[k] = generate_input(p, p.inputs[k], seed);
      if (inputs[k].same_values(base.inputs[k])) continue;
      changed_input = true;
      changed_output = any_difference(base.outputs, interpret(p, inputs));
    }
    const std::string& name = p.tensors[p.inputs[k]].name;
    if (!changed_input)
      r.problems.push_back(fmt::format("input `{}` cannot be varied (its distribution has one value)", name));
    else if (!changed_output)
      r.problems.push_back(fmt::format("the outputs do not depend on input `{}`", name));
  }
  if (r.ok() && use_cache) {
    std::filesystem::create_directories(vpath.parent_path(), ec);
    std::ofstream(vpath) << "sound\n";
  }
  return r;
}

}  // namespace ekb
