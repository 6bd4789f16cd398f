// Calling compiled CPU kernels and timing them.
#include "runtime/cpu_runner.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "codegen/c_printer.h"

namespace ekb {

CpuKernel compile_cpu_kernel(CCompiler& cc, const std::string& c_source, const CompileOptions& o) {
  CpuKernel k;
  k.module = cc.compile(c_source, o);
  k.entry = reinterpret_cast<void (*)(void* const*, int32_t)>(k.module->lookup(codegen::kEntryWrapper));
  if (!k.entry) throw CompileError("the compiled code has no `ekb_entry`", "");
  return k;
}

CpuKernel load_cpu_kernel(CCompiler& cc, const std::string& binary) {
  CpuKernel k;
  k.module = cc.load_binary(binary);
  k.entry = reinterpret_cast<void (*)(void* const*, int32_t)>(k.module->lookup(codegen::kEntryWrapper));
  if (!k.entry) throw CompileError("the compiled code has no `ekb_entry`", "");
  return k;
}

namespace {

std::vector<HostBuffer> make_args(const Program& p, const std::vector<TensorData>& inputs, std::vector<void*>& ptrs) {
  std::vector<HostBuffer> bufs;
  for (const auto& t : inputs) bufs.push_back(to_host(t));
  for (int o : p.outputs) {
    const TensorInfo& t = p.tensors[o];
    HostBuffer b(t.dtype, t.shape);
    // Poison: NaN bytes for floats (a NaN where the reference is finite fails), 0xAB for integers.
    std::memset(b.data(), is_float(t.dtype) ? 0xFF : 0xAB, b.size_bytes());
    bufs.push_back(std::move(b));
  }
  ptrs.clear();
  for (auto& b : bufs) ptrs.push_back(b.data());
  return bufs;
}

}  // namespace

std::vector<TensorData> run_cpu_kernel(const CpuKernel& k, const Program& p, const std::vector<TensorData>& inputs,
                                       int threads) {
  std::vector<void*> ptrs;
  std::vector<HostBuffer> bufs = make_args(p, inputs, ptrs);
  k.entry(ptrs.data(), threads);
  std::vector<TensorData> out;
  for (size_t i = 0; i < p.outputs.size(); ++i)
    out.push_back(from_host(bufs[inputs.size() + i], p.tensors[p.outputs[i]].name));
  return out;
}

TimingStats summarize_times(std::vector<double> ms) {
  TimingStats s;
  s.ms = ms;
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) { return ms[static_cast<size_t>(q * static_cast<double>(ms.size() - 1) + 0.5)]; };
  s.median = at(0.5);
  s.q1 = at(0.25);
  s.q3 = at(0.75);
  return s;
}

TimingStats time_cpu_kernel(const CpuKernel& k, const Program& p, const std::vector<TensorData>& inputs, int threads,
                            double min_seconds, int min_reps) {
  std::vector<void*> ptrs;
  std::vector<HostBuffer> bufs = make_args(p, inputs, ptrs);
  k.entry(ptrs.data(), threads);  // warm-up
  std::vector<double> ms;
  double total = 0;
  while (total < min_seconds || static_cast<int>(ms.size()) < min_reps) {
    auto t0 = std::chrono::steady_clock::now();
    k.entry(ptrs.data(), threads);
    double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    ms.push_back(t);
    total += t / 1000.0;
    if (ms.size() >= 10000) break;
  }
  return summarize_times(ms);
}

}  // namespace ekb
