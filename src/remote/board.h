// A board attached as a remote device: where its `ekb worker --listen` is, the token that proves
// this host to it, and what kernels are built for it (its architecture, -march, cross compiler).
// Read from a device profile file (board_profile.h); carried by DeviceProfile and EvalOptions to the
// one place that starts workers (worker_start.h), which starts them on the board.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "remote/endpoint.h"
#include "target/arch.h"
#include "target/target.h"

namespace ekb {

struct Board {
  std::string name;          // the profile's name
  remote::Endpoint address;  // its `ekb worker --listen ADDR:PORT`
  std::string token;         // read from token_file when the profile is read; never printed or stored
  std::string token_file;
  Arch arch = Arch::aarch64;
  std::string march;         // -march of its kernels (default: the architecture's, target/arch.h)
  // What its kernels are lowered for: the vector ISA (default: the architecture's; set_isa gives its
  // width and registers) and the caches (0: target.h's defaults).
  std::optional<Isa> isa;
  int64_t l1_bytes = 0, l2_bytes = 0, l3_bytes = 0;
  // Its peak rates, measured on the board (`ekb devices --measure --device FILE`); 0: not measured,
  // and then no time is judged impossible (peak_gbps serves as its read bandwidth: harness/time_verdict.h).
  double peak_gflops = 0, peak_gbps = 0;
  std::string cc;            // its cross compiler (default: TRIPLE-gcc, Debian's gcc-TRIPLE package)
  bool openmp = true;        // kernels link the board's libgomp (parallel loops); off: built without OpenMP
  // Declared emulated (a board under qemu-user in a test): every time from it is marked as not
  // meaningful, and no peak rates are measured or applied.
  bool emulated = false;
  int connect_timeout_ms = 5000;
  // When the board stops answering during a run: how long to keep trying to reach it again before
  // the run stops (resumable) rather than making every later attempt `unavailable`.
  int reconnect_seconds = 20;
  std::string profile_path;  // the file it was read from (for messages)
};

// The target a board's kernels are lowered for, with `threads` threads.
Target board_target(const Board& b, int threads);

}  // namespace ekb
