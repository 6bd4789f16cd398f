// Compile latency of every suite task with the default schedule, in process: the ekb side (choose
// the default schedule, lower, print C) and the C compile (clang 19 + ORC JIT in process, to a
// callable ekb_entry) timed separately, after one untimed warm-up compile. Each task is compiled
// REPS times; its figure is the median of its compiles. Prints the median, p95 and max over tasks
// (target: median total at most 25 ms) and the slowest tasks. Then the compile cache's side: what a
// worker does when the harness hands it a kept object (harness/compile_cache.h) instead of compiling:
// the key hashed from the source, the file read, the object loaded and linked (median over tasks).
//
// Usage: compile_latency_bench [--suite DIR] [--reps 3] [--schedule default|none|FILE] [--top 8] [--all] [--cflag FLAG]... [--opt N]
//                              [--clang-passes | --passes PIPELINE] [--beside-clang]
// (--cflag adds a compiler flag, to measure what a flag costs or saves; the default is ekb's flags and
// ekb's LLVM pass list; --clang-passes compiles with clang's own -O<opt> pipeline instead;
// --beside-clang compiles each task with clang's -O3 as well, alternating with ekb's compile, and
// prints both medians and the per-task ratio: on a shared machine, the one comparison that holds.)
#include <cstdio>

#include "../bench_common.h"
#include "harness/compile_cache.h"
#include "suite/suite.h"
#include "runtime/cpu/temp_dir.h"

