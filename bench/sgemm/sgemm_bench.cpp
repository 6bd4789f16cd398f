// SGEMM C = A x B (f32, row-major) of the kernel in an .ekb file (default: sgemm_1024.ekb beside this
// file, 1024^3 with its hand-written schedule) against OpenBLAS cblas_sgemm on the same inputs and
// the same number of threads, interleaved in one process. Verifies ekb's C against OpenBLAS's first
// (largest |ekb - blas| / (|blas| + rms(blas)) must be at most 1e-4) so a fast wrong kernel cannot win.
//
// Usage: sgemm_bench [--ekb FILE] [--schedule SPEC] [--threads 1,2] [--rounds 15] [--reps 3] [--warm-ms 5]
// OpenBLAS should run its best kernel for this CPU: SkylakeX where AVX-512 is, Haswell on AVX2 only
// (bench/sgemm/search.sh sets it):
//   env -u OPENBLAS_L2_SIZE OPENBLAS_CORETYPE=SkylakeX ./build-bench/bench/sgemm_bench
#include <cblas.h>

#include <cctype>
#include <cstdio>

#include "../bench_common.h"

#ifndef EKB_BENCH_SGEMM_EKB
#define EKB_BENCH_SGEMM_EKB "sgemm_1024.ekb"
#endif

int main(int argc, char** argv) {
  bench::ensure_env(argv, {{"KMP_BLOCKTIME", "1"}, {"OPENBLAS_THREAD_TIMEOUT", "22"}});
  std::string file = EKB_BENCH_SGEMM_EKB, spec, threads_arg = "1,2";
  bench::InterleaveOptions o;
  o.rounds = 15;
  o.reps = 3;
  o.warm_ms = 5;
  CLI::App app{"SGEMM f32: an .ekb kernel C = A x B against OpenBLAS's cblas_sgemm, interleaved in one process"};
  app.add_option("--ekb", file, "the .ekb file")->capture_default_str();
  app.add_option("--schedule", spec, "default, none, or a file of schedule/memory sections (default: the file's own)");
  bench::add_interleave_options(app, o, threads_arg);
  CLI11_PARSE(app, argc, argv);
  try {
    auto cc = ekb::make_default_c_compiler();
    bench::EkbBuild b = bench::build_ekb(file, spec, *cc);
    const ekb::Program& p = *b.program;
    // The kernel must be C[M, N] = A[M, K] x B[K, N] in f32: three tensors, two in and one out.
    if (p.inputs.size() != 2 || p.outputs.size() != 1) throw std::runtime_error("expected a kernel with inputs A, B and output C");
    for (int t : {p.inputs[0], p.inputs[1], p.outputs[0]})
      if (p.tensors[t].dtype != ekb::DType::f32 || p.tensors[t].shape.size() != 2)
        throw std::runtime_error("expected f32 matrices");
    int64_t M = p.tensors[p.inputs[0]].shape[0], K = p.tensors[p.inputs[0]].shape[1], N = p.tensors[p.inputs[1]].shape[1];
    if (p.tensors[p.inputs[1]].shape[0] != K || p.tensors[p.outputs[0]].shape != std::vector<int64_t>{M, N})
      throw std::runtime_error("shapes are not A[M, K], B[K, N], C[M, N]");

    fmt::print("SGEMM {}x{}x{} f32 row-major: ekb `{}` ({}, schedule {}) vs OpenBLAS cblas_sgemm\n", M, N, K, p.name, file,
               b.schedule);
    fmt::print("ekb: lowered + printed in {:.1f} ms, compiled in {:.1f} ms ({})\n", b.lower_ms, b.compile_ms, b.compiler);
    fmt::print("OpenBLAS: {} (core {}); OPENBLAS_CORETYPE={} OPENBLAS_L2_SIZE={} OPENBLAS_THREAD_TIMEOUT={} KMP_BLOCKTIME={}\n",
               openblas_get_config(), openblas_get_corename(), bench::env_or("OPENBLAS_CORETYPE"),
               bench::env_or("OPENBLAS_L2_SIZE"), bench::env_or("OPENBLAS_THREAD_TIMEOUT"), bench::env_or("KMP_BLOCKTIME"));
    std::string core = openblas_get_corename();
    std::transform(core.begin(), core.end(), core.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    std::string best = ekb::host_cpu_target(1).isa == ekb::Isa::avx512 ? "skylakex" : "haswell";
    if (core != best)
      fmt::print("warning: OpenBLAS is not using its best kernel for this CPU, {} (run with `env -u OPENBLAS_L2_SIZE "
                 "OPENBLAS_CORETYPE={}`)\n", best, best == "skylakex" ? "SkylakeX" : "Haswell");
    fmt::print("machine: {}\n", bench::machine_note());

    auto A = bench::alloc<float>(M * K), B = bench::alloc<float>(K * N);
    auto Ce = bench::alloc<float>(M * N), Cb = bench::alloc<float>(M * N);
    bench::fill_uniform(A.get(), M * K, 1);
    bench::fill_uniform(B.get(), K * N, 2);
    const double gflop = 2.0 * double(M) * double(N) * double(K) * 1e-9;
    bool ok = true;
    for (int threads : bench::parse_int_list(threads_arg)) {
      openblas_set_num_threads(threads);
      void* args[3] = {A.get(), B.get(), Ce.get()};
      bench::Side blas{"OpenBLAS", [&] {
                         cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(M), int(N), int(K), 1.0f, A.get(), int(K),
                                     B.get(), int(N), 0.0f, Cb.get(), int(N));
                       }};
      bench::Side ek{"ekb", [&] { b.kernel.entry(args, threads); }};
      // Verify first: poison ekb's output so an element it does not write shows.
      std::memset(Ce.get(), 0xAB, sizeof(float) * M * N);
      ek.call();
      blas.call();
      double err = bench::max_rel_error(Ce.get(), Cb.get(), size_t(M * N));
      bool pass = err <= 1e-4;
      ok = ok && pass;
      fmt::print("\nthreads {}: ekb vs OpenBLAS max rel error {:.3g} (limit 1e-4) {}\n", threads, err, pass ? "ok" : "MISMATCH");
      bench::Interleaved r = bench::interleave(blas, ek, o);
      bench::print_interleaved("OpenBLAS", "ekb", r, gflop, "GFLOP/s", o);
      std::fflush(stdout);
    }
    if (!ok) {
      fmt::print("FAIL: ekb's result differs from OpenBLAS's\n");
      return 1;
    }
  } catch (const std::exception& e) {
    bench::print_error(e);
    return 1;
  }
  return 0;
}
