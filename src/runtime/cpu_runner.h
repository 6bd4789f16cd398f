// Compiling C for the cpu backend and calling it: the kernel is entered through the fixed wrapper
// `ekb_entry(void* const* args, int32_t num_threads)`, so generated and raw C run the same way.
// (The harness issue moves this into an isolated worker process; the calls stay the same.)
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "interp/tensor_data.h"
#include "ir/program.h"
#include "runtime/cpu/c_compiler.h"
#include "runtime/kernel_args.h"

namespace ekb {

struct CpuKernel {
  std::unique_ptr<CompiledModule> module;
  void (*entry)(void* const*, int32_t) = nullptr;
};

// Compiles `c_source` (which must define ekb_entry); throws CompileError.
CpuKernel compile_cpu_kernel(CCompiler& cc, const std::string& c_source, const CompileOptions& o = {});
// Loads a binary of cc's (CCompiler::compile_binary); throws CompileError.
CpuKernel load_cpu_kernel(CCompiler& cc, const std::string& binary);

// Runs the kernel once on `inputs`; returns its outputs (the output buffers start filled with NaN bytes,
// or 0xAB bytes for integers, so that an element the kernel does not write shows).
std::vector<TensorData> run_cpu_kernel(const CpuKernel& k, const Program& p, const std::vector<TensorData>& inputs,
                                       int threads);

struct TimingStats {
  std::vector<double> ms;  // every timed repetition
  double median = 0, q1 = 0, q3 = 0;
};
// Times repetitions after one warm-up call until at least `min_seconds` and `min_reps` are reached.
TimingStats time_cpu_kernel(const CpuKernel& k, const Program& p, const std::vector<TensorData>& inputs, int threads,
                            double min_seconds = 0.2, int min_reps = 5);
TimingStats summarize_times(std::vector<double> ms);

}  // namespace ekb
