// Terminal progress line with the count done, failures so far and an estimate of the time left.
#include "util/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace ekb {

Progress::Progress(std::string what, size_t total)
    : what_(std::move(what)), total_(total), tty_(::isatty(STDERR_FILENO)), start_(std::chrono::steady_clock::now()) {}

Progress::~Progress() { finish(); }

void Progress::step(const std::string& label, size_t failures) {
  ++done_;
  if (!tty_) return;
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  double left = done_ ? elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_) : 0;
  std::string line = fmt::format("{} {}/{}  failures {}  ~{:.0f}s left  {}", what_, done_, total_, failures, left, label);
  if (line.size() > 100) line.resize(100);
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
}

void Progress::finish() {
  if (finished_) return;
  finished_ = true;
  if (tty_ && done_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }
}

}  // namespace ekb
