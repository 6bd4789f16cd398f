// `ekb interp FILE|TASK`: evaluate L0 in float64 on generated inputs; print each output's shape and
// checksums; optionally write inputs and outputs as .npy files.
#include <fmt/format.h>
#include <xxhash.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "interp/reference.h"
#include "util/npy.h"

namespace ekb::cli {

namespace {

struct Summary {
  double sum = 0, abs_sum = 0, min = INFINITY, max = -INFINITY;
  uint64_t hash = 0;
};

Summary summarize(const TensorData& t) {
  Summary s;
  for (int64_t k = 0; k < t.size(); ++k) {
    double v = t.value(k);
    s.sum += v;
    s.abs_sum += std::fabs(v);
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
  }
  s.hash = t.holds_float() ? XXH3_64bits(t.f.data(), t.f.size() * 8) : XXH3_64bits(t.i.data(), t.i.size() * 8);
  return s;
}

}  // namespace

void register_interp(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand("interp", "Evaluate a kernel's L0 in float64 on generated inputs and print, per output, "
                                           "its shape and checksums. Results are cached on disk per (text, seed) under $EKB_CACHE_DIR "
                                           "(default ~/.cache/ekb). A suite task must not be degenerate.");
  struct Opts {
    std::string target;
    uint64_t seed = 1;
    std::string out;
    bool no_cache = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("FILE|TASK", o->target, "an .ekb file, or the name of a suite task")->required();
  cmd->add_option("--seed", o->seed, "input seed (default 1)")->option_text("S");
  cmd->add_option("--out", o->out, "write inputs (in their types) and outputs (float64 for float types) as DIR/NAME.npy")
      ->option_text("DIR");
  cmd->add_flag("--no-cache", o->no_cache, "recompute even when a cached reference exists, and do not store it");
  cmd->callback([o, &g] {
    std::unique_ptr<Suite> suite;
    LoadedProgram lp = load_file_or_task(o->target, g, suite);
    const Program& p = *lp.program;
    auto t0 = std::chrono::steady_clock::now();
    ReferenceOptions ro;
    ro.use_cache = !o->no_cache;
    ReferenceResult r = reference_outputs(p, o->seed, ro);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::cout << fmt::format("kernel {}  seed {}  ({:.1f} ms{})\n", p.name, o->seed, ms, r.from_cache ? ", cached" : "");
    for (const auto& t : r.outputs) {
      Summary s = summarize(t);
      std::cout << fmt::format("  {:<12} {:<20} sum={:.12e}  abs_sum={:.12e}  min={:.6g}  max={:.6g}  xxh64={:016x}\n", t.name,
                               t.shape_text(), s.sum, s.abs_sum, s.min, s.max, s.hash);
    }
    if (!o->out.empty()) {
      std::filesystem::create_directories(o->out);
      for (const auto& t : r.inputs) write_npy(std::filesystem::path(o->out) / (t.name + ".npy"), t, false);
      for (const auto& t : r.outputs) write_npy(std::filesystem::path(o->out) / (t.name + ".npy"), t, true);
      std::cout << fmt::format("wrote {} .npy file(s) to {}\n", r.inputs.size() + r.outputs.size(), o->out);
    }
  });
}

}  // namespace ekb::cli
