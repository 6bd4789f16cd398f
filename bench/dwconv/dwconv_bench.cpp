// Depthwise 3x3 convolution, NHWC, stride 1, padding 1, bias and ReLU6 (MobileNetV2's spatial filter):
// ekb (the .ekb file's own schedule, and the default schedule) against XNNPACK
// (xnn_create_convolution2d_nhwc_f32 with groups = channels and the depthwise weight layout, bias and
// the [0, 6] clamp fused), single-threaded (no thread pool) and on a pthreadpool of N threads,
// interleaved in one process. Each ekb output is verified against XNNPACK's first.
//
// Usage: dwconv_bench [--ekb FILE]... [--threads 1,2] [--rounds 15] [--reps 20] [--warm-ms 200]
// (default files: dwconv_112x112x96.ekb and dwconv_56x56x144.ekb beside this file)
#include <pthreadpool.h>
#include <xnnpack.h>

#include <cstdio>

#include "../bench_common.h"

namespace {

struct Shape {
  int64_t H, W, C;
};

// The kernel must be Y[H, W, C] = clamp(dwconv3x3(X[H, W, C], Wt[3, 3, C]) + B[C], 0, 6), as in the files.
Shape check_kernel(const ekb::Program& p) {
  Shape s{bench::dim_of(p, "H"), bench::dim_of(p, "W"), bench::dim_of(p, "C")};
  if (p.inputs.size() != 3 || p.outputs.size() != 1) throw std::runtime_error("expected inputs X, Wt, B and output Y");
  auto shape = [&](int t) { return p.tensors[t].shape; };
  if (shape(p.inputs[0]) != std::vector<int64_t>{s.H, s.W, s.C} || shape(p.inputs[1]) != std::vector<int64_t>{3, 3, s.C} ||
      shape(p.inputs[2]) != std::vector<int64_t>{s.C} || shape(p.outputs[0]) != std::vector<int64_t>{s.H, s.W, s.C})
    throw std::runtime_error("expected X[H, W, C], Wt[3, 3, C], B[C] -> Y[H, W, C]");
  return s;
}

void xnn_check(xnn_status st, const char* what) {
  if (st != xnn_status_success) throw std::runtime_error(fmt::format("XNNPACK: {} failed (status {})", what, int(st)));
}

}  // namespace

