// What ekb's LLVM pass list (runtime/cpu/llvm_passes.cpp) costs or saves in kernel time: every suite
// task's C (default schedule) compiled in process twice, once as ekb compiled before (clang's own -O3
// pipeline, LLVM's code generator as it comes) and once as it compiles now (ekb's pass list, on x86
// no post-RA scheduler) (or the pipeline text of --passes, and the
// target features of --feature), checked against each other on generated inputs, then timed
// interleaved in one process (bench_common.h): ratio = clang -O3 time / ekb-passes time, above 1 when
// ekb's code is faster. Prints per task both compile times and the ratio, then the spread over tasks.
//
// With --file (an .ekb file or a directory of them), the files' programs with their own schedules
// instead: what a search found, the hand-written schedules of bench/.
//
// Usage: pass_pipeline_bench [--suite DIR | --file PATH...] [--tasks GLOB] [--passes TEXT] [--feature +F]... [--threads 1] [--rounds 9] [--reps 3]
#include <fnmatch.h>

#include <cmath>
#include <cstdio>

#include "../bench_common.h"
#include "harness/inputs.h"
#include "runtime/kernel_args.h"
#include "suite/suite.h"
#include "util/source.h"

namespace {

// A compiled kernel with its argument buffers, ready to be called again and again.
struct Call {
  ekb::CpuKernel kernel;
  std::vector<ekb::HostBuffer> bufs;
  std::vector<void*> ptrs;
  int threads = 1;
  void operator()() { kernel.entry(ptrs.data(), threads); }
};

Call make_call(ekb::CpuKernel k, const ekb::Program& p, const std::vector<ekb::TensorData>& inputs, int threads) {
  Call c{std::move(k), {}, {}, threads};
  for (const auto& t : inputs) c.bufs.push_back(ekb::to_host(t));
  for (int o : p.outputs) c.bufs.emplace_back(p.tensors[o].dtype, p.tensors[o].shape);
  for (auto& b : c.bufs) c.ptrs.push_back(b.data());
  return c;
}

// The largest relative difference between the two sides' outputs (ekb's measure, bench_common.h),
// over float outputs; integer outputs must be equal (else infinity).
double outputs_differ(const Call& a, const Call& b, const ekb::Program& p, size_t n_inputs) {
  double worst = 0;
  for (size_t i = 0; i < p.outputs.size(); ++i) {
    const ekb::HostBuffer& x = a.bufs[n_inputs + i];
    const ekb::HostBuffer& y = b.bufs[n_inputs + i];
    if (x.type == ekb::DType::f32) {
      size_t n = x.size_bytes() / sizeof(float);
      worst = std::max(worst, bench::max_rel_error(static_cast<const float*>(y.data()), static_cast<const float*>(x.data()), n));
    } else if (std::memcmp(x.data(), y.data(), x.size_bytes()) != 0 && x.type != ekb::DType::f64 && x.type != ekb::DType::f16 &&
               x.type != ekb::DType::bf16) {
      return INFINITY;
    }
  }
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  bench::ensure_env(argv, {{"KMP_BLOCKTIME", "1"}});
  std::string suite_dir, glob, threads_s = "1";
  std::vector<std::string> files;
  ekb::CompileOptions ours;  // ekb's pass list
  bench::InterleaveOptions io;
  io.rounds = 9;
  CLI::App app{"Kernel time under clang's -O3 passes and under ekb's pass list: every suite task, or the given programs"};
  app.add_option("--suite", suite_dir, "the suite directory (default: the repository's suite/)");
  app.add_option("--tasks", glob, "only the tasks matching this glob");
  app.add_option("--file", files,
                 "an .ekb file, or a directory of them, compiled with its own schedule (e.g. what a search found, a "
                 "hand-written schedule); repeatable; instead of the suite's default schedules")
      ->check(CLI::ExistingPath);
  app.add_option("--passes", ours.pass_pipeline, "an LLVM pass pipeline (text) to compare instead of ekb's pass list");
  app.add_option("--feature", ours.target_features, "an LLVM target feature for the compared side (repeatable)");
  bench::add_interleave_options(app, io, threads_s);
  CLI11_PARSE(app, argc, argv);
  try {
    // What is compared: every suite task's default schedule, or the files' programs with their own.
    struct Case {
      std::string name;
      std::shared_ptr<ekb::Program> program;
      std::string schedule;  // "default" or "" (the program's own sections)
    };
    std::vector<Case> cases;
    if (files.empty()) {
      ekb::Suite suite = ekb::Suite::load(suite_dir.empty() ? ekb::default_suite_dir() : std::filesystem::path(suite_dir));
      for (const ekb::Task& t : suite.tasks()) cases.push_back({t.name, t.program, "default"});
    } else {
      std::vector<std::filesystem::path> paths;
      for (const std::string& f : files) {
        if (!std::filesystem::is_directory(f)) paths.push_back(f);
        else
          for (const auto& e : std::filesystem::directory_iterator(f))
            if (e.path().extension() == ".ekb") paths.push_back(e.path());
      }
      std::sort(paths.begin(), paths.end());
      for (const auto& f : paths) {
        auto program = ekb::load_program(ekb::read_source_file(f.string()));
        cases.push_back({f.lexically_normal().string(), program, ""});
      }
    }
    auto cc = ekb::make_default_c_compiler();
    int threads = std::stoi(threads_s);
    ekb::CompileOptions clang_o3 = bench::clang_pipeline({});  // how ekb compiled before: clang's -O3
    std::string compared = ours.pass_pipeline.empty() ? "ekb's pass list" : "`" + ours.pass_pipeline + "`";
    for (const std::string& f : ours.target_features) compared += " " + f;
    fmt::print("kernel time, clang -O3 passes vs {}; {} thread(s); {} {}\nC compiler: {}; machine: {}\n", compared, threads,
               cases.size(), files.empty() ? "suite tasks, default schedules" : "programs, their own schedules", cc->name(),
               bench::machine_note());
    ekb::Target target = ekb::default_target(ekb::Backend::cpu);
    auto c_of = [&](const Case& k) {
      return ekb::codegen::print_c(ekb::lower_with(*k.program, target, ekb::choose_schedule(*k.program, target, k.schedule)),
                                   ekb::codegen::c_dialect());
    };
    {  // warm-up: the first compile in a process sets up the JIT and the driver
      std::string c = c_of(cases.front());
      ekb::compile_cpu_kernel(*cc, c, clang_o3);
      ekb::compile_cpu_kernel(*cc, c, ours);
    }
    std::vector<double> ratios, compile_a, compile_b;
    for (const Case& k : cases) {
      if (!glob.empty() && fnmatch(glob.c_str(), k.name.c_str(), 0) != 0) continue;
      const ekb::Program& p = *k.program;
      std::string c = c_of(k);
      auto t0 = std::chrono::steady_clock::now();
      ekb::CpuKernel ka = ekb::compile_cpu_kernel(*cc, c, clang_o3);
      double ca = bench::ms_since(t0);
      t0 = std::chrono::steady_clock::now();
      ekb::CpuKernel kb = ekb::compile_cpu_kernel(*cc, c, ours);
      double cb = bench::ms_since(t0);
      std::vector<ekb::TensorData> inputs = ekb::generate_inputs(p, 1);
      Call a = make_call(std::move(ka), p, inputs, threads), b = make_call(std::move(kb), p, inputs, threads);
      a();
      b();
      double diff = outputs_differ(a, b, p, inputs.size());
      bench::Interleaved r = bench::interleave({"clang -O3", std::ref(a)}, {"ekb passes", std::ref(b)}, io);
      double ratio = bench::median(r.ratio);
      ratios.push_back(ratio);
      compile_a.push_back(ca);
      compile_b.push_back(cb);
      fmt::print("  {:<44} compile {:6.1f} / {:6.1f} ms   time {:9.4f} / {:9.4f} ms   ratio {:.3f} (IQR {:.3f}-{:.3f})  outputs differ {:.1e}{}\n",
                 k.name, ca, cb, bench::median(r.peer_ms), bench::median(r.ekb_ms), ratio, bench::quantile(r.ratio, 0.25),
                 bench::quantile(r.ratio, 0.75), diff, diff > 1e-4 ? "  DIFFERENT" : "");
      std::fflush(stdout);
    }
    if (ratios.empty()) throw std::runtime_error("nothing matches --tasks " + glob);
    double log_sum = 0;
    for (double x : ratios) log_sum += std::log(x);
    int slower = 0;
    for (double x : ratios) slower += x < 0.95;
    fmt::print("\n{} kernels: ratio (clang -O3 time / ekb-passes time) geomean {:.3f}, median {:.3f}, p10 {:.3f}, min {:.3f}, max {:.3f}; "
               "{} below 0.95\ncompile (one each): clang -O3 median {:.1f} ms, ekb passes median {:.1f} ms\n",
               ratios.size(), std::exp(log_sum / double(ratios.size())), bench::median(ratios), bench::quantile(ratios, 0.1),
               *std::min_element(ratios.begin(), ratios.end()), *std::max_element(ratios.begin(), ratios.end()), slower,
               bench::median(compile_a), bench::median(compile_b));
  } catch (const std::exception& e) {
    bench::print_error(e);
    return 1;
  }
  return 0;
}
