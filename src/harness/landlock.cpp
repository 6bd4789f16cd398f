// Landlock's three system calls, with the constants of the kernel's uapi header (linux/landlock.h)
// written out here: that header is missing or older than the kernel on many systems, and the ABI is
// stable (new rights only ever get new bits, offered from a known ABI version on).
#include "harness/landlock.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

namespace ekb::worker {

namespace {

constexpr uint32_t kCreateRulesetVersion = 1u << 0;
constexpr int kRulePathBeneath = 1;

// Access rights (bit, and the first ABI that has it).
constexpr uint64_t kExecute = 1ull << 0, kWriteFile = 1ull << 1, kReadFile = 1ull << 2, kReadDir = 1ull << 3,
                   kRemoveDir = 1ull << 4, kRemoveFile = 1ull << 5, kMakeChar = 1ull << 6, kMakeDir = 1ull << 7,
                   kMakeReg = 1ull << 8, kMakeSock = 1ull << 9, kMakeFifo = 1ull << 10, kMakeBlock = 1ull << 11,
                   kMakeSym = 1ull << 12;
constexpr uint64_t kRefer = 1ull << 13;     // ABI 2
constexpr uint64_t kTruncate = 1ull << 14;  // ABI 3
constexpr uint64_t kIoctlDev = 1ull << 15;  // ABI 5
// The rights that make sense on a file that is not a directory.
constexpr uint64_t kFileRights = kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev;

struct RulesetAttr {
  uint64_t handled_access_fs;  // the first field of struct landlock_ruleset_attr: the smallest size accepted
};
struct __attribute__((packed)) PathBeneathAttr {
  uint64_t allowed_access;
  int32_t parent_fd;
};

// Every file-system right this ABI knows: all of them are denied unless a rule grants them.
uint64_t handled_rights(int abi) {
  uint64_t r = kExecute | kWriteFile | kReadFile | kReadDir | kRemoveDir | kRemoveFile | kMakeChar | kMakeDir | kMakeReg |
               kMakeSock | kMakeFifo | kMakeBlock | kMakeSym;
  if (abi >= 2) r |= kRefer;
  if (abi >= 3) r |= kTruncate;
  if (abi >= 5) r |= kIoctlDev;
  return r;
}

uint64_t rights(PathAccess a) {
  switch (a) {
    case PathAccess::read: return kReadFile | kReadDir;
    case PathAccess::read_exec: return kReadFile | kReadDir | kExecute;
    case PathAccess::read_write:
      return kReadFile | kReadDir | kWriteFile | kRemoveDir | kRemoveFile | kMakeDir | kMakeReg | kMakeSym | kRefer | kTruncate;
    case PathAccess::device: return kReadFile | kWriteFile | kTruncate | kIoctlDev;
    case PathAccess::write_only: return kWriteFile | kTruncate;
  }
  return 0;
}

int thread_count() {
  DIR* d = opendir("/proc/self/task");
  if (!d) return -1;
  int n = 0;
  while (dirent* e = readdir(d))
    if (e->d_name[0] != '.') ++n;
  closedir(d);
  return n;
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

int landlock_abi(std::string* why) {
  long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  if (abi > 0) return static_cast<int>(abi);
  if (why) {
    if (errno == ENOSYS) *why = "this kernel has no Landlock (Linux 5.13 or later, built with CONFIG_SECURITY_LANDLOCK)";
    else if (errno == EOPNOTSUPP) *why = "Landlock is disabled on this kernel (it is not in the lsm= boot parameter)";
    else *why = std::string("Landlock is not available: ") + std::strerror(errno);
  }
  return 0;
}

LandlockResult landlock_restrict(const std::vector<PathRule>& rules) {
  LandlockResult out;
  int abi = landlock_abi(&out.error);
  if (abi == 0) return out;
  if (int n = thread_count(); n != 1) {
    out.error = "the process has " + std::to_string(n) + " threads; Landlock would restrict only the calling one";
    return out;
  }
  const uint64_t handled = handled_rights(abi);
  RulesetAttr attr{handled};
  Fd ruleset{static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0))};
  if (ruleset.fd < 0) {
    out.error = std::string("landlock_create_ruleset: ") + std::strerror(errno);
    return out;
  }
  for (const PathRule& r : rules) {
    Fd path{open(r.path.c_str(), O_PATH | O_CLOEXEC)};
    if (path.fd < 0) {
      out.skipped.push_back(r.path + " (" + std::strerror(errno) + ")");
      continue;
    }
    struct stat st{};
    if (fstat(path.fd, &st) != 0) {
      out.skipped.push_back(r.path + " (" + std::strerror(errno) + ")");
      continue;
    }
    uint64_t allowed = rights(r.access) & handled;
    if (!S_ISDIR(st.st_mode)) allowed &= kFileRights;
    if (allowed == 0) continue;
    PathBeneathAttr beneath{allowed, path.fd};
    if (syscall(SYS_landlock_add_rule, ruleset.fd, kRulePathBeneath, &beneath, 0) != 0) {
      out.error = "landlock_add_rule(" + r.path + "): " + std::strerror(errno);
      return out;
    }
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    out.error = std::string("prctl(PR_SET_NO_NEW_PRIVS): ") + std::strerror(errno);
    return out;
  }
  if (syscall(SYS_landlock_restrict_self, ruleset.fd, 0) != 0) {
    out.error = std::string("landlock_restrict_self: ") + std::strerror(errno);
    return out;
  }
  out.abi = abi;
  return out;
}

}  // namespace ekb::worker
