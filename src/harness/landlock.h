// Landlock (Linux 5.13 and later) through its raw system calls: a process restricts the files that
// it, and every thread and process it starts afterwards, may use to a list of paths, each with what
// may be done beneath it. Nothing outside the list can be opened, listed, executed or written (only
// the metadata stays visible: stat is not restricted). compile_confinement.h builds the worker's
// compile confinement on it.
#pragma once
#include <string>
#include <vector>

namespace ekb::worker {

enum class PathAccess {
  read,        // read files, list directories
  read_exec,   // ... and execute programs
  read_write,  // read, list, create, write, rename and remove (a private or cache directory)
  device,      // read, write and ioctl on a device file (/dev/null, /dev/nvidia0)
  write_only,  // write (and truncate) existing files, never read them
};

struct PathRule {
  std::string path;  // a directory (the rule covers everything beneath it) or one file
  PathAccess access = PathAccess::read;
};

// The Landlock ABI version this kernel offers (1, 2, ...), or 0 with `why` set when it offers none.
int landlock_abi(std::string* why = nullptr);

struct LandlockResult {
  int abi = 0;                       // the ABI used; 0 when nothing was restricted
  std::string error;                 // why nothing was restricted (empty on success)
  std::vector<std::string> skipped;  // rules' paths that do not exist here (left out)
};

// Restricts the calling thread (and all it starts from now on) to `rules`. Call it while the process
// has one thread: threads that already exist stay unrestricted. It sets no_new_privs. Irreversible.
LandlockResult landlock_restrict(const std::vector<PathRule>& rules);

}  // namespace ekb::worker
