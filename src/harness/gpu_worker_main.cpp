// ekb-gpu-worker: the process in which a GPU candidate runs (CUDA or OpenCL), never the harness. It
// links neither ekb's LLVM nor the GPU stacks: the CUDA driver, NVRTC and the OpenCL ICD loader are
// opened at run time, so PoCL's own LLVM never shares a process with ekb's. One worker serves one
// candidate. Before anything else it confines what its compile may read (compile_confinement.h:
// NVRTC and PoCL compile in this process, PoCL's `ld` in a child); then it reads the program's
// launch contract, checks it against the device profile's limits,
// compiles, mirrors the harness's shared buffers in device buffers (each with the guard zone after
// it), runs the launches and times them on the device, and flushes the device's cache on request;
// it also times an empty kernel the same way on request (`floor`: the launch floor, what a call
// costs doing nothing).
// The harness checks the buffers itself and replaces a worker that hangs, crashes or faults.
//
// Usage (by the harness only): ekb-gpu-worker --socket FD [--private-dir DIR]
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "harness/compile_confinement.h"
#include "harness/sandbox.h"
#include "harness/worker_channel.h"
#include "interp/reference.h"
#include "runtime/gpu/gpu_backend.h"
#include "runtime/gpu/launch_contract.h"
#include "runtime/gpu/nvrtc.h"

namespace {

using nlohmann::json;
using namespace ekb;
using namespace ekb::gpu;
using namespace ekb::worker;

json fail(const std::string& kind, const std::string& error, const std::string& log = "") {
  return failure_reply(kind, error, log);
}

// The device guard zones around every argument: at least 1 MiB, or the argument's own size (a kernel
// indexing one buffer with another's extent overshoots by about that much), at most 64 MiB; the
// byte they hold; the alignment of the views (OpenCL sub-buffers need their device's base alignment).
constexpr size_t kGuardAlign = 4096;
constexpr unsigned char kDeviceGuardByte = 0xC3;
size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }
size_t device_guard_bytes(size_t n) { return round_up(std::clamp<size_t>(n, size_t(1) << 20, size_t(64) << 20), kGuardAlign); }

json device_json(const DeviceInfo& d) {
  return json{{"api", d.api},
              {"name", d.name},
              {"platform", d.platform},
              {"version", d.version},
              {"arch", d.arch},
              {"max_threads_per_block", d.max_threads_per_block},
              {"shared_memory_per_block", d.shared_memory_per_block},
              {"registers_per_block", d.registers_per_block},
              {"total_memory", d.total_memory},
              {"l2_bytes", d.l2_bytes},
              {"compute_units", d.compute_units}};
}

struct Worker {
  int sock = -1;
  std::unique_ptr<GpuBackend> gpu;
  LaunchContract contract;
  bool compiled = false, sandboxed = false;
  bool floor_ready = false;  // the empty kernel of the launch floor is built
  std::string floor_problem;
  unsigned char* shared = nullptr;
  size_t shared_bytes = 0;
  struct Arg {
    size_t offset, bytes, buffer;  // the region mirrored: the argument and the guard zone after it
    // Its allocation: a device guard zone of `guard` bytes, the argument (rounded up), another guard.
    // The guards are set and read through the allocation itself (an OpenCL sub-buffer need not
    // show what a kernel wrote through another one).
    size_t whole, whole_bytes, guard;
  };
  std::vector<std::vector<Arg>> sets;
  std::vector<size_t> scratch;  // device buffers, shared by the sets
  std::vector<unsigned char> guard_copy;  // a device guard zone read back
  unsigned char scratch_poison = 0xAB;
  Confinement confinement;  // what its compiles may read (set before the first request)

  std::unique_ptr<GpuBackend> open(const json& m, std::string* why) {
    std::string api = m.value("api", "");
    if (api == "cuda") return make_cuda_backend(m.value("ordinal", 0), why);
    if (api == "opencl") return make_opencl_backend(m.value("platform", ""), why);
    *why = "unknown GPU API `" + api + "` (cuda or opencl)";
    return nullptr;
  }

