// How busy this machine is with other work, read from /proc/stat while ekb itself sleeps: the
// average number of CPUs that were running something (user, system, steal...) over a short window.
// Peak rates measured while other processes run would be too low, and a peak measured too low makes
// honest kernels look impossible: peak_rates.h refuses to measure on a busy machine.
#pragma once

namespace ekb {

// CPUs busy (0 .. the CPU count) over `seconds`, while this thread sleeps; -1 when /proc/stat
// cannot be read.
double busy_cpus(double seconds);

}  // namespace ekb
