// LEKA's LLM policy and the free-form loop (llm_policy.h).
#include "agent/llm_policy.h"
#include "util/text_hash.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

#include "ir/parser.h"
#include "ir/printer.h"
#include "suite/task_hash.h"
#include "util/diagnostics.h"

namespace ekb::agent {

namespace {

std::string layer_title(AgentLayer l) {
  switch (l) {
    case AgentLayer::compute: return "L0, the compute layer (the kernel block)";
    case AgentLayer::schedule: return "L1, the schedule layer";
    case AgentLayer::memory: return "L2, the memory layer";
  }
  return "?";
}

std::string layer_rule(AgentLayer l, Backend b) {
  const char* be = backend_name(b);
  switch (l) {
    case AgentLayer::compute:
      return "You may rewrite the `kernel` block: fuse or split stages, reassociate, restructure a reduction, as long as its "
             "inputs and outputs stay exactly the task's (the same names, types and shapes). Give the schedule and memory "
             "sections that fit your stages (without them the default schedule is used).";
    case AgentLayer::schedule:
      return fmt::format("Only the `schedule {}` section (L1) may change: split, fuse, reorder, tile, parallel, vectorize, unroll, "
                         "bind. The kernel and the `memory {}` section are kept as they are; changes to them are left out.",
                         be, be);
    case AgentLayer::memory:
      return fmt::format("Only the `memory {}` section (L2) may change (inline, compute_at, store_at, cache_read, cache_write, "
                         "rfactor, pack, double_buffer), with the schedule lines of the stages those directives create. The kernel "
                         "and the schedule of the kernel's own stages are kept as they are; changes to them are left out.",
                         be);
  }
  return "";
}

std::set<std::string> kernel_stage_names(const std::string& kernel_text) {
  DiagnosticList d;
  Module m = parse_module(std::make_shared<SourceFile>("kernel.ekb", kernel_text), d);
  std::set<std::string> names;
  if (m.kernel)
    for (const auto& s : m.kernel->stmts)
      if (const auto* st = std::get_if<StageStmt>(&s.node)) names.insert(st->name);
  return names;
}

std::string trimmed_end(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// The common variables of the turn templates.
std::map<std::string, std::string> turn_vars(const LlmTaskContext& c) {
  CodeLanguage lang = code_language(CodeMode::raw, c.dev.backend);
  return {{"task_name", c.task->name},
          {"task_text", trimmed_end(c.task->text)},
          {"backend", backend_name(c.dev.backend)},
          {"device_name", c.dev.name},
          {"device_facts", trimmed_end(device_facts(c.dev))},
          {"baseline", baseline_text(c.baseline)},
          {"language", lang.name},
          {"fence", lang.fence}};
}

std::string history_text(const std::vector<std::string>& h) {
  if (h.empty()) return "None yet.";
  std::string s;
  for (const auto& l : h) s += "- " + l + "\n";
  return trimmed_end(s);
}

// A step's evaluation for a reply that gave nothing to measure.
Evaluation unmeasured(const ModelTurns::Turn& t) {
  Evaluation e;
  if (!t.record.failure.empty()) {
    e.outcome = Outcome::no_reply;
    e.message = t.record.failure + ": " + t.record.error;
  } else {
    e.outcome = t.code.status == ReplyCodeStatus::wrong_language ? Outcome::wrong_language : Outcome::no_code;
    e.message = t.code.message;
  }
  return e;
}

}  // namespace

AgentProgram merge_revision(const AgentProgram& current, const std::string& code, AgentLayer layer, std::string* note) {
  Backend b = current.backend;
  DiagnosticList d;
  Module m = parse_module(std::make_shared<SourceFile>("reply.ekb", code), d);
  if (d.has_errors() || !m.kernel) return program_from(code, "", b);
  KernelPrintOptions po;
  po.comments = false;
  AgentProgram reply;
  try {
    reply = program_from(print_kernel(*m.kernel, po), code, b);
  } catch (const std::exception&) {
    return program_from(code, "", b);
  }
  std::vector<std::string> left_out;
  AgentProgram p = current;
  switch (layer) {
    case AgentLayer::compute: return reply;
    case AgentLayer::schedule:
      p.l1 = reply.l1;
      if (reply.kernel != current.kernel) left_out.push_back("its changes to the kernel (L0)");
      if (reply.l2 != current.l2) left_out.push_back("its changes to the memory section (L2)");
      break;
    case AgentLayer::memory: {
      p.l2 = reply.l2;
      std::set<std::string> own = kernel_stage_names(current.kernel);
      p.l1.clear();
      bool l1_changed = false;
      for (const auto& l : current.l1)
        if (own.count(l.stage)) p.l1.push_back(l);
      for (const auto& l : reply.l1)
        if (!own.count(l.stage)) p.l1.push_back(l);
      for (const auto& s : own) {
        const StageLine* a = current.line(s, false);
        const StageLine* r = reply.line(s, false);
        std::vector<std::string> none;
        if ((a ? a->directives : none) != (r ? r->directives : none)) l1_changed = true;
      }
      if (reply.kernel != current.kernel) left_out.push_back("its changes to the kernel (L0)");
      if (l1_changed) left_out.push_back("its changes to the schedule of the kernel's stages (L1)");
      break;
    }
  }
  if (note && !left_out.empty()) *note = fmt::format("{} left out: only {} may change at this turn", fmt::join(left_out, " and "),
                                                     layer_label(layer));
  return p;
}

SearchResult llm_layered_loop(const LlmTaskContext& c, const AgentProgram& start, Measurer& m, ModelTurns& turns, StepLog* log,
                              const LlmLoopOptions& o, const std::function<void(const Step&)>& progress) {
  SearchResult r;
  double elapsed = 0;  // the steps' own time (measurements and requests), stored ones included: a resumed loop shares its limit alike
  auto record = [&](const Step& s) {
    r.steps.push_back(s);
    if (log) log->record(s);
    if (progress) progress(s);
  };
  // A stored step of the same program replays; anything else is measured (and what was stored after it no longer holds).
  auto measured = [&](int index, const AgentProgram& p, const MeasureAsk& ask) {
    if (log)
      if (auto st = log->stored(index); st && st->program.text() == p.text()) {
        ++r.measured;
        return st->eval;
      }
    if (log) log->forget_from(index);
    ++r.measured;
    return m.measure(p, ask);
  };

  Evaluation start_eval = measured(0, start, MeasureAsk{});
  elapsed += start_eval.seconds;
  record(Step{0, AgentLayer::schedule, "start: the default schedule", start, 0, start_eval, start_eval.correct()});
  r.best = start;
  r.best_eval = start_eval;
  r.best_is_start = true;
  if (!start_eval.correct()) {
    r.stopped = "the start failed";
    return r;
  }
  AgentProgram best = start;
  Evaluation best_eval = start_eval;
  double best_speedup = 1.0;  // the start is the baseline: exactly 1
  bool keep_confirm = o.confirm && o.budget >= 3;
  int turns_left = o.budget - 1 - (keep_confirm ? 1 : 0);
  int index = 0;
  std::map<AgentLayer, std::vector<std::string>> history;
  std::map<AgentLayer, std::string> last_feedback;
  std::map<std::string, std::string> vars = turn_vars(c);
  vars["card"] = c.templates->text("ir_card");
  Roofline roof = c.roof;

  bool stop = false;
  for (int pass = 0; !stop; ++pass) {
    std::vector<AgentLayer> layers = pass == 0 ? std::vector<AgentLayer>{AgentLayer::compute, AgentLayer::schedule, AgentLayer::memory}
                                               : std::vector<AgentLayer>{AgentLayer::schedule, AgentLayer::memory};
    bool gained = false;
    for (size_t li = 0; li < layers.size() && !stop; ++li) {
      AgentLayer layer = layers[li];
      int share = (turns_left + static_cast<int>(layers.size() - li) - 1) / static_cast<int>(layers.size() - li);
      int stall = 0;
      for (int k = 0; k < share && !stop; ++k) {
        if (turns_left <= 0) {
          r.stopped = "budget";
          stop = true;
          break;
        }
        if (o.time_limit_s > 0 && elapsed >= o.time_limit_s) {
          r.stopped = "time limit";
          stop = true;
          break;
        }
        vars["best_summary"] = best == start ? "the task's default schedule, the baseline" : attempt_summary(best_eval);
        vars["program"] = trimmed_end(best.text());
        vars["layer_name"] = layer_title(layer);
        vars["layer_rule"] = layer_rule(layer, c.dev.backend);
        vars["history"] = history_text(history[layer]);
        vars["feedback"] = last_feedback.count(layer) ? last_feedback[layer]
                                                      : trimmed_end(feedback_text(best_eval, *c.task->program, c.dev, roof));
        std::vector<llm::ChatMessage> messages{{"system", c.templates->render("system", vars)},
                                               {"user", c.templates->render("revise_ir", vars)}};
        ModelTurns::Turn t = turns.ask(index + 1, messages);
        if (t.refused) {
          r.stopped = "token budget";
          stop = true;
          break;
        }
        ++index;
        --turns_left;
        elapsed += t.record.latency_s;
        Step s{index, layer, fmt::format("llm: revise {}", layer_label(layer)), AgentProgram{}, 0, Evaluation{}, false};
        s.program.backend = start.backend;
        if (!t.record.failure.empty() || t.code.status != ReplyCodeStatus::ok) {
          s.eval = unmeasured(t);
        } else {
          std::string note;
          s.program = merge_revision(best, t.code.code, layer, &note);
          if (!note.empty()) s.action += " (" + note + ")";
          s.eval = measured(index, s.program, MeasureAsk{});
          elapsed += s.eval.seconds;
        }
        s.accepted = s.eval.correct() && s.eval.speedup_lo > best_speedup;
        if (s.accepted) {
          best = s.program;
          best_eval = s.eval;
          best_speedup = s.eval.speedup;
          gained = true;
          stall = 0;
        } else {
          ++stall;
        }
        history[layer].push_back(fmt::format("turn {}: {}{}", index, attempt_summary(s.eval), s.accepted ? " (kept as the best)" : ""));
        last_feedback[layer] = trimmed_end(feedback_text(s.eval, *c.task->program, c.dev, roof));
        record(s);
        if (stall >= o.stall) break;
      }
    }
    if (!stop && turns_left <= 0) {
      r.stopped = "budget";
      stop = true;
    }
    if (!stop && pass > 0 && !gained) {
      r.stopped = "converged";
      stop = true;
    }
  }
  if (r.stopped == "token budget") {  // the run stops here, unfinished: a resumed run goes on from this step
    r.best = best;
    r.best_eval = best_eval;
    r.best_is_start = best == start;
    return r;
  }
  if (keep_confirm && !(best == start)) {
    ++index;
    Evaluation e = measured(index, best, MeasureAsk{0, true});
    bool holds = e.correct() && e.speedup_lo > 1.0;
    record(Step{index, AgentLayer::schedule, kConfirmAction, best, 0, e, holds});
    if (holds) {
      best_eval = e;
    } else {
      r.unconfirmed = true;
      best = start;
      best_eval = start_eval;
    }
  }
  r.best = best;
  r.best_eval = best_eval;
  r.best_is_start = best == start;
  return r;
}

RawLoopResult llm_raw_loop(const LlmTaskContext& c, const RawMeasure& measure, ModelTurns& turns, ResultsStore& store, int64_t run,
                           const LlmLoopOptions& o, const std::function<void(const StepRecord&)>& progress) {
  RawLoopResult r;
  std::vector<StepRecord> stored = store.steps(run, c.task->name);
  CodeLanguage lang = code_language(CodeMode::raw, c.dev.backend);
  bool keep_confirm = o.confirm && o.budget >= 2;
  int turns_total = o.budget - (keep_confirm ? 1 : 0);
  std::string best_source, last_source;
  Evaluation best_eval, last_eval;
  bool have_best = false;
  double elapsed = 0;
  std::vector<std::string> history;
  std::string last_feedback;
  std::map<std::string, std::string> vars = turn_vars(c);
  vars["abi"] = trimmed_end(task_abi_text(*c.task, c.dev.backend));
  auto measured = [&](int index, const std::string& source, bool full) {
    if (index < static_cast<int>(stored.size()) && stored[index].step == index && stored[index].program == source) return stored[index].eval;
    store.forget_steps(run, c.task->name, index);
    stored.resize(std::min<size_t>(stored.size(), static_cast<size_t>(index)));
    return measure(source, full);
  };
  auto record = [&](StepRecord s) {
    s.task = c.task->name;
    s.program_hash = text_hash_hex(s.program);
    s.task_hash = task_hash(*c.task->program);
    store.put_step(run, s);
    ++r.steps;
    if (progress) progress(s);
  };
  int index = 0;
  for (; index < turns_total; ++index) {
    if (o.time_limit_s > 0 && elapsed >= o.time_limit_s) {
      r.stopped = "time limit";
      break;
    }
    std::vector<llm::ChatMessage> messages;
    if (index == 0) {
      messages = generation_prompt(*c.templates, PromptContext{c.task, CodeMode::raw, c.dev, c.baseline}).messages;
    } else {
      vars["program"] = trimmed_end(have_best ? best_source : last_source);
      vars["best_summary"] = have_best ? "your best correct program so far: " + attempt_summary(best_eval)
                                       : "your last program: " + attempt_summary(last_eval);
      vars["history"] = history_text(history);
      vars["feedback"] = last_feedback;
      messages = {{"system", c.templates->render("system", vars)}, {"user", c.templates->render("revise_raw", vars)}};
    }
    ModelTurns::Turn t = turns.ask(index, messages);
    if (t.refused) {
      r.stopped = "token budget";
      break;
    }
    elapsed += t.record.latency_s;
    StepRecord s;
    s.step = index;
    s.layer = "raw";
    s.action = index == 0 ? "llm: write" : "llm: revise";
    if (!t.record.failure.empty() || t.code.status != ReplyCodeStatus::ok) {
      s.eval = unmeasured(t);
    } else {
      s.program = t.code.code;
      s.eval = measured(index, s.program, false);
      elapsed += s.eval.seconds;
      last_source = s.program;
      last_eval = s.eval;
    }
    s.accepted = s.eval.correct() && (!have_best || s.eval.speedup_lo > best_eval.speedup);
    if (s.accepted) {
      best_source = s.program;
      best_eval = s.eval;
      have_best = true;
    }
    if (last_source.empty()) last_eval = s.eval;
    history.push_back(fmt::format("turn {}: {}{}", index, attempt_summary(s.eval), s.accepted ? " (kept as the best)" : ""));
    last_feedback = trimmed_end(feedback_text(s.eval, *c.task->program, c.dev, c.roof));
    record(s);
  }
  if (r.stopped.empty()) r.stopped = "budget";
  if (keep_confirm && have_best && r.stopped != "token budget") {
    StepRecord s;
    s.step = index;
    s.layer = "raw";
    s.action = kConfirmAction;
    s.program = best_source;
    s.eval = measured(index, best_source, true);
    s.accepted = true;
    best_eval = s.eval;  // the figure reported is this measurement's, whatever it says
    record(s);
  }
  r.best_source = have_best ? best_source : last_source;
  r.best_eval = have_best ? best_eval : last_eval;
  return r;
}

}  // namespace ekb::agent
