// Running a command line from a test (the ekb binary, as a user at a shell would): what it printed
// and how it ended. One helper for every test that runs ekb.
#pragma once
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace ekb::test {

struct CommandResult {
  int status;       // the exit status; 128 + the signal for a command killed by one; -1 when it did not start
  std::string out;  // its standard output (the command line redirects standard error into it, or away)
};

inline CommandResult run_command(const std::string& line) {
  CommandResult r{-1, {}};
  FILE* p = ::popen(line.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  for (size_t n; (n = std::fread(buf.data(), 1, buf.size(), p)) > 0;) r.out.append(buf.data(), n);
  int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
  return r;
}

}  // namespace ekb::test
