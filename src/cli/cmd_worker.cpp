// `ekb worker --listen ADDR:PORT --token-file F`: serve as a board (remote/board_server.h).
#include "cli/cmd_worker.h"

#include <cstdlib>
#include <memory>
#include <sstream>

#include "remote/board_server.h"
#include "remote/protocol.h"

namespace ekb::cli {

void register_worker(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "worker",
      "Serve as a board (a remote device): accept a host's `ekb eval --device BOARD.json` (and every other command that "
      "evaluates), check its token, and run its candidates in sandboxed workers on this machine, timed by this machine's "
      "clock. Logs every connection to stderr. Runs until it is killed (`kill -TERM -PGID` ends its sessions too).");
  struct Opts {
    std::string listen, token_file, launcher, worker, port_file;
    int threads = 0, max_message_mib = static_cast<int>(remote::kDefaultMaxPayloadBytes >> 20), max_sessions = 8, idle_timeout = 600;
    bool unsandboxed_emulation = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--listen", o->listen, "ADDR:PORT to listen on, e.g. 0.0.0.0:" + std::to_string(remote::kDefaultBoardPort) +
                                             " (port 0: any free port; see --port-file)")
      ->required()
      ->option_text("ADDR:PORT");
  cmd->add_option("--token-file", o->token_file,
                  "a file holding the token hosts must present (at least 16 characters; make one with `head -c 32 /dev/urandom | "
                  "base64 > F`, mode 600, and give the host the same file)")
      ->required()
      ->option_text("FILE");
  cmd->add_option("--threads", o->threads, "the most threads a host's worker may use here (default: every CPU)")->option_text("N");
  cmd->add_option("--max-message-mib", o->max_message_mib,
                  "the largest message accepted, in MiB (a task's argument region travels in one): larger ones are refused with "
                  "an error naming both sizes")
      ->option_text("MIB");
  cmd->add_option("--max-sessions", o->max_sessions, "connections served at once (each attempt's side is one; default 8)")->option_text("N");
  cmd->add_option("--idle-timeout", o->idle_timeout, "seconds of silence after which a host's session ends (default 600)")->option_text("S");
  cmd->add_flag("--unsandboxed-emulation", o->unsandboxed_emulation,
                "where seccomp filters are refused (qemu-user refuses its guests' filters and Landlock), serve anyway, with workers "
                "WITHOUT the sandbox; every attempt served says so. For emulated boards in tests only: never on a real board");
  cmd->add_option("--worker-launcher", o->launcher,
                  "words to start each worker with, before its path: an emulator where binfmt_misc does not run the board's "
                  "programs, e.g. \"qemu-aarch64 -L /usr/aarch64-linux-gnu\"")
      ->option_text("CMD");
  cmd->add_option("--worker", o->worker, "the worker program (default: ekb-worker beside this program, or $EKB_WORKER)")->option_text("PATH");
  cmd->add_option("--port-file", o->port_file, "write the port it listens on to this file once it listens")->option_text("FILE");
  cmd->callback([o] {
    remote::BoardServerOptions b;
    b.listen = o->listen;
    b.token_file = o->token_file;
    b.max_threads = o->threads;
    if (o->max_message_mib < 1) throw CLI::ValidationError("--max-message-mib", "must be at least 1");
    b.max_payload = static_cast<uint64_t>(o->max_message_mib) << 20;
    b.max_sessions = std::max(1, o->max_sessions);
    b.idle_timeout_s = std::max(1, o->idle_timeout);
    b.unsandboxed_emulation = o->unsandboxed_emulation;
    std::istringstream words(o->launcher);
    for (std::string w; words >> w;) b.worker_launcher.push_back(w);
    b.worker_path = o->worker;
    b.port_file = o->port_file;
    std::exit(remote::serve_board(b));
  });
}

}  // namespace ekb::cli
