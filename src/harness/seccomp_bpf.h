// A filter table (sandbox_policy.h) compiled to a classic BPF program for seccomp, without
// libseccomp: what the builds for boards load (Debian packages libseccomp for arm64, but not for
// riscv64, which is not one of Debian 12's release architectures). The program checks the
// architecture first (a call made through another ABI — x86's i386 or x32 entry points — kills the
// process), then each rule in turn: the call's number, then its argument's two 32-bit halves.
#pragma once
#include <linux/filter.h>

#include <vector>

#include "harness/sandbox_policy.h"

namespace ekb::worker {

std::vector<sock_filter> compile_policy_bpf(const FilterPolicy& p);

}  // namespace ekb::worker
