// Progress for long runs: one updating line on a terminal (stderr), nothing when stderr is not one.
#pragma once
#include <chrono>
#include <string>

namespace ekb {

class Progress {
 public:
  Progress(std::string what, size_t total);
  ~Progress();
  // Marks one more item done; `label` names the item just finished, `failures` counts bad ones so far.
  void step(const std::string& label, size_t failures);
  void finish();

 private:
  std::string what_;
  size_t total_, done_ = 0;
  bool tty_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace ekb
