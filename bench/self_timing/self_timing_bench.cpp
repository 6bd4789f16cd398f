// Self-timing: a task's default schedule timed against itself through the harness's protocol
// (harness/evaluate.h), REPS times, to see whether the candidate's side is measured slower or faster
// than the baseline's when both run the same code. Prints each repetition's speedup and interval and
// the median over repetitions per task.
//
// Usage: self_timing_bench [--reps 5] [--threads 2] [--spread] TASK...
#include <cstdio>

#include "../bench_common.h"
#include "eval/candidate.h"
#include "harness/evaluate.h"
#include "suite/suite.h"

int main(int argc, char** argv) {
  std::vector<std::string> names;
  int reps = 5, threads = 2;
  bool spread = false;
  CLI::App app{"A task's default schedule timed against itself through the harness, several times"};
  app.add_option("--reps", reps, "evaluations per task")->capture_default_str();
  app.add_option("--threads", threads, "threads per kernel")->capture_default_str();
  app.add_flag("--spread", spread, "also print each evaluation's per-round times and ratios (p10, median, p90)");
  app.add_option("TASK", names, "suite tasks")->required();
  CLI11_PARSE(app, argc, argv);
  try {
    ekb::Suite suite = ekb::Suite::load(ekb::default_suite_dir());
    fmt::print("self-timing, {} evaluations per task, {} threads; machine: {}\n", reps, threads, bench::machine_note());
    for (const auto& n : names) {
      const ekb::Task* t = suite.find(n);
      if (!t) throw std::runtime_error("no task `" + n + "`");
      std::string src = ekb::baseline_source(*t->program, ekb::default_target(ekb::Backend::cpu));
      ekb::EvalOptions o;
      o.threads = threads;
      std::vector<double> s;
      for (int r = 0; r < reps; ++r) {
        ekb::Evaluation e = ekb::evaluate(*t->program, src, false, src, o);
        if (e.outcome != ekb::Outcome::ok) throw std::runtime_error(n + ": " + e.message);
        s.push_back(e.speedup);
        fmt::print("  {:<40} {:.3f} [{:.3f}, {:.3f}]  cand {:.4f} ms  base {:.4f} ms\n", n, e.speedup, e.speedup_lo, e.speedup_hi,
                   e.candidate.median, e.baseline.median);
        if (spread) {
          std::vector<double> c = e.candidate.ms, b = e.baseline.ms, q;
          for (size_t i = 0; i < c.size(); ++i) q.push_back(b[i] / c[i]);
          auto pct = bench::quantile;
          fmt::print("    n {}  cand p10/50/90 {:.4f} {:.4f} {:.4f}  base {:.4f} {:.4f} {:.4f}  ratio p10/50/90 {:.3f} {:.3f} {:.3f}\n", c.size(),
                     pct(c, .1), pct(c, .5), pct(c, .9), pct(b, .1), pct(b, .5), pct(b, .9), pct(q, .1), pct(q, .5), pct(q, .9));
        }
        std::fflush(stdout);
      }
      std::sort(s.begin(), s.end());
      fmt::print("{:<42} median {:.3f} (min {:.3f}, max {:.3f})\n", n, s[s.size() / 2], s.front(), s.back());
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "self_timing_bench: {}\n", e.what());
    return 1;
  }
}
