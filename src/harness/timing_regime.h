// How the harness times a call, as one table: the regime an attempt was timed in is part of its
// result (a speedup measured cold and one measured warm answer different questions), so runs store
// it, their keys include it, and reports name it.
//
// cold (the default): each call after an untimed cache flush, with the kernel's idle threads asleep
//   since its last call: the kernel as it runs once, on its own, from memory. Conservative, and
//   comparable across candidates of any size.
// warm: calls back to back, as a model runs its layers: no flush, the inputs just written (as the
//   previous layer would have left them), and the kernel's OpenMP threads spinning between its calls
//   instead of sleeping, so that a parallel kernel does not pay for waking them each time. What
//   microbenchmarks of kernel libraries measure (bench/'s peers are timed this way).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace ekb {

enum class Timing { cold, warm };

struct TimingInfo {
  Timing timing;
  const char* name;         // as given to --timing and stored with a run
  const char* description;  // one line, for --help and reports
};

const std::vector<TimingInfo>& timing_table();
const char* timing_name(Timing t);
std::optional<Timing> find_timing(const std::string& name);
// The regime spelled `name`; throws naming the known ones.
Timing parse_timing(const std::string& name);

}  // namespace ekb
