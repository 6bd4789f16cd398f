// A memory-bound elementwise kernel, Y[i] = X[i] * a + b over 16M f32 (64 MiB read, 64 MiB written),
// compiled by ekb with the .ekb file's own schedule (and the default schedule), against memcpy of the
// same bytes (64 MiB read + 64 MiB written, glibc memcpy; with N threads each copies one contiguous
// Nth inside an OpenMP parallel region, the runtime the generated kernel uses too), interleaved in
// one process. Ratio = memcpy time / ekb time. Checks ekb's output against ekb's float64 reference (as `ekb run`).
//
// Usage: elementwise_bench [--ekb FILE] [--threads 1,2] [--rounds 15] [--reps 5] [--warm-ms 10]
#include <omp.h>

#include <cstdio>

#include "../bench_common.h"
#include "harness/compare.h"
#include "interp/reference.h"
#include "runtime/kernel_args.h"

int main(int argc, char** argv) {
  bench::ensure_env(argv, {{"KMP_BLOCKTIME", "1"}});
  std::string file = EKB_BENCH_DIR "/elementwise/scale_shift_16m.ekb", threads_arg = "1,2";
  bench::InterleaveOptions o;
  o.rounds = 15;
  o.reps = 5;
  o.warm_ms = 10;
  CLI::App app{"A memory-bound elementwise .ekb kernel (own and default schedule) against memcpy of the same bytes"};
  app.add_option("--ekb", file, "the .ekb file (one input X[N], one output Y[N])")->capture_default_str();
  bench::add_interleave_options(app, o, threads_arg);
  CLI11_PARSE(app, argc, argv);
  try {
    auto cc = ekb::make_default_c_compiler();
    bench::EkbBuild own = bench::build_ekb(file, "", *cc);
    bench::EkbBuild dflt = bench::build_ekb(file, "default", *cc);
    const ekb::Program& p = *own.program;
    if (p.inputs.size() != 1 || p.outputs.size() != 1 || p.tensors[p.inputs[0]].shape.size() != 1 ||
        p.tensors[p.inputs[0]].shape != p.tensors[p.outputs[0]].shape)
      throw std::runtime_error("expected one input X[N] and one output Y[N] of the same shape");
    // Inputs from ekb's generator, and the float64 reference the output is checked against (as `ekb run`).
    auto t_ref = std::chrono::steady_clock::now();
    ekb::ReferenceOptions ro;
    ro.use_cache = false;
    ekb::ReferenceResult ref = ekb::reference_outputs(p, 1, ro);
    double ref_ms = bench::ms_since(t_ref);
    ekb::HostBuffer Xh = ekb::to_host(ref.inputs[0]);
    const size_t n = size_t(p.tensors[p.inputs[0]].shape[0]);
    const size_t bytes = n * sizeof(float);
    const float* X = static_cast<const float*>(Xh.data());
    ekb::HostBuffer Yh(ekb::DType::f32, {int64_t(n)});
    float* Y = static_cast<float*>(Yh.data());
    auto D = bench::alloc<float>(n);
    std::memset(Y, 0, bytes);
    const double gb = 2.0 * double(bytes) * 1e-9;  // read + write

    fmt::print("elementwise kernel over {} f32 ({} MiB in + {} MiB out) vs memcpy of {} MiB (read + write)\n", n,
               bytes >> 20, bytes >> 20, bytes >> 20);
    fmt::print("float64 reference computed in {:.0f} ms\n", ref_ms);
    fmt::print("ekb `{}` ({}): own schedule lowered {:.1f} ms, compiled {:.1f} ms; default schedule compiled {:.1f} ms ({})\n",
               p.name, file, own.lower_ms, own.compile_ms, dflt.compile_ms, own.compiler);
    fmt::print("KMP_BLOCKTIME={}; machine: {}\n", bench::env_or("KMP_BLOCKTIME"), bench::machine_note());

    bool ok = true;
    for (int threads : bench::parse_int_list(threads_arg)) {
      bench::Side copy{"memcpy", [&] {
                         if (threads == 1) {
                           std::memcpy(D.get(), X, bytes);
                           return;
                         }
#pragma omp parallel num_threads(threads)
                         {
                           // Contiguous pieces, 64-byte aligned.
                           size_t t = size_t(omp_get_thread_num()), nt = size_t(omp_get_num_threads());
                           size_t per = (n / nt + 15) / 16 * 16, lo = std::min(n, t * per), hi = std::min(n, lo + per);
                           if (hi > lo) std::memcpy(D.get() + lo, X + lo, (hi - lo) * sizeof(float));
                         }
                       }};
      for (bench::EkbBuild* b : {&own, &dflt}) {
        void* args[2] = {const_cast<float*>(X), Y};
        std::string name = b == &own ? "ekb (own schedule)" : "ekb (default schedule)";
        bench::Side ek{name, [&, b] { b->kernel.entry(args, threads); }};
        std::memset(Y, 0xAB, bytes);
        ek.call();
        copy.call();
        ekb::OutputComparison c = ekb::compare_outputs(p, {ekb::from_host(Yh, p.tensors[p.outputs[0]].name)}, ref.outputs)[0];
        bool pass = c.pass && std::memcmp(D.get(), X, bytes) == 0;
        ok = ok && pass;
        fmt::print("\nthreads {}, {}: vs float64 reference max rel error {:.3g} (tolerance {:.0e}), memcpy exact: {}\n",
                   threads, name, c.max_rel_error, c.tolerance, pass ? "ok" : "MISMATCH");
        bench::Interleaved r = bench::interleave(copy, ek, o);
        bench::print_interleaved("memcpy", name, r, gb, "GB/s", o);
        std::fflush(stdout);
      }
    }
    if (!ok) {
      fmt::print("FAIL: a result is wrong\n");
      return 1;
    }
  } catch (const std::exception& e) {
    bench::print_error(e);
    return 1;
  }
  return 0;
}
