// `ekb worker --listen ADDR:PORT --token-file F`: a board's side of remote evaluation. It accepts a
// connection from a host, checks the host's token (in constant time; a wrong one is refused, logged,
// and the connection closed), and then, for that session, starts a worker process exactly as the
// host's harness starts its own (worker_client.h: pinned to the first THREADS CPUs, its own private
// directory, its own process group) and relays the host's requests to it: the kernel's objects (each
// checked: elf_check.h), the argument region (a memory file here, kept the same as the host's:
// region_sync.h), sandbox, run, flush. The worker times its kernel by this board's clock, and this
// process times each request around it, as the host's harness does for a local worker. One process
// per session (forked): a session that ends, or whose host disappears, takes its worker with it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "remote/frame.h"

namespace ekb::remote {

struct BoardServerOptions {
  std::string listen;          // ADDR:PORT (port 0: any free port, written to port_file)
  std::string token_file;
  int max_threads = 0;         // the most threads a session may ask for (0: every CPU)
  uint64_t max_payload = kDefaultMaxPayloadBytes;
  // Go on where the system refuses seccomp filters and Landlock (an emulator): workers then run
  // without the sandbox, and every answer says so. For emulated boards in tests only.
  bool unsandboxed_emulation = false;
  std::vector<std::string> worker_launcher;  // words before the worker's path (an emulator without binfmt_misc)
  std::string worker_path;                   // ekb-worker (default: beside this program, or $EKB_WORKER)
  int max_sessions = 8;
  int idle_timeout_s = 600;    // a session whose host sends nothing for this long ends
  std::string port_file;       // where to write the port it listens on, once listening
};

// Runs the listener until it is killed; the exit status when it cannot start (with the reason on
// stderr). Logs every session (its peer, authenticated or refused, how it ended) to stderr.
int serve_board(const BoardServerOptions& o);

}  // namespace ekb::remote
