// Sampling /proc/stat (machine_load.h).
#include "harness/machine_load.h"

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <unistd.h>

namespace ekb {

namespace {

// Busy and total jiffies of the aggregate `cpu` line.
bool cpu_jiffies(unsigned long long* busy, unsigned long long* total) {
  std::ifstream f("/proc/stat");
  std::string line;
  if (!std::getline(f, line) || line.rfind("cpu ", 0) != 0) return false;
  std::istringstream in(line.substr(4));
  unsigned long long v[10] = {};
  for (auto& x : v) in >> x;
  // user nice system idle iowait irq softirq steal guest guest_nice (guest time is in user already)
  unsigned long long idle = v[3] + v[4];
  *total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
  *busy = *total - idle;
  return true;
}

}  // namespace

double busy_cpus(double seconds) {
  unsigned long long b0, t0, b1, t1;
  if (!cpu_jiffies(&b0, &t0)) return -1;
  auto start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!cpu_jiffies(&b1, &t1) || elapsed <= 0) return -1;
  double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  return static_cast<double>(b1 - b0) / hz / elapsed;
}

}  // namespace ekb
