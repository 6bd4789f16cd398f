// A board's facts about itself (board_facts.h).
#include "remote/board_facts.h"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "harness/landlock.h"
#include "target/arch.h"

namespace ekb::remote {

namespace {

std::string first_line(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  while (!line.empty() && (line.back() == '\0' || line.back() == '\n')) line.pop_back();
  return line;
}

// The value of the first /proc/cpuinfo line starting with one of `keys`.
std::string cpuinfo_value(std::initializer_list<const char*> keys) {
  std::ifstream f("/proc/cpuinfo");
  for (std::string line; std::getline(f, line);)
    for (const char* k : keys)
      if (line.rfind(k, 0) == 0 && line.find(':') != std::string::npos) {
        std::string v = line.substr(line.find(':') + 1);
        size_t b = v.find_first_not_of(" \t");
        return b == std::string::npos ? "" : v.substr(b);
      }
  return "";
}

}  // namespace

std::string seccomp_refusal() {
  int pipefd[2];
  if (pipe(pipefd) != 0) return std::string("pipe: ") + std::strerror(errno);
  pid_t pid = fork();
  if (pid < 0) return std::string("fork: ") + std::strerror(errno);
  if (pid == 0) {
    close(pipefd[0]);
    sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    sock_fprog prog{1, allow};
    std::string why;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) why = std::string("prctl(PR_SET_NO_NEW_PRIVS): ") + std::strerror(errno);
    else if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
      why = std::string("seccomp(SECCOMP_SET_MODE_FILTER): ") + std::strerror(errno);
    ssize_t ignored = write(pipefd[1], why.data(), why.size());
    (void)ignored;
    _exit(0);
  }
  close(pipefd[1]);
  std::string why;
  char buf[256];
  for (ssize_t n; (n = read(pipefd[0], buf, sizeof buf)) > 0;) why.append(buf, static_cast<size_t>(n));
  close(pipefd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (why.empty() && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) why = "the probe process failed";
  return why;
}

std::string emulation_signs(const std::string& seccomp_problem) {
  std::string signs;
  auto add = [&](const std::string& s) { signs += (signs.empty() ? "" : "; ") + s; };
  if (native_arch() != Arch::x86_64 && !cpuinfo_value({"vendor_id"}).empty())
    add("/proc/cpuinfo describes an x86 CPU (" + cpuinfo_value({"model name"}) + ") to this " + arch_name(native_arch()) + " program");
  if (!seccomp_problem.empty()) {
    std::string why;
    if (worker::landlock_abi(&why) == 0) add("seccomp filters and Landlock are refused (" + seccomp_problem + "; " + why + ")");
    else add("seccomp filters are refused (" + seccomp_problem + ")");
  }
  return signs;
}

nlohmann::json board_facts() {
  utsname u{};
  uname(&u);
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  std::string model = first_line("/proc/device-tree/model");  // Raspberry Pi, Jetson
  if (model.empty()) model = cpuinfo_value({"model name", "Model", "uarch", "isa"});
  return nlohmann::json{{"arch", arch_name(native_arch())},
                        {"machine", u.machine},
                        {"kernel", std::string(u.sysname) + " " + u.release},
                        {"host", host},
                        {"cpus", static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN))},
                        {"cpu", model},
                        {"pid", getpid()}};
}

}  // namespace ekb::remote
