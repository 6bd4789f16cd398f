// What ekb's LLVM pass list (runtime/cpu/llvm_passes.cpp) costs or saves in kernel time: every suite
// task's C (default schedule) compiled in process twice, once as ekb compiled before (clang's own -O3
// pipeline, LLVM's code generator as it comes) and once as it compiles now (ekb's pass list, on x86
// no post-RA scheduler) (or the pipeline text of --passes, and the
// target features of --feature), checked against each other on generated inputs, then timed
// interleaved in one process (bench_common.h): ratio = clang -O3 time / ekb-passes time, above 1 when
// ekb's code is faster. Prints per task both compile times and the ratio, then the spread over tasks.
//
// Usage: pass_pipeline_bench [--suite DIR] [--tasks GLOB] [--passes TEXT] [--feature +F]... [--threads 1] [--rounds 9] [--reps 3]
#include <fnmatch.h>

#include <cmath>
#include <cstdio>

#include "../bench_common.h"
#include "harness/inputs.h"
#include "runtime/kernel_args.h"
#include "suite/suite.h"

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
  ekb::CompileOptions ours;  // ekb's pass list
  bench::InterleaveOptions io;
  io.rounds = 9;
  CLI::App app{"Kernel time under clang's -O3 passes and under another LLVM pass pipeline, every suite task"};
  app.add_option("--suite", suite_dir, "the suite directory (default: the repository's suite/)");
  app.add_option("--tasks", glob, "only the tasks matching this glob");
  app.add_option("--passes", ours.pass_pipeline, "an LLVM pass pipeline (text) to compare instead of ekb's pass list");
  app.add_option("--feature", ours.target_features, "an LLVM target feature for the compared side (repeatable)");
  bench::add_interleave_options(app, io, threads_s);
  CLI11_PARSE(app, argc, argv);
  try {
    std::filesystem::path dir = suite_dir.empty() ? ekb::default_suite_dir() : std::filesystem::path(suite_dir);
    ekb::Suite suite = ekb::Suite::load(dir);
    auto cc = ekb::make_default_c_compiler();
    int threads = std::stoi(threads_s);
    ekb::CompileOptions clang_o3;  // how ekb compiled before: clang's -O3, the code generator as LLVM has it
    clang_o3.passes = ekb::CompileOptions::Passes::clang;
    clang_o3.llvm_default_codegen = true;
    std::string compared = ours.pass_pipeline.empty() ? "ekb's pass list" : "`" + ours.pass_pipeline + "`";
    for (const std::string& f : ours.target_features) compared += " " + f;
    fmt::print("kernel time, clang -O3 passes vs {}; {} thread(s); {} suite tasks\nC compiler: {}; machine: {}\n", compared,
               threads, suite.tasks().size(), cc->name(), bench::machine_note());
    {  // warm-up: the first compile in a process sets up the JIT and the driver
      std::string c = ekb::codegen::print_c(ekb::lower_with(*suite.tasks().front().program, ekb::default_target(ekb::Backend::cpu),
                                                            ekb::choose_schedule(*suite.tasks().front().program,
                                                                                 ekb::default_target(ekb::Backend::cpu), "default")),
                                            ekb::codegen::c_dialect());
      ekb::compile_cpu_kernel(*cc, c, clang_o3);
      ekb::compile_cpu_kernel(*cc, c, ours);
    }
    std::vector<double> ratios, compile_a, compile_b;
    for (const ekb::Task& t : suite.tasks()) {
      if (!glob.empty() && fnmatch(glob.c_str(), t.name.c_str(), 0) != 0) continue;
      const ekb::Program& p = *t.program;
      ekb::Target target = ekb::default_target(ekb::Backend::cpu);
      std::string c = ekb::codegen::print_c(ekb::lower_with(p, target, ekb::choose_schedule(p, target, "default")),
                                            ekb::codegen::c_dialect());
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
                 t.name, ca, cb, bench::median(r.peer_ms), bench::median(r.ekb_ms), ratio, bench::quantile(r.ratio, 0.25),
                 bench::quantile(r.ratio, 0.75), diff, diff > 1e-4 ? "  DIFFERENT" : "");
      std::fflush(stdout);
    }
    if (ratios.empty()) throw std::runtime_error("no task matches --tasks " + glob);
    double log_sum = 0;
    for (double x : ratios) log_sum += std::log(x);
    int slower = 0;
    for (double x : ratios) slower += x < 0.95;
    fmt::print("\n{} tasks: ratio (clang -O3 time / ekb-passes time) geomean {:.3f}, median {:.3f}, p10 {:.3f}, min {:.3f}, max {:.3f}; "
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
