// How long the CPU backend's C compile paths take to turn a small kernel (a 20-line loop nest) into
// callable code, from source text to a function pointer: in process (clang/LLVM 19 + ORC) and the
// system C compilers as subprocesses.
// Usage: c_compile_latency [N=50] [CC...]   (CCs default to $CC, else gcc and clang-19 when present)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/cpu/c_compiler.h"
#include "runtime/cpu/run_process.h"

namespace {

// The kernels timed, each made distinct per i (its name and a constant change) so that nothing can
// be reused between compiles: a one-liner (the fixed cost of a compile) and two 20-line loop nests.
struct Kernel {
  const char* name;
  std::string (*source)(const std::string& i);
};

std::string trivial(const std::string& i) { return "int add_" + i + "(int x) { return x + " + i + "; }\n"; }

std::string matmul_bias_relu(const std::string& i) {
  return "void kernel_" + i + R"((const float* restrict A, const float* restrict B,
                const float* restrict bias, float* restrict Y) {
  // Y = relu(A * B + bias), 32x32x32, k-middle loop order so that n vectorizes
  for (int m = 0; m < 32; ++m) {
    for (int n = 0; n < 32; ++n) {
      Y[m * 32 + n] = bias[n];
    }
    for (int k = 0; k < 32; ++k) {
      float a = A[m * 32 + k];
      for (int n = 0; n < 32; ++n) {
        Y[m * 32 + n] += a * B[k * 32 + n];
      }
    }
    for (int n = 0; n < 32; ++n) {
      float v = Y[m * 32 + n] * )" + i + R"(.0f;
      Y[m * 32 + n] = v > 0.0f ? v : 0.0f;
    }
  }
}
)";
}

std::string conv1d_bias_relu(const std::string& i) {
  return "void kernel_" + i + R"((const float* restrict x, const float* restrict w,
                const float* restrict bias, float* restrict y) {
  // y[oc, p] = relu(bias[oc] + sum(ic, k) x[ic, p + k] * w[oc, ic, k]), 16x8x3 over 62 positions
  for (int oc = 0; oc < 16; ++oc) {
    for (int p = 0; p < 62; ++p) {
      float acc = bias[oc];
      for (int ic = 0; ic < 8; ++ic) {
        for (int k = 0; k < 3; ++k) {
          acc += x[ic * 64 + p + k] * w[(oc * 8 + ic) * 3 + k];
        }
      }
      y[oc * 62 + p] = acc > 0.0f ? acc * )" + i + R"(.0f : 0.0f;
    }
  }
}
)";
}

const Kernel kKernels[] = {{"one-line function", trivial},
                           {"matmul+bias+relu 32^3 loop nest", matmul_bias_relu},
                           {"conv1d+bias+relu loop nest", conv1d_bias_relu}};

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void measure(ekb::CCompiler& cc, const Kernel& k, int n, int& serial) {
  std::vector<double> ms;
  for (int i = 0; i < n; ++i) {
    std::string id = std::to_string(serial++);
    auto t0 = std::chrono::steady_clock::now();
    auto m = cc.compile(k.source(id), {});
    ms.push_back(ms_since(t0));
    if (!m->lookup(std::string(k.source == trivial ? "add_" : "kernel_") + id)) {
      std::fprintf(stderr, "symbol missing after compile %s\n", id.c_str());
      std::exit(1);
    }
  }
  std::sort(ms.begin(), ms.end());
  auto pct = [&](double q) { return ms[std::min(ms.size() - 1, static_cast<size_t>(q * (ms.size() - 1) + 0.5))]; };
  std::printf("  %-34s median %7.1f ms  p95 %7.1f ms  min %7.1f  max %7.1f  (n=%d)\n", k.name, pct(0.5),
              pct(0.95), ms.front(), ms.back(), n);
}

// The first compile includes creating the compiler (for the in-process path: the JIT, the driver's
// flags to a CompilerInvocation, and LLVM's first-use costs).
void measure_path(const std::function<std::unique_ptr<ekb::CCompiler>()>& make, int n) {
  int serial = 0;
  auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<ekb::CCompiler> cc = make();
  cc->compile(conv1d_bias_relu(std::to_string(serial++)), {});
  std::printf("%s: first compile %.1f ms\n", cc->name().c_str(), ms_since(t0));
  for (const Kernel& k : kKernels) measure(*cc, k, n, serial);
}

}  // namespace

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 50;
  if (n < 1) n = 50;
  std::vector<std::string> ccs(argv + std::min(argc, 2), argv + argc);
  if (ccs.empty()) {
    const char* env = std::getenv("CC");
    if (env && *env) ccs.push_back(env);
    else
      for (const char* c : {"gcc", "clang-19"})
        if (ekb::resolve_in_path(c) != c) ccs.push_back(c);
  }
  std::printf("C source to callable code, -O3 -march=native -fopenmp, %d distinct kernels of each kind\n", n);
  try {
#if EKB_WITH_LLVM
    measure_path([] { return ekb::make_inprocess_c_compiler(); }, n);
#endif
    for (const std::string& c : ccs) measure_path([&] { return ekb::make_subprocess_c_compiler(c); }, n);
  } catch (const ekb::CompileError& e) {
    std::fprintf(stderr, "%s\n%s\n", e.what(), e.log.c_str());
    return 1;
  }
  return 0;
}
