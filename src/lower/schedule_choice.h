// Which schedule a kernel is lowered with: `default` (the generated baseline), `none` (plain
// loops), a file holding `schedule`/`memory` sections, or, when not given, the kernel file's own
// sections if it has any for the backend and the default schedule otherwise.
#pragma once
#include <memory>
#include <string>

#include "ir/program.h"
#include "lower/lower.h"

namespace ekb {

struct ScheduleChoice {
  std::shared_ptr<Module> holder;  // keeps the sections alive
  const Section* schedule = nullptr;
  const Section* memory = nullptr;
  SourcePtr source;
  std::string description;  // "default", "none", "own", or the file
};

ScheduleChoice choose_schedule(const Program& p, const Target& target, const std::string& spec);
lower::LoweredKernel lower_with(const Program& p, const Target& target, const ScheduleChoice& c);

}  // namespace ekb
