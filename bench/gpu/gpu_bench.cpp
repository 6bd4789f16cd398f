// ekb-gpu-bench: the ekb side of the GPU benchmarks (bench/gpu/h200_bench.py). It lowers an .ekb
// file for CUDA or OpenCL (by default the file's own schedule section for that backend, else the
// default GPU schedule; --schedule default takes the default schedule even where the file has its
// own, as `ekb compile --schedule` does), runs it in this process through ekb's GPU backend on
// generated inputs, and times it on the device: each repetition preceded by an L2 flush, the
// launches of one call between two events. It also times an empty kernel the same way (the launch
// floor, `floor_ms`). It prints one JSON line (median, quartiles, GB/s, GFLOP/s, launches, floor)
// and, with --save DIR, writes the inputs and outputs as .npy so that the peers' script can check
// the outputs at full size (the float64 interpreter is too slow for a 4096^3 GEMM). Trusted code
// only: a benchmark, not the harness.
//   ekb-gpu-bench FILE.ekb --api cuda|opencl [--schedule own|default|none|FILE] [--platform NAME] [--reps N] [--save DIR]
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "codegen/c_printer.h"
#include "harness/inputs.h"
#include "ir/check.h"
#include "runtime/gpu/gpu_backend.h"
#include "runtime/kernel_args.h"
#include "lower/schedule_choice.h"
#include "suite/figures.h"
#include "util/npy.h"
#include "util/source.h"

using namespace ekb;

int main(int argc, char** argv) {
  std::string file, api = "cuda", platform, save, schedule;
  int reps = 50;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--api") api = next();
    else if (a == "--platform") platform = next();
    else if (a == "--reps") reps = std::max(3, std::atoi(next().c_str()));
    else if (a == "--save") save = next();
    else if (a == "--schedule") schedule = next();
    else file = a;
  }
  if (file.empty() || (api != "cuda" && api != "opencl")) {
    std::cerr << "usage: ekb-gpu-bench FILE.ekb --api cuda|opencl [--schedule own|default|none|FILE] [--platform NAME] [--reps N] "
                 "[--save DIR]\n";
    return 2;
  }
  try {
    auto src = read_source_file(file);
    auto p = load_program(src);
    Target target = default_target(parse_backend(api));
    ScheduleChoice sc = choose_schedule(*p, target, schedule);
    codegen::GpuProgram g = codegen::print_gpu(lower_with(*p, target, sc), codegen::dialect_for(target.backend));
    std::string why;
    auto gpu = api == "cuda" ? gpu::make_cuda_backend(0, &why) : gpu::make_opencl_backend(platform, &why);
    if (!gpu) throw std::runtime_error(why);
    gpu->compile(g.source, p->name + (api == "cuda" ? ".cu" : ".cl"), g.contract.kernel_names());
    std::vector<TensorData> inputs = generate_inputs(*p, 1);
    std::vector<size_t> args;
    for (const auto& t : inputs) {
      HostBuffer h = to_host(t);
      args.push_back(gpu->alloc(h.size_bytes()));
      gpu->upload(args.back(), h.data(), h.size_bytes());
    }
    std::vector<HostBuffer> outs;
    for (int o : p->outputs) {
      outs.emplace_back(p->tensors[o].dtype, p->tensors[o].shape);
      args.push_back(gpu->alloc(outs.back().size_bytes()));
    }
    for (const auto& s : g.contract.scratch) args.push_back(gpu->alloc(s.bytes));
    gpu->run(g.contract.launches, args);  // warm-up
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) {
      gpu->flush_cache();
      ms.push_back(gpu->run(g.contract.launches, args));
    }
    // The launch floor: an empty kernel, flushed and timed the same way.
    gpu->prepare_empty_kernel();
    std::vector<double> floor_ms;
    for (int r = 0; r < reps; ++r) {
      gpu->flush_cache();
      floor_ms.push_back(gpu->run_empty_kernel());
    }
    std::sort(floor_ms.begin(), floor_ms.end());
    std::sort(ms.begin(), ms.end());
    auto q = [&](double f) { return ms[static_cast<size_t>(f * static_cast<double>(ms.size() - 1))]; };
    Figures f = compute_figures(*p);
    double med = q(0.5);
    nlohmann::json out = {{"kernel", p->name},     {"api", api},
                          {"device", gpu->device().name}, {"schedule", sc.description},
                          {"median_ms", med},      {"q1_ms", q(0.25)},
                          {"q3_ms", q(0.75)},      {"reps", reps},
                          {"gbps", static_cast<double>(f.bytes) / (med * 1e6)}, {"gflops", f.flops / (med * 1e6)},
                          {"launches", g.contract.launches.size()}, {"floor_ms", floor_ms[floor_ms.size() / 2]}};
    if (!save.empty()) {
      std::filesystem::create_directories(save);
      for (const auto& t : inputs) write_npy(std::filesystem::path(save) / (t.name + ".npy"), t, false);
      size_t k = inputs.size();
      for (size_t i = 0; i < outs.size(); ++i) {
        gpu->download(args[k + i], outs[i].data(), outs[i].size_bytes());
        TensorData t = from_host(outs[i], p->tensors[p->outputs[i]].name);
        write_npy(std::filesystem::path(save) / (t.name + ".npy"), t, false);
      }
    }
    std::cout << out.dump() << std::endl;
  } catch (const gpu::GpuCompileError& e) {
    std::cerr << "ekb-gpu-bench: " << e.what() << "\n" << e.log << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "ekb-gpu-bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