int main(int argc, char** argv) {
  std::string suite_dir, spec = "default";
  int reps = 3, top = 8;
  bool all = false;
  ekb::CompileOptions copts;
  CLI::App app{"Compile latency of every suite task (lower + print, then clang + JIT in process)"};
  app.add_option("--suite", suite_dir, "the suite directory (default: the repository's suite/)");
  app.add_option("--reps", reps, "compiles per task (its figure is their median)")->capture_default_str()->check(CLI::Range(1, 1 << 20));
  app.add_option("--schedule", spec, "default, none, or a file of schedule/memory sections")->capture_default_str();
  app.add_option("--top", top, "how many of the slowest tasks to list")->capture_default_str();
  app.add_flag("--all", all, "print every task's figures");
  app.add_option("--cflag", copts.extra_flags, "an extra compiler flag (repeatable), to measure what it costs or saves");
  bool clang_passes = false;
  app.add_flag("--clang-passes", clang_passes, "clang's own -O<opt> pass pipeline instead of ekb's pass list");
  app.add_option("--passes", copts.pass_pipeline, "an LLVM pass pipeline (text) to run instead of ekb's pass list");
  bool beside_clang = false;
  app.add_flag("--beside-clang", beside_clang,
               "also compile each task with clang's -O3 pipeline (how ekb compiled before), interleaved, and print the ratio");
  app.add_option("--opt", copts.opt_level, "the optimization level (-O0 to -O3; ekb compiles at 3)")->capture_default_str()->check(CLI::Range(0, 3));
  CLI11_PARSE(app, argc, argv);
  if (clang_passes) copts.passes = ekb::CompileOptions::Passes::clang;
  try {
    std::filesystem::path dir = suite_dir.empty() ? ekb::default_suite_dir() : std::filesystem::path(suite_dir);
    auto t_load = std::chrono::steady_clock::now();
    ekb::Suite suite = ekb::Suite::load(dir);
    double load_ms = bench::ms_since(t_load);
    auto cc = ekb::make_default_c_compiler();
    fmt::print("compile latency, schedule `{}`, {} tasks of {} (suite loaded and checked in {:.0f} ms), {} compiles each\n",
               spec, suite.tasks().size(), dir.string(), load_ms, reps);
    fmt::print("C compiler: {}; machine: {}\n", cc->name(), bench::machine_note());

    struct Row {
      std::string name;
      double lower_ms, compile_ms, total_ms;
      size_t c_bytes;
    };
    auto lower_print = [&](const ekb::Task& t, std::string& c) {
      auto t0 = std::chrono::steady_clock::now();
      ekb::ScheduleChoice sc = ekb::choose_schedule(*t.program, ekb::default_target(ekb::Backend::cpu), spec);
      ekb::lower::LoweredKernel k = ekb::lower_with(*t.program, ekb::default_target(ekb::Backend::cpu), sc);
      c = ekb::codegen::print_c(k, ekb::codegen::c_dialect());
      return bench::ms_since(t0);
    };
    {  // warm-up: the first compile in a process sets up the JIT and the driver
      std::string c;
      lower_print(suite.tasks().front(), c);
      auto t0 = std::chrono::steady_clock::now();
      ekb::CpuKernel k = ekb::compile_cpu_kernel(*cc, c, copts);
      fmt::print("warm-up compile ({}): {:.1f} ms\n", suite.tasks().front().name, bench::ms_since(t0));
    }
    std::vector<Row> rows;
    std::vector<std::pair<std::string, std::string>> sources;  // (task, its C), for the cache's side
    std::vector<double> all_total, clang_ms, ratios;  // (--beside-clang: per task, clang's compile and ours / clang's)
    ekb::CompileOptions clang_opts = bench::clang_pipeline(copts);
    for (const ekb::Task& t : suite.tasks()) {
      std::vector<double> lo, co, to, cl;
      size_t bytes = 0;
      for (int r = 0; r < reps; ++r) {
        std::string c;
        double l = lower_print(t, c);
        auto compile_ms = [&](const ekb::CompileOptions& o) {
          auto t0 = std::chrono::steady_clock::now();
          ekb::CpuKernel k = ekb::compile_cpu_kernel(*cc, c, o);
          return bench::ms_since(t0);
        };
        if (beside_clang && r % 2 == 0) cl.push_back(compile_ms(clang_opts));  // (which goes first alternates)
        double cm = compile_ms(copts);
        if (beside_clang && r % 2 == 1) cl.push_back(compile_ms(clang_opts));
        lo.push_back(l);
        co.push_back(cm);
        to.push_back(l + cm);
        all_total.push_back(l + cm);
        bytes = c.size();
        if (r == 0) sources.push_back({t.name, c});
      }
      rows.push_back({t.name, bench::median(lo), bench::median(co), bench::median(to), bytes});
      if (beside_clang) {
        clang_ms.push_back(bench::median(cl));
        ratios.push_back(rows.back().compile_ms / clang_ms.back());
      }
      if (all)
        fmt::print("  {:<44} lower+print {:7.2f} ms  clang+JIT {:7.1f} ms  total {:7.1f} ms  ({} bytes of C)\n", t.name,
                   rows.back().lower_ms, rows.back().compile_ms, rows.back().total_ms, bytes);
    }
    auto summary = [&](const char* what, auto get) {
      std::vector<double> v;
      for (const Row& r : rows) v.push_back(get(r));
      fmt::print("  {:<14} median {:7.2f} ms   p95 {:7.2f} ms   min {:7.2f}   max {:7.2f}\n", what, bench::median(v),
                 bench::quantile(v, 0.95), *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()));
    };
    fmt::print("\nper task (median of {} compiles each), over {} tasks:\n", reps, rows.size());
    summary("lower+print", [](const Row& r) { return r.lower_ms; });
    summary("clang+JIT", [](const Row& r) { return r.compile_ms; });
    summary("total", [](const Row& r) { return r.total_ms; });
    fmt::print("every compile ({}): total median {:.2f} ms, p95 {:.2f} ms\n", all_total.size(), bench::median(all_total),
               bench::quantile(all_total, 0.95));
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.total_ms > b.total_ms; });
    fmt::print("\nslowest tasks:\n");
    for (int i = 0; i < top && i < int(rows.size()); ++i)
      fmt::print("  {:<44} lower+print {:7.2f} ms  clang+JIT {:7.1f} ms  total {:7.1f} ms  ({} bytes of C)\n", rows[i].name,
                 rows[i].lower_ms, rows[i].compile_ms, rows[i].total_ms, rows[i].c_bytes);
    if (beside_clang)
      fmt::print("\nbeside it, interleaved: clang's -O3 pipeline (ekb's compile before) clang+JIT median {:.2f} ms, p95 {:.2f} ms; "
                 "per task, ekb's clang+JIT / clang -O3's: median {:.3f} (IQR {:.3f}-{:.3f}, max {:.3f})\n",
                 bench::median(clang_ms), bench::quantile(clang_ms, 0.95), bench::median(ratios), bench::quantile(ratios, 0.25),
                 bench::quantile(ratios, 0.75), *std::max_element(ratios.begin(), ratios.end()));
    std::vector<double> totals;
    for (const Row& r : rows) totals.push_back(r.total_ms);
    double med = bench::median(totals);
    fmt::print("\ntarget: median total per task <= 25 ms: {:.2f} ms, {}\n", med, med <= 25 ? "met" : "NOT met");

    // The compile cache: each task's object kept once, then key + read + load timed (a cache hit).
    ekb::TempDir cache_dir("ekb-latency-cache");
    ekb::CompileCache cache(cache_dir.path());
    const std::string identity = ekb::default_c_compiler_identity();
    std::vector<double> hits;
    for (const auto& [name, c] : sources) {
      cache.put(ekb::CompileCache::key(identity, c, false), cc->compile_binary(c, copts));
      std::vector<double> v;
      for (int r = 0; r < reps; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        auto bytes = cache.get(ekb::CompileCache::key(identity, c, false));
        if (!bytes) throw std::runtime_error("compile cache: the entry just written is missing for " + name);
        auto module = cc->load_binary(*bytes);
        v.push_back(bench::ms_since(t0));
      }
      hits.push_back(bench::median(v));
    }
    fmt::print("compile cache hit (key + read + load the kept object), per task median of {}: median {:.2f} ms, p95 {:.2f} ms, max {:.2f} ms\n",
               reps, bench::median(hits), bench::quantile(hits, 0.95), *std::max_element(hits.begin(), hits.end()));
  } catch (const std::exception& e) {
    bench::print_error(e);
    return 1;
  }
  return 0;
}
