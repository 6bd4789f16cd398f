// The `ekb` command: parses the command line (CLI11) and runs one subcommand. Diagnostics go to
// stderr; exit status 0 on success, 1 on an error in the input, 2 on a usage error.
#include <fmt/format.h>

#include <cstdio>
#include <iostream>

#include "cli/cmd_worker.h"
#include "cli/commands.h"
#include "util/diagnostics.h"

int main(int argc, char** argv) {
  // One line at a time, also into a file or a pipe: a long run's progress lines survive its being
  // killed (by a timeout, a scheduler), as its results do in the store.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  CLI::App app{"ekb — EdgeKernelBench: kernels in a layered IR, checked against a float64 reference.\n"
               "Run `ekb COMMAND --help` for a command's options."};
  app.set_version_flag("--version", std::string("ekb 0.1"));
  app.require_subcommand(1);
  ekb::cli::Globals g;
  app.add_option("--suite", g.suite_dir, "suite directory (default: $EKB_SUITE, else the source tree's suite/)")
      ->option_text("DIR");
  ekb::cli::register_check(app, g);
  ekb::cli::register_compile(app, g);
  ekb::cli::register_export(app, g);
  ekb::cli::register_run(app, g);
  ekb::cli::register_fmt(app, g);
  ekb::cli::register_interp(app, g);
  ekb::cli::register_list(app, g);
  ekb::cli::register_suite_manifest(app, g);
  ekb::cli::register_show(app, g);
  ekb::cli::register_eval(app, g);
  ekb::cli::register_results(app, g);
  ekb::cli::register_devices(app, g);
  ekb::cli::register_agent(app, g);
  ekb::cli::register_trajectory(app, g);
  ekb::cli::register_prompt(app, g);
  ekb::cli::register_generate(app, g);
  ekb::cli::register_compare(app, g);
  ekb::cli::register_report(app, g);
  ekb::cli::register_leaderboard(app, g);
  ekb::cli::register_merge(app, g);
  ekb::cli::register_slurm(app, g);
  ekb::cli::register_import(app, g);
  ekb::cli::register_worker(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const ekb::DiagnosticError& e) {
    std::fflush(stdout);
    std::cerr << e.diagnostics().render_all();
    return 1;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::cerr << "ekb: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
