// What a board says about itself when a host connects (and `ekb worker` prints when it starts): its
// architecture and machine, CPUs, whether its workers can sandbox themselves here, and whether it
// looks emulated. A host records it in the run's environment.
#pragma once
#include <nlohmann/json.hpp>

#include <string>

namespace ekb::remote {

// Empty when this system accepts a seccomp filter (tried in a child process, which installs one
// that allows everything and exits), else why not: qemu-user refuses its guests' filters
// (prctl(PR_SET_SECCOMP): EINVAL; seccomp(2): ENOSYS).
std::string seccomp_refusal();

// Why this machine looks emulated, or "": seccomp and Landlock refused, or /proc/cpuinfo describing
// another architecture's CPU than the one this program was built for (qemu-user passes the host's
// /proc/cpuinfo through to an AArch64 guest).
std::string emulation_signs(const std::string& seccomp_problem);

// The board's facts: arch, machine (uname), host, cpus, cpu (its model as /proc/cpuinfo or the
// device tree names it), pid, emulation (signs, or ""), and `sandbox`, which the listener fills in.
nlohmann::json board_facts();

}  // namespace ekb::remote
