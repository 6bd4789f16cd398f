// What a candidate's compile may read, and the worker confining itself to that before it compiles
// anything: a candidate's source (`#include "/etc/passwd"`, `#embed`, an assembler `.incbin`) must
// not be able to read the machine's files, and the compiler's log, which users see and the store
// keeps, must not quote them. The compile may read the compiler's and the system's headers and
// libraries and the programs a compile runs, a few system facts (/sys, parts of /proc), the
// worker's own private directory, and for GPU workers the GPU stacks' files. Landlock enforces it
// on the worker and on every process it starts (cc1, as, ld, PoCL's ld). Where Landlock is not
// available the worker refuses to compile unless EKB_UNCONFINED_COMPILE=1 says to go ahead, and
// then says in its compile answer that the compile was not confined (docs/metrics.md).
#pragma once
#include <string>
#include <vector>

#include "harness/landlock.h"

namespace ekb::worker {

enum class WorkerKind { cpu, gpu };

struct ConfinementRequest {
  WorkerKind kind = WorkerKind::cpu;
  std::string private_dir;             // the worker's own directory (read-write), or empty
  std::vector<std::string> read_dirs;  // the compiler's directories beyond the system's (clang's resource dir, CUDA)
  // What must stay out of the compile's reach (the reference cache): where a rule would cover any of
  // it, the compile is not confined (and so refused), rather than confined to a list that leaks it.
  std::vector<std::string> unreadable;
};

struct Confinement {
  bool confined = false;
  std::string how;              // e.g. "Landlock ABI 7"
  std::string problem;          // why the compile is not confined (when it is not)
  std::vector<PathRule> rules;  // what a compile may use
  // For the compile answer: "Landlock ABI 7", or "none: WHY".
  std::string describe() const { return confined ? how : "none: " + problem; }
};

// The rules for `req`: fixed system directories, the request's directories, $LD_LIBRARY_PATH's and
// $EKB_COMPILE_READ_DIRS's (colon-separated) directories; for GPU workers PoCL's cache and, where
// an NVIDIA driver is installed, its JIT cache ($CUDA_CACHE_PATH, else ~/.nv/ComputeCache; both
// created if missing, read and written), PoCL's kernel library, the OpenCL vendor files and the
// GPU device files.
std::vector<PathRule> compile_rules(const ConfinementRequest& req);

// Makes the private directory (when given) this process's TMPDIR and current directory, for a GPU
// worker sets $CUDA_CACHE_PATH to the JIT cache the rules admit, then confines the process to
// compile_rules(req). Call it while the process has one thread.
Confinement confine_compile(const ConfinementRequest& req);

// Empty when compiling may go ahead (confined, or $EKB_UNCONFINED_COMPILE=1); else why not, for
// the compile answer.
std::string compile_refusal(const Confinement& c);

// A compile that failed: its one-line error and its log, with a sentence added for each file the
// log says could not be read or found that is outside what a compile may read (an absolute path
// outside the rules, or a relative one that climbs out of its directory).
struct CompileFailure {
  std::string error, log;
};
CompileFailure explain_compile_failure(const std::string& error, const std::string& log, const Confinement& c);

// Whether `path`, as a compile names it, is outside what `rules` let a compile read (see
// explain_compile_failure).
bool outside_compile_rules(const std::string& path, const std::vector<PathRule>& rules);

// The first rule that lets a compile read `dir` or a part of it (a rule beneath it), or nullptr.
const PathRule* rule_reaching(const std::string& dir, const std::vector<PathRule>& rules);

}  // namespace ekb::worker