  // What the device is, or why there is none.
  json probe(const json& m) {
    std::string why;
    auto g = open(m, &why);
    if (!g) return fail("unavailable", why);
    return json{{"ok", true}, {"device", device_json(g->device())}, {"compiler", g->compiler()}};
  }

  // The profile's limits and the device's, the smaller of each (0: no limit from the profile).
  static uint64_t limit(uint64_t profile, uint64_t device) { return profile && (!device || profile < device) ? profile : device; }

  json compile(const json& m) {
    if (compiled) return fail("protocol", "a worker compiles one candidate");
    if (std::string no = compile_refusal(confinement); !no.empty()) return fail("unavailable", no);
    std::string source = m.at("source").get<std::string>(), profile = m.value("profile", std::string("the device"));
    try {
      contract = parse_launch_contract(source);
    } catch (const std::exception& e) {
      return fail("compile", std::string("launch contract: ") + e.what());
    }
    std::string why;
    gpu = open(m, &why);
    if (!gpu) return fail("unavailable", why);
    const DeviceInfo& d = gpu->device();
    uint64_t max_threads = limit(m.value("max_threads_per_block", uint64_t(0)), static_cast<uint64_t>(d.max_threads_per_block));
    uint64_t max_shared = limit(m.value("shared_memory_per_block", uint64_t(0)), d.shared_memory_per_block);
    uint64_t budget = m.value("memory_budget", uint64_t(0));
    for (const auto& l : contract.launches)
      if (l.threads_per_block() > max_threads)
        return fail("limits", fmt::format("{} is launched with {} threads per block ({}x{}x{}); {} allows {}: split the loop "
                                          "bound to threads so that its extent is at most {}",
                                          l.kernel, l.threads_per_block(), l.block[0], l.block[1], l.block[2], profile,
                                          max_threads, max_threads));
    if (budget && contract.scratch_bytes() > budget)
      return fail("over budget", fmt::format("the program's scratch buffers take {} bytes; {} allows {} bytes of the "
                                             "kernel's own device memory",
                                             contract.scratch_bytes(), profile, budget));
    auto t0 = std::chrono::steady_clock::now();
    std::vector<KernelInfo> kernels;
    try {
      kernels = gpu->compile(source, m.value("name", std::string("candidate")), contract.kernel_names());
    } catch (const GpuCompileError& e) {
      CompileFailure f = explain_compile_failure(e.what(), e.log, confinement);
      return fail("compile", f.error, f.log);
    } catch (const std::exception& e) {
      CompileFailure f = explain_compile_failure(e.what(), "", confinement);
      return fail("compile", f.error, f.log);
    }
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    json ks = json::array();
    for (const auto& k : kernels) {
      if (k.static_shared_bytes > max_shared)
        return fail("limits", fmt::format("{} uses {} bytes of shared memory per block; {} allows {}: use smaller tiles",
                                          k.name, k.static_shared_bytes, profile, max_shared));
      for (const auto& l : contract.launches) {
        if (l.kernel != k.name) continue;
        if (k.max_threads_per_block && l.threads_per_block() > static_cast<uint64_t>(k.max_threads_per_block))
          return fail("limits", fmt::format("{} needs {} registers per thread, so a block may have at most {} threads on "
                                            "{}, but it is launched with {}: use fewer threads per block",
                                            k.name, k.registers_per_thread, k.max_threads_per_block, d.name,
                                            l.threads_per_block()));
      }
      ks.push_back({{"name", k.name}, {"registers", k.registers_per_thread}, {"shared_bytes", k.static_shared_bytes}});
    }
    // The launch floor's empty kernel (run_floor), built now, before the sandbox; a driver that
    // cannot build it leaves the floor unmeasured, not the candidate failed.
    try {
      gpu->prepare_empty_kernel();
      floor_ready = true;
    } catch (const std::exception& e) {
      floor_problem = e.what();
    }
    compiled = true;
    return json{{"ok", true},
                {"compile_ms", ms},
                {"compiler", gpu->compiler()},
                {"confined", confinement.confined},
                {"confinement", confinement.describe()},
                {"device", device_json(d)},
                {"kernels", ks},
                {"scratch_bytes", contract.scratch_bytes()}};
  }

