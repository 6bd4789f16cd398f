// The outcome table (outcome.h).
#include "harness/outcome.h"

namespace ekb {

const std::vector<OutcomeInfo>& outcome_table() {
  static const std::vector<OutcomeInfo> t = {
      {Outcome::ok, "ok", true, false, "correct: compare its time with the baseline's (its notes, if any, say what the time suggests)"},
      {Outcome::compile, "compile", false, true, "fix the error at the line and column shown (the fix: line says what would be right)"},
      {Outcome::mismatch, "mismatch", false, true,
       "keep the task's interface: the same input and output names, types and shapes, and a source for this backend"},
      {Outcome::wrong, "wrong", true, true,
       "the outputs differ from the float64 reference: look at the first failing element and the error against the tolerance"},
      {Outcome::crash, "crash", true, true, "the kernel was killed by a signal: look for reads or writes out of range"},
      {Outcome::timeout, "timeout", true, true, "the kernel did not finish in time: look for a loop that does not end"},
      {Outcome::denied, "denied", true, true, "the kernel made a system call the sandbox forbids: compute only, no I/O or processes"},
      {Outcome::exited, "exited early", true, true, "the kernel ended its process: return from the kernel instead"},
      {Outcome::cpu_limit, "cpu limit", true, true, "the kernel used up its CPU time: it does far too much work"},
      {Outcome::over_budget, "over budget", true, true, "use less memory of its own: smaller buffers, or compute them at inner loops"},
      {Outcome::protocol, "protocol", true, true, "the worker's answer was malformed"},
      {Outcome::out_of_bounds, "out of bounds", true, true, "the kernel wrote outside its buffers: check the index ranges"},
      {Outcome::input_mutated, "input mutated", true, true, "the kernel changed an input: inputs are read-only"},
      {Outcome::background_work, "background work", true, true,
       "the kernel kept working after returning: finish all work before the call returns"},
      {Outcome::invalid, "invalid", true, true,
       "the time is below half of what reading the inputs every correct kernel must read takes at this machine's read "
       "bandwidth: the kernel must read its inputs and compute its outputs within the call"},
      {Outcome::clock_mismatch, "clock mismatch", true, true,
       "the time reported from the kernel's process disagrees with the harness's clock: leave the worker's memory alone"},
      {Outcome::launch_limits, "launch limits", true, true,
       "use fewer threads, registers or less shared memory per block (the device profile's limits)"},
      {Outcome::device_fault, "device fault", true, true, "a launch faulted on the device: check the index ranges"},
      {Outcome::baseline, "baseline", true, false, "the baseline failed, not the candidate"},
      {Outcome::unavailable, "unavailable", false, false, "the device profile's device is not on this machine"},
      {Outcome::internal, "internal", false, false, "ekb itself failed; report it"},
      {Outcome::no_code, "no code", false, true, "answer with the whole program in one fenced code block, in the language asked for"},
      {Outcome::wrong_language, "wrong language", false, true,
       "write the program in the language asked for, in a code block tagged with its name"},
      {Outcome::no_reply, "no reply", false, false, "the request to the model failed: see the endpoint's error"},
  };
  return t;
}

const OutcomeInfo& outcome_info(Outcome o) {
  const auto& t = outcome_table();
  return t[static_cast<size_t>(o)];  // the table lists every kind in enum order (outcome_test checks)
}

std::optional<Outcome> find_outcome(const std::string& name) {
  for (const auto& i : outcome_table())
    if (name == i.name) return i.outcome;
  if (name == "compile error") return Outcome::compile;  // the workers' first spelling
  if (name == "limits") return Outcome::launch_limits;     // the GPU worker's refusal kind
  return std::nullopt;
}

Outcome outcome_named(const std::string& name, Outcome fallback) { return find_outcome(name).value_or(fallback); }

}  // namespace ekb
