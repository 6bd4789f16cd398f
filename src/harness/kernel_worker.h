// What every CPU worker does with a candidate's kernel: load it (a shared object built beforehand,
// by the host for a board, checked first: elf_check.h) or have it compiled (the host's ekb-worker,
// worker_main.cpp), map the shared buffers, start the OpenMP threads, lock itself in (sandbox.h)
// and then only run the kernel, flush caches and answer on its socket. The host's ekb-worker and a
// board's (board_worker_main.cpp) are this same class; the host's adds compiling.
//
// Requests (one JSON message each, worker_channel.h): compile (host only), load, buffers,
// sandbox, run, flush. Every answer is {"ok": true, ...} or a refusal with its kind.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "harness/compile_confinement.h"
#include "harness/worker_channel.h"
#include "runtime/cpu/c_compiler.h"

namespace ekb::worker {

using KernelEntry = void (*)(void* const*, int32_t);

struct LoadedKernel {
  std::unique_ptr<CompiledModule> module;
  KernelEntry entry = nullptr;
};
// The module's entry wrapper (codegen/abi_names.h); throws CompileError when it has none.
LoadedKernel kernel_from_module(std::unique_ptr<CompiledModule> m);

// The source of the warm-up kernel: it starts the OpenMP runtime's threads before the sandbox
// (the runtime reads /proc and /sys the first time); the kernel's parallel loops then reuse them.
// Built by the same compiler as the kernel, so that it starts the same runtime's threads. Called
// with arguments (the flush buffer, its size, a sink), it flushes the caches with those threads:
// each reads its share of the buffer (every core's private caches are flushed, not only the
// caller's), and the team is awake when it returns (the cold regime, timing_regime.h). (No
// reduction clause: GCC's atomics for it would bring libgcc's initializer into a board's object,
// which elf_check refuses.)
inline constexpr const char* kWarmUpSource = R"(
void ekb_warm_threads(int n) {
  volatile int sink = 0;
  #pragma omp parallel num_threads(n)
  { sink = 1; }
}
static void ekb_flush(const volatile unsigned char* p, unsigned long bytes, unsigned* sinks, int n) {
  unsigned long per = bytes / 64 / (unsigned long)n;
  #pragma omp parallel for num_threads(n) schedule(static)
  for (int t = 0; t < n; ++t) {
    unsigned sum = 0;
    for (unsigned long i = (unsigned long)t * per; i < (unsigned long)(t + 1) * per; ++i) sum += p[i * 64];
    sinks[t] = sum;
  }
}
void ekb_entry(void* const* args, int n) {
  if (!args) ekb_warm_threads(n);
  else ekb_flush((const volatile unsigned char*)args[0], *(const unsigned long*)args[1], (unsigned*)args[2], n);
}
)";

class KernelWorker {
 public:
  // `sock`: the harness's socket (the only one the sandbox lets it use). `unsandboxed_emulation`:
  // where the system refuses the seccomp filter and Landlock (an emulator: qemu-user refuses both
  // to its guests), go on without them and say so in every answer that concerns them, instead of
  // refusing (`ekb worker --unsandboxed-emulation`, for emulated boards in tests only).
  KernelWorker(int sock, Confinement confinement, bool unsandboxed_emulation);
  virtual ~KernelWorker() = default;
  KernelWorker(const KernelWorker&) = delete;
  KernelWorker& operator=(const KernelWorker&) = delete;

  nlohmann::json handle(const std::string& op, const Message& m);
  // Serves requests until the harness closes the socket; the process's exit status.
  int serve();

 protected:
  // The host's compile request (worker_main.cpp); a board's worker refuses it.
  virtual nlohmann::json compile(const nlohmann::json& m, int fd);
  // Starts OpenMP's threads when the kernel came without a warm-up kernel (empty, or what failed).
  virtual std::string start_threads_without_warm_up(int threads);

  static nlohmann::json fail(const std::string& kind, const std::string& error, const std::string& log = "") {
    return failure_reply(kind, error, log);
  }
  // Refuses when the compile or load may not go ahead: confined, or unconfined where allowed.
  std::string refusal() const;
  nlohmann::json confinement_fields() const;

  int sock_;
  Confinement confinement_;
  bool unsandboxed_emulation_;
  LoadedKernel kernel_, warm_;

 private:
  nlohmann::json load(const nlohmann::json& m, int fd);
  nlohmann::json buffers(const nlohmann::json& m, int fd);
  nlohmann::json sandbox(const nlohmann::json& m);
  nlohmann::json run(const nlohmann::json& m);
  nlohmann::json flush_caches();
  // The flush done by the kernel's threads (the warm-up kernel's), which it leaves awake.
  void flush_with_threads(int threads);
  void renew(std::vector<void*>& args, std::mt19937_64& rng, unsigned char poison);

  unsigned char* shared_ = nullptr;
  size_t shared_bytes_ = 0;
  std::vector<std::vector<void*>> sets_;
  // For calls timed back to back (the warm regime): a reserve copy of the inputs, and what each
  // argument is (SharedBuffers::argument_kinds), so that this process can make new inputs and poison
  // the outputs between calls itself.
  std::vector<unsigned char*> reserve_;
  struct ArgKind {
    size_t bytes = 0, element_bytes = 0;
    bool output = false, is_float = false;
  };
  std::vector<ArgKind> kinds_;
  std::vector<unsigned char> flush_;  // bigger than the last-level cache
  bool sandboxed_ = false;
  volatile unsigned flush_sink_ = 0;
};

// `--unsandboxed-emulation` among a worker's arguments.
bool unsandboxed_emulation_argument(int argc, char** argv);

// Keeps the memory a kernel frees in its process (no fresh mappings or heap trimming between
// calls), so that scratch memory does not page-fault anew in every call; every worker does this.
void keep_freed_memory();

}  // namespace ekb::worker
