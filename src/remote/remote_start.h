// Starting a candidate's worker on a board (worker_start.h's path for a board's profile). The
// candidate's C is compiled here, by the board's cross compiler (Debian's gcc-TRIPLE) run by a local
// ekb-worker inside its compile confinement (a candidate's source can read no more of this machine
// than in a local compile), into a shared object with no start files, checked (elf_check.h: nothing
// of it may run when the board loads it), kept in the compile cache, and sent to the board with a
// warm-up kernel built the same way; then the argument region, as for a local worker.
#pragma once
#include <string>
#include <vector>

#include "harness/worker_start.h"

namespace ekb {

StartedWorker prepare_remote_worker(const Program& p, const SharedBuffers& buf, const WorkerStart& how);

// What identifies a board's kernels in the compile cache: the cross compiler (its path and time
// stamp), -march, OpenMP, and the flags every cross compile gets.
std::string cross_compiler_identity(const Board& b);
// Empty when the board's cross compiler is installed here, else what to do about it.
std::string cross_compiler_missing(const Board& b);
// The directories a cross compile reads beyond the system's: the cross toolchain's own tree
// (/usr/aarch64-linux-gnu: its headers, libraries and binutils), asked of the compiler once.
std::vector<std::string> cross_compiler_dirs(const std::string& cc);

}  // namespace ekb
