// `ekb worker`: the subcommand a board runs (docs/scale.md, "Remote boards"). Its own header, with
// nothing but CLI11, because the board's build of `ekb` (-DEKB_BOARD_ONLY=ON, remote/board_main.cpp)
// has this subcommand only.
#pragma once
#include <CLI/CLI.hpp>

namespace ekb::cli {

void register_worker(CLI::App& app);

}  // namespace ekb::cli
