// A board's ekb-worker (the build for boards, -DEKB_BOARD_ONLY=ON): the host's worker without a
// compiler. It loads the kernel the host built for this board (checked: elf_check.h) and its
// warm-up kernel, then maps the buffers, locks itself in and runs, exactly as kernel_worker.h
// describes. `ekb worker --listen` starts one per attempt's side, as the host's harness starts its
// own workers.
//
// Usage (by `ekb worker` only): ekb-worker --socket FD [--private-dir DIR] [--unsandboxed-emulation]
#include "harness/kernel_worker.h"

int main(int argc, char** argv) {
  using namespace ekb::worker;
  int sock = socket_argument(argc, argv, "ekb-worker");
  if (sock < 0) return 2;
  // What the loader may read (the system's libraries, its private directory), while it has one thread.
  Confinement c = confine_compile({WorkerKind::cpu, private_dir_argument(argc, argv), {}, {}});
  KernelWorker w(sock, std::move(c), unsandboxed_emulation_argument(argc, argv));
  return w.serve();
}
