// The board's build of `ekb` (-DEKB_BOARD_ONLY=ON): only `ekb worker`, which serves hosts
// (board_server.h). No LLVM, SQLite or libcurl: what a board needs is this, ekb-worker and the
// system's C library, libm and libgomp.
#include <cstdio>
#include <iostream>

#include "cli/cmd_worker.h"

int main(int argc, char** argv) {
  CLI::App app{"ekb (board build) — serves a host's evaluations as a remote device: `ekb worker --help`."};
  app.require_subcommand(1);
  ekb::cli::register_worker(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "ekb: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
