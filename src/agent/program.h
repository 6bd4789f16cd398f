// A candidate program as LEKA holds it: the kernel's L0 text, and the L1 (schedule) and L2 (memory)
// lines for one backend, each line a stage and its directives as text. Actions edit these lines (or
// the L0 text); the whole .ekb text is what the harness evaluates, what the trajectory stores and
// what the agent writes out. Analysis replays it through ekb's own checker, schedule primitives and
// lowering, so an illegal program is known before anything is measured.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/program.h"
#include "loops/graph.h"
#include "lower/lower.h"
#include "schedule/schedule.h"
#include "target/target.h"

namespace ekb::agent {

struct StageLine {
  std::string stage;
  std::vector<std::string> directives;  // "split i 16 -> io ii", "parallel io", ...
  bool operator==(const StageLine&) const = default;
};

struct AgentProgram {
  std::string kernel;  // the L0 block, canonical text
  Backend backend = Backend::cpu;
  std::vector<StageLine> l1, l2;

  // The whole .ekb text: the kernel, then `schedule BACKEND` and `memory BACKEND` sections.
  std::string text() const;
  // The sections alone.
  std::string schedule_text() const;
  // A hash of the text (programs that print the same are the same).
  uint64_t hash() const;
  std::string hash_hex() const;
  bool operator==(const AgentProgram&) const = default;

  // The line of `stage` in layer l1 (`memory` false) or l2, or null.
  const StageLine* line(const std::string& stage, bool memory) const;
  StageLine& line_for(const std::string& stage, bool memory);  // appended when missing
  // Removes the lines of `stage` (both layers); empty lines are dropped by text().
  void drop_stage(const std::string& stage);
};

// `kernel` (an L0 block) with the sections in `sections` (L1/L2 text for `backend`; others ignored).
AgentProgram program_from(const std::string& kernel, const std::string& sections, Backend backend);
// The task's L0 with the default schedule for `target`: where a search starts.
AgentProgram default_program(const Program& task, const Target& target);

// A program replayed and lowered: its checked L0, the stage graph and schedule after every directive
// (memory directives rewrite the graph), and the lowered kernel.
struct Analysis {
  std::shared_ptr<Program> program;
  lower::Graph graph;
  Schedule schedule;
  lower::LoweredKernel kernel;
};
// The analysis, or nothing with the error (rendered diagnostics) in `error`.
std::optional<Analysis> analyze(const AgentProgram& p, const Target& target, std::string* error = nullptr);

}  // namespace ekb::agent
