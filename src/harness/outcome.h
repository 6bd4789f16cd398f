// How an attempt ended, as one table: each kind with the name stored in the results store and sent
// by workers, whether the candidate compiled, whether the failure is the candidate's fault, and the
// hint an agent (or a person) is shown as feedback. Evaluation, the workers' client, the metrics, the
// reports and the agent read this table; nothing else spells outcomes as strings.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace ekb {

enum class Outcome {
  ok,               // correct (then its speedup counts)
  compile,          // the candidate does not compile (or its program does not lower: an illegal schedule)
  mismatch,         // its interface (inputs, outputs: names, types, shapes) is not the task's, or the wrong kind of source
  wrong,            // outputs differ from the reference (or from the baseline on fresh inputs)
  crash,            // killed by a signal
  timeout,          // no answer before the deadline
  denied,           // a system call the sandbox forbids
  exited,           // the process ended on its own while it should have answered
  cpu_limit,        // its CPU time limit ran out
  over_budget,      // its own memory beyond the device profile's budget
  protocol,         // a malformed or refused request or answer
  out_of_bounds,    // a write beside its buffers (a guard zone changed)
  input_mutated,    // it changed its inputs
  background_work,  // CPU used after its calls returned: work moved off the timed path
  invalid,          // provably too fast: below half the time its must-read bytes take at the read bandwidth (time_verdict.h)
  clock_mismatch,   // its worker reported a time the harness's own clock around the call contradicts
  launch_limits,    // GPU: beyond the profile's limits at launch (threads, shared memory, registers)
  device_fault,     // GPU: a launch failed on the device (illegal address, a kernel that faulted)
  baseline,         // the baseline failed: not the candidate's fault
  unavailable,      // the device profile's device is not on this machine
  internal,         // ekb itself failed
  // A language model's reply that gave nothing to evaluate (ekb generate, the LLM policies):
  no_code,          // no fenced code block in the reply
  wrong_language,   // code, but only in another language than the one asked for
  no_reply,         // the request to the model failed (the endpoint's error, after its retries): not the code's fault
};

struct OutcomeInfo {
  Outcome outcome;
  const char* name;      // as stored and sent by workers ("ok", "compile", "out of bounds"...)
  bool compiled;         // the candidate compiled (counts for Compile@k)
  bool candidate_fault;  // the candidate is to blame (else the harness, the baseline or the machine)
  const char* hint;      // what to do about it, for feedback
};

const std::vector<OutcomeInfo>& outcome_table();
const OutcomeInfo& outcome_info(Outcome o);
inline const char* outcome_name(Outcome o) { return outcome_info(o).name; }
// The outcome stored or sent as `name` (older spellings included: "compile error"), or nothing.
std::optional<Outcome> find_outcome(const std::string& name);
// As find_outcome, with `fallback` for a name it does not know (a malformed store or reply).
Outcome outcome_named(const std::string& name, Outcome fallback = Outcome::protocol);

}  // namespace ekb