int main(int argc, char** argv) {
  bench::ensure_env(argv, {{"KMP_BLOCKTIME", "1"}});
  std::vector<std::string> files;
  std::string threads_arg = "1,2";
  bench::InterleaveOptions o;
  o.rounds = 15;
  o.reps = 20;
  o.warm_ms = 200;  // pthreadpool workers spin for tens of ms after a parallel call (20 ms was not enough)
  CLI::App app{"Depthwise 3x3 NHWC: .ekb kernels (own and default schedule) against XNNPACK, interleaved in one process"};
  app.add_option("--ekb", files, "an .ekb file (repeatable; default: the two in bench/dwconv)");
  bench::add_interleave_options(app, o, threads_arg);
  CLI11_PARSE(app, argc, argv);
  if (files.empty())
    files = {EKB_BENCH_DIR "/dwconv/dwconv_112x112x96.ekb", EKB_BENCH_DIR "/dwconv/dwconv_56x56x144.ekb"};
  try {
    xnn_check(xnn_initialize(nullptr), "xnn_initialize");
    std::vector<int> thread_counts = bench::parse_int_list(threads_arg);
    std::vector<pthreadpool_t> pools;  // none for 1 thread: XNNPACK then runs on the caller
    for (int t : thread_counts) pools.push_back(t > 1 ? pthreadpool_create(size_t(t)) : nullptr);
    fmt::print("depthwise 3x3 NHWC, stride 1, pad 1, bias + ReLU6: ekb vs XNNPACK (Debian 2022 snapshot)\n");
    fmt::print("KMP_BLOCKTIME={}; machine: {}\n", bench::env_or("KMP_BLOCKTIME"), bench::machine_note());
    auto cc = ekb::make_default_c_compiler();
    bool ok = true;
    for (const std::string& file : files) {
      bench::EkbBuild own = bench::build_ekb(file, "", *cc);
      bench::EkbBuild dflt = bench::build_ekb(file, "default", *cc);
      Shape s = check_kernel(*own.program);
      size_t n = size_t(s.H * s.W * s.C);
      auto X = bench::alloc<float>(n), Wt = bench::alloc<float>(9 * s.C), B = bench::alloc<float>(s.C);
      auto Yx = bench::alloc<float>(n), Ye = bench::alloc<float>(n);
      bench::fill_uniform(X.get(), n, 1, -1, 1);
      bench::fill_uniform(Wt.get(), 9 * s.C, 2, -0.7f, 0.7f);
      bench::fill_uniform(B.get(), s.C, 3, -0.3f, 0.3f);
      // Flops as ekb counts them: 9 multiply-adds, the bias add and the clamp (2) per output.
      const double gflop = double(n) * (18 + 1 + 2) * 1e-9;
      const double gbytes = double(2 * n + 10 * s.C) * 4 * 1e-9;

      xnn_operator_t op = nullptr;
      xnn_check(xnn_create_convolution2d_nhwc_f32(1, 1, 1, 1, 3, 3, 1, 1, 1, 1, uint32_t(s.C), 1, 1, size_t(s.C), size_t(s.C),
                                                  Wt.get(), B.get(), 0.0f, 6.0f, XNN_FLAG_DEPTHWISE_CONVOLUTION, &op),
                "xnn_create_convolution2d_nhwc_f32");

      fmt::print("\n== {} ({}x{}x{}, {} MB in + {} MB out)\n", own.program->name, s.H, s.W, s.C, n * 4 / 1e6, n * 4 / 1e6);
      fmt::print("ekb own schedule: lowered {:.1f} ms, compiled {:.1f} ms; default schedule: lowered {:.1f} ms, compiled {:.1f} ms ({})\n",
                 own.lower_ms, own.compile_ms, dflt.lower_ms, dflt.compile_ms, own.compiler);
      for (size_t ti = 0; ti < thread_counts.size(); ++ti) {
        int threads = thread_counts[ti];
        pthreadpool_t pool = pools[ti];
        xnn_check(xnn_setup_convolution2d_nhwc_f32(op, 1, size_t(s.H), size_t(s.W), X.get(), Yx.get(), pool),
                  "xnn_setup_convolution2d_nhwc_f32");
        bench::Side xnn{"XNNPACK", [&] { xnn_check(xnn_run_operator(op, pool), "xnn_run_operator"); }};
        xnn.call();
        for (bench::EkbBuild* b : {&own, &dflt}) {
          void* args[4] = {X.get(), Wt.get(), B.get(), Ye.get()};
          std::string name = b == &own ? "ekb (own schedule)" : "ekb (default schedule)";
          bench::Side ek{name, [&, b] { b->kernel.entry(args, threads); }};
          std::memset(Ye.get(), 0xAB, n * sizeof(float));
          ek.call();
          double err = bench::max_rel_error(Ye.get(), Yx.get(), n);
          bool pass = err <= 1e-4;
          ok = ok && pass;
          fmt::print("\nthreads {}, {}: max rel error vs XNNPACK {:.3g} (limit 1e-4) {}\n", threads, name, err,
                     pass ? "ok" : "MISMATCH");
          bench::Interleaved r = bench::interleave(xnn, ek, o);
          bench::print_interleaved("XNNPACK", name, r, gflop, "GFLOP/s", o);
          fmt::print("  (bandwidth at the medians: XNNPACK {:.1f} GB/s, ekb {:.1f} GB/s)\n", gbytes / (bench::median(r.peer_ms) * 1e-3),
                     gbytes / (bench::median(r.ekb_ms) * 1e-3));
          std::fflush(stdout);
        }
      }
      xnn_delete_operator(op);
    }
    for (pthreadpool_t p : pools)
      if (p) pthreadpool_destroy(p);
    if (!ok) {
      fmt::print("FAIL: an ekb result differs from XNNPACK's\n");
      return 1;
    }
  } catch (const std::exception& e) {
    bench::print_error(e);
    return 1;
  }
  return 0;
}
