// Building a submission's source (candidate.h).
#include "eval/candidate.h"

#include <fmt/format.h>

#include <algorithm>

#include "codegen/c_printer.h"
#include "codegen/dialect.h"
#include "ir/check.h"
#include "ir/parser.h"
#include "loops/graph.h"
#include "lower/schedule_choice.h"
#include "runtime/gpu/launch_contract.h"
#include "util/diagnostics.h"

namespace ekb {

namespace {

std::string shape_text(const std::vector<int64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

const TensorInfo* find_tensor(const Program& p, const std::string& name, TensorRole role) {
  int t = p.find_tensor(name);
  return t >= 0 && p.tensors[t].role == role ? &p.tensors[t] : nullptr;
}

// What differs for one role (inputs or outputs).
std::string role_difference(const Program& task, const Program& cand, TensorRole role) {
  const char* what = role == TensorRole::input ? "input" : "output";
  const auto& task_ids = role == TensorRole::input ? task.inputs : task.outputs;
  const auto& cand_ids = role == TensorRole::input ? cand.inputs : cand.outputs;
  for (int id : task_ids) {
    const TensorInfo& t = task.tensors[id];
    const TensorInfo* c = find_tensor(cand, t.name, role);
    if (!c)
      return fmt::format("task `{}` has {} `{}` ({}{}), which the candidate does not declare as an {}", task.name, what, t.name,
                         dtype_name(t.dtype), shape_text(t.shape), what);
    if (c->dtype != t.dtype)
      return fmt::format("{} `{}` is {} in the candidate but {} in task `{}`", what, t.name, dtype_name(c->dtype),
                         dtype_name(t.dtype), task.name);
    if (c->shape != t.shape)
      return fmt::format("{} `{}` has shape {} in the candidate but {} in task `{}`", what, t.name, shape_text(c->shape),
                         shape_text(t.shape), task.name);
  }
  for (int id : cand_ids) {
    const TensorInfo& c = cand.tensors[id];
    if (!find_tensor(task, c.name, role))
      return fmt::format("the candidate declares {} `{}`, which task `{}` does not have (its {}s: {})", what, c.name, task.name,
                         what, [&] {
                           std::vector<std::string> names;
                           for (int t : task_ids) names.push_back("`" + task.tensors[t].name + "`");
                           return fmt::format("{}", fmt::join(names, ", "));
                         }());
  }
  return "";
}

std::unique_ptr<Distribution> clone_distribution(const Distribution& d) {
  auto out = std::make_unique<Distribution>();
  out->kind = d.kind;
  out->loc = d.loc;
  out->has_parens = d.has_parens;
  for (const auto& a : d.args) out->args.push_back(a->clone());
  return out;
}

const TensorStmt* tensor_stmt(const Module& m, const std::string& name) {
  if (!m.kernel) return nullptr;
  for (const auto& st : m.kernel->stmts)
    if (auto* t = std::get_if<TensorStmt>(&st.node); t && t->name == name) return t;
  return nullptr;
}

bool same_distributions(const Program& task, const Program& cand) {
  for (int id : task.inputs) {
    const TensorInfo& t = task.tensors[id];
    const TensorInfo* c = find_tensor(cand, t.name, TensorRole::input);
    if (!c || c->dist.text() != t.dist.text()) return false;
  }
  return true;
}

[[noreturn]] void rethrow_as_compile(const DiagnosticError& e, const std::string& context) {
  throw CandidateRejected(Outcome::compile, context + e.diagnostics().render_all());
}

// Lowered parameters in the task's order (a candidate may declare them in another order; the ABI,
// the buffers and the wrapper follow the task's).
void in_task_order(std::vector<lower::TensorArg>& args, const std::vector<lower::TensorArg>& task_order) {
  std::vector<lower::TensorArg> out;
  for (const auto& t : task_order)
    for (const auto& a : args)
      if (a.name == t.name) out.push_back(a);
  if (out.size() == args.size()) args = std::move(out);
}

}  // namespace

std::string interface_difference(const Program& task, const Program& candidate) {
  std::string d = role_difference(task, candidate, TensorRole::input);
  return d.empty() ? role_difference(task, candidate, TensorRole::output) : d;
}

std::shared_ptr<Program> load_candidate_program(const Task& task, const std::string& path, const std::string& text) {
  std::shared_ptr<Program> prog;
  try {
    prog = load_program(std::make_shared<SourceFile>(path, text));
  } catch (const DiagnosticError& e) {
    rethrow_as_compile(e, "");
  }
  std::string diff = interface_difference(*task.program, *prog);
  if (!diff.empty())
    throw CandidateRejected(Outcome::mismatch,
                            diff + "; a candidate may change how its outputs are computed (L0), never what it reads and writes");
  if (same_distributions(*task.program, *prog)) return prog;
  // The inputs it will see are the task's: check it again with the task's distributions (an index
  // read the candidate proved in range for its own declaration may not be for the task's).
  DiagnosticList d;
  auto module = std::make_shared<Module>(parse_module(std::make_shared<SourceFile>(path, text), d));
  for (auto& st : module->kernel->stmts)
    if (auto* t = std::get_if<TensorStmt>(&st.node); t && !t->is_output) {
      const TensorStmt* theirs = tensor_stmt(*task.program->module, t->name);
      if (!theirs) continue;
      if (theirs->dist) t->dist = std::move(*clone_distribution(*theirs->dist));
      else t->dist.reset();
    }
  auto checked = check_module(module, d);
  if (!checked)
    throw CandidateRejected(Outcome::compile, fmt::format("with the task's input distributions (the inputs it is run on):\n{}",
                                                          d.render_all()));
  return checked;
}

CandidateSource build_candidate(const Task& task, const Submission& s, const Target& target) {
  if (!backend_takes(target.backend, s.kind))
    throw CandidateRejected(Outcome::mismatch, fmt::format("a .{} submission cannot run on the {} backend (it takes .ekb, or raw {})",
                                                           source_kind_name(s.kind), backend_name(target.backend),
                                                           raw_kinds_taken(target.backend)));
  CandidateSource c;
  c.program = task.program;
  try {
    switch (s.kind) {
      case SourceKind::ekb: {
        c.program = load_candidate_program(task, s.path, s.text);
        lower::LoweredKernel k = lower_with(*c.program, target, choose_schedule(*c.program, target, ""));
        lower::Graph tg = lower::build_graph(*task.program);
        in_task_order(k.inputs, tg.inputs);
        in_task_order(k.outputs, tg.outputs);
        c.source = codegen::print_for_backend(k);
        break;
      }
      case SourceKind::cu:
      case SourceKind::cl:
        try {
          gpu::parse_launch_contract(s.text);
        } catch (const std::exception& e) {
          throw CandidateRejected(Outcome::compile, fmt::format("{}: {}", s.path, e.what()));
        }
        c.source = s.text;
        break;
      case SourceKind::c:
      case SourceKind::cpp: {
        lower::Graph g = lower::build_graph(*task.program);
        c.cplusplus = s.kind == SourceKind::cpp;
        c.source = codegen::raw_submission_source(s.text, c.cplusplus, g.inputs, g.outputs, codegen::c_dialect());
        break;
      }
    }
  } catch (const DiagnosticError& e) {
    rethrow_as_compile(e, "");
  }
  return c;
}

std::string baseline_source(const Program& task, const Target& target) {
  return codegen::print_for_backend(lower_with(task, target, choose_schedule(task, target, "default")));
}

}  // namespace ekb