  json buffers(const json& m, int fd) {
    if (fd < 0) return fail("protocol", "buffers need a shared-memory descriptor");
    if (!compiled || shared) return fail("protocol", "buffers come once, after compile");
    shared_bytes = m.at("bytes").get<size_t>();
    void* p = mmap(nullptr, shared_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return fail("protocol", std::string("mmap of the shared buffers: ") + std::strerror(errno));
    shared = static_cast<unsigned char*>(p);
    std::vector<size_t> sizes = m.at("sizes").get<std::vector<size_t>>();
    size_t guard = m.value("guard", size_t(0));
    try {
      for (const auto& set : m.at("sets")) {
        std::vector<Arg> args;
        size_t i = 0;
        for (const auto& off : set) {
          size_t o = off.get<size_t>(), n = i < sizes.size() ? sizes[i] + guard : 0;
          if (i >= sizes.size() || o + n > shared_bytes) return fail("protocol", "a buffer is past the shared region");
          // One allocation per argument: a device guard zone, the argument (and the mirrored host
          // guard), another guard zone. A write far past the buffer lands in a guard (checked after
          // every call) rather than in another allocation.
          size_t g = device_guard_bytes(n), body = round_up(n, kGuardAlign);
          size_t whole = gpu->alloc(g + body + g);
          args.push_back({o, n, gpu->view(whole, g, n), whole, g + body + g, g});
          ++i;
        }
        sets.push_back(std::move(args));
      }
      for (const auto& s : contract.scratch) scratch.push_back(gpu->alloc(s.bytes));
    } catch (const GpuError& e) {
      return fail("over budget", std::string("device memory: ") + e.what());
    }
    return json{{"ok", true}};
  }

  json sandbox(const json& m) {
    if (!compiled || sets.empty()) return fail("protocol", "sandbox after compile and buffers");
    SandboxLimits l;
    l.cpu_seconds = m.value("cpu_seconds", 0.0);
    std::string err = enter_gpu_sandbox(l);
    if (!err.empty()) return fail("internal", "sandbox: " + err);
    sandboxed = true;
    return json{{"ok", true}};
  }

  // One call: the arguments (and their guard zones) copied in, the scratch buffers filled with junk
  // (a kernel must not rely on what it left there), the launches run and timed, everything copied
  // back for the harness to check (inputs too: a kernel that changed them is caught).
  json run(const json& m) {
    if (!sandboxed) return fail("protocol", "run after sandbox");
    size_t set = m.value("set", size_t(0));
    if (set >= sets.size()) return fail("protocol", "no such buffer set");
    std::vector<size_t> args;
    double total = 0;
    try {
      for (const auto& a : sets[set]) {
        gpu->upload(a.buffer, shared + a.offset, a.bytes);
        gpu->fill(a.whole, kDeviceGuardByte, a.guard, 0);
        gpu->fill(a.whole, kDeviceGuardByte, a.guard, a.whole_bytes - a.guard);
        args.push_back(a.buffer);
      }
      scratch_poison ^= 0xF7;
      for (size_t i = 0; i < scratch.size(); ++i) {
        gpu->fill(scratch[i], scratch_poison, contract.scratch[i].bytes);
        args.push_back(scratch[i]);
      }
      int calls = m.value("calls", 1);
      // A checking call waits for each launch and names the one that failed; its progress goes to
      // stderr, which the harness shows when the worker had to be killed (a launch that never ends).
      bool locate = m.value("locate", false);
      auto progress = [&](size_t i) {
        const Launch& l = contract.launches[i];
        std::fprintf(stderr, "ekb-gpu-worker: launch %zu of %zu (%s, grid %ux%ux%u, block %ux%ux%u)\n", i + 1,
                     contract.launches.size(), l.kernel.c_str(), l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
                     l.block[2]);
      };
      for (int c = 0; c < calls; ++c) total += gpu->run(contract.launches, args, locate, locate ? progress : std::function<void(size_t)>{});
      for (const auto& a : sets[set]) gpu->download(a.buffer, shared + a.offset, a.bytes);
      for (size_t i = 0; i < sets[set].size(); ++i) {
        const Arg& a = sets[set][i];
        for (bool before : {true, false}) {
          guard_copy.resize(a.guard);
          gpu->download(a.whole, guard_copy.data(), a.guard, before ? 0 : a.whole_bytes - a.guard);
          auto bad = std::find_if(guard_copy.begin(), guard_copy.end(), [](unsigned char b) { return b != kDeviceGuardByte; });
          if (bad != guard_copy.end()) {
            size_t at = static_cast<size_t>(bad - guard_copy.begin());
            return fail("out of bounds", before
                                             ? fmt::format("the kernel wrote {} bytes before argument {}'s buffer (its device guard zone of {} bytes changed)",
                                                           a.guard - at, i, a.guard)
                                             : fmt::format("the kernel wrote {} bytes past argument {}'s buffer (its device guard zone of {} bytes changed)",
                                                           at + (round_up(a.bytes, kGuardAlign) - a.bytes) + 1, i, a.guard));
          }
        }
      }
    } catch (const std::exception& e) {
      return fail("device fault", e.what());
    }
    return json{{"ok", true}, {"kernel_ms", total}};
  }

  // The launch floor: an empty kernel launched and timed as a call's launches are (gpu_backend.h).
  json run_floor() {
    if (!sandboxed) return fail("protocol", "floor after sandbox");
    if (!floor_ready) return fail("unavailable", "the empty kernel could not be built: " + floor_problem);
    try {
      return json{{"ok", true}, {"floor_ms", gpu->run_empty_kernel()}};
    } catch (const std::exception& e) {
      return fail("device fault", e.what());
    }
  }

  json flush_caches() {
    try {
      gpu->flush_cache();
    } catch (const std::exception& e) {
      return fail("device fault", e.what());
    }
    return json{{"ok", true}};
  }

  json handle(const std::string& op, const Message& m) {
    if (op == "probe") return probe(m.body);
    if (op == "compile") return compile(m.body);
    if (op == "buffers") return buffers(m.body, m.fd);
    if (op == "sandbox") return sandbox(m.body);
    if (op == "run") return run(m.body);
    if (op == "flush") return flush_caches();
    if (op == "floor") return run_floor();
    return fail("protocol", "unknown op `" + op + "`");
  }
};

}  // namespace

int main(int argc, char** argv) {
  int sock = socket_argument(argc, argv, "ekb-gpu-worker");
  if (sock < 0) return 2;
  // PoCL (OpenCL on the CPU) compiles a kernel for each work-group size at its first launch and links
  // it with `ld`, a new process: inside the sandbox that is denied. With specialization off it
  // builds one generic work-group function per kernel, which the OpenCL backend has it compile
  // before the sandbox (by asking for the program's binaries). Other OpenCL drivers ignore this.
  setenv("POCL_WORK_GROUP_SPECIALIZATION", "0", 1);
  Worker w;
  w.sock = sock;
  // Now, while the worker has one thread (Landlock restricts the calling thread and what it starts):
  // before the GPU stacks start theirs.
  w.confinement = confine_compile(
      {WorkerKind::gpu, private_dir_argument(argc, argv), {cuda_home_dir()}, {cache_root().string()}});
  // After a fault the device context is unusable: the worker ends once it has said so.
  return serve_requests(
      sock, [&](const std::string& op, const Message& m) { return w.handle(op, m); },
      [](const json& reply) { return reply.value("kind", "") == "device fault"; });
}
