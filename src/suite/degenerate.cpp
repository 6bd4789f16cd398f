// Degeneracy checks. Seeds: 1 for the base run, 2 for "does it depend on the inputs at all", and
// 3.. for perturbing one input at a time while the others keep seed 1; the harness's three input
// sets (seeds 1, 2, 3) for whether every choice goes both ways.
#include "suite/degenerate.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>

#include "harness/inputs.h"
#include "interp/interpreter.h"
#include "interp/reference.h"
#include "ir/printer.h"

namespace ekb {
namespace {

constexpr const char* kVerdictVersion = "degeneracy-3";
constexpr double kNearZero = 1e-6;

bool any_difference(const std::vector<TensorData>& a, const std::vector<TensorData>& b) {
  for (size_t k = 0; k < a.size(); ++k)
    if (!a[k].same_values(b[k])) return true;
  return false;
}

void collect_choices(const Expr& e, std::vector<const Expr*>& out) {
  if (e.kind == ExprKind::call &&
      (e.fn == Fn::select || e.fn == Fn::clamp || ((e.fn == Fn::min || e.fn == Fn::max) && e.args.size() == 2)))
    out.push_back(&e);
  for (const auto& a : e.args) collect_choices(*a, out);
}

// Whether `e` reads the inputs' values (directly, or through stages that do).
bool reads_data(const Expr& e, const std::vector<bool>& data_tensor) {
  if ((e.kind == ExprKind::access || (e.kind == ExprKind::name && e.ref == NameRef::scalar_tensor)) && e.id >= 0 &&
      data_tensor[static_cast<size_t>(e.id)])
    return true;
  for (const auto& a : e.args)
    if (reads_data(*a, data_tensor)) return true;
  return false;
}

// A choice on the inputs' values that never goes both ways on the three input sets the harness
// checks with: a select whose condition is always the same, a clamp that never clamps (or always
// does), a min or max that always takes the same operand. The check cannot tell a kernel that
// computes it from one that does not. (A choice on indices alone, such as a resize's border clamp
// that a downscale never reaches, is fixed by the sizes: leaving it out is as correct.)
std::vector<std::string> one_way_choices(const Program& p) {
  std::vector<bool> data_tensor(p.tensors.size(), false);
  for (int t : p.inputs) data_tensor[static_cast<size_t>(t)] = true;
  for (const auto& st : p.stages) data_tensor[static_cast<size_t>(st.tensor)] = reads_data(*st.body, data_tensor);
  // The choices on the inputs' values, per stage; without any, nothing is run (three interpretations
  // of the whole task saved: most of the suite's tasks have none).
  std::vector<std::pair<const StageInfo*, const Expr*>> on_data;
  for (const auto& st : p.stages) {
    std::vector<const Expr*> choices;
    collect_choices(*st.body, choices);
    for (const Expr* e : choices)
      if (e->fn == Fn::select ? reads_data(*e->args[0], data_tensor) : reads_data(*e, data_tensor)) on_data.push_back({&st, e});
  }
  if (on_data.empty()) return {};
  BranchCoverage cov;
  InterpretOptions io;
  io.coverage = &cov;
  for (uint64_t seed = 1; seed <= 3; ++seed) interpret(p, generate_inputs(p, seed), io);
  std::vector<std::string> problems;
  for (const auto& [stage, e] : on_data) {
    const StageInfo& st = *stage;
    std::array<int64_t, 3> c{0, 0, 0};
    if (auto it = cov.counts.find(e); it != cov.counts.end()) c = it->second;
    std::string what = print_expr(*e);
    if (what.size() > 80) what = what.substr(0, 77) + "...";
    std::string where = fmt::format("{}:{}:{}", p.source()->name, e->loc.line, e->loc.col);
    if (c[0] + c[1] + c[2] == 0) {
      problems.push_back(fmt::format("{}: `{}` in `{}` is never evaluated on the three input sets", where, what, st.name));
    } else if (e->fn == Fn::select && (c[0] == 0 || c[1] == 0)) {
      problems.push_back(fmt::format("{}: `{}` in `{}` always takes its {} branch on the three input sets (its "
                                     "condition is always {}): widen the inputs' ranges so that both happen, or "
                                     "drop the select", where, what, st.name, c[0] ? "first" : "second",
                                     c[0] ? "true" : "false"));
    } else if (e->fn == Fn::clamp && c[0] + c[2] == 0) {
      problems.push_back(fmt::format("{}: `{}` in `{}` never clamps on the three input sets: make the inputs reach "
                                     "its bounds, or drop the clamp", where, what, st.name));
    } else if (e->fn == Fn::clamp && c[1] == 0) {
      problems.push_back(fmt::format("{}: `{}` in `{}` always clamps on the three input sets (no value lies between "
                                     "its bounds)", where, what, st.name));
    } else if (e->fn != Fn::select && e->fn != Fn::clamp && (c[0] == 0 || c[1] == 0)) {
      problems.push_back(fmt::format("{}: `{}` in `{}` always takes its {} operand on the three input sets: make "
                                     "the inputs reach both sides, or drop the {}", where, what, st.name,
                                     c[0] ? "first" : "second", e->fn == Fn::min ? "min" : "max"));
    }
  }
  return problems;
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
  for (auto& m : one_way_choices(p)) r.problems.push_back(std::move(m));
  if (r.ok() && use_cache) {
    std::filesystem::create_directories(vpath.parent_path(), ec);
    std::ofstream(vpath) << "sound\n";
  }
  return r;
}

}  // namespace ekb
