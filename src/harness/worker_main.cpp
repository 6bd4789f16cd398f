// ekb-worker: the process in which candidate code runs, never the harness. One worker serves one
// candidate. Before anything else it confines what its compile may read (compile_confinement.h);
// then it compiles the C it is sent, maps the shared buffers, starts the OpenMP threads, locks
// itself in (sandbox.h) and then only runs the kernel, flushes caches and answers on its socket. The
// harness times each request from outside, checks the buffers itself, and kills and replaces a worker
// that crashes, hangs, or does something the sandbox denies.
//
// Usage (by the harness only): ekb-worker --socket FD [--private-dir DIR]
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "harness/compile_confinement.h"
#include "harness/element_swaps.h"
#include "harness/sandbox.h"
#include "harness/worker_channel.h"
#include "interp/reference.h"
#include "runtime/cpu_runner.h"
#include "util/base64.h"

namespace {

using nlohmann::json;
using namespace ekb;
using namespace ekb::worker;

// Starts the OpenMP runtime's threads before the sandbox (the runtime reads /proc and /sys the first
// time); the kernel's parallel loops then reuse them.
const char* kWarmSource = R"(
void ekb_warm_threads(int n) {
  volatile int sink = 0;
  #pragma omp parallel num_threads(n)
  { sink = 1; }
}
void ekb_entry(void* const* args, int n) { (void)args; ekb_warm_threads(n); }
)";

struct Worker {
  int sock = -1;
  std::unique_ptr<CCompiler> cc;
  CpuKernel kernel;
  CpuKernel warm;
  unsigned char* shared = nullptr;
  size_t shared_bytes = 0;
  std::vector<std::vector<void*>> sets;
  // For calls timed back to back (the warm regime): a reserve copy of the inputs, and what each
  // argument is (SharedBuffers::argument_kinds), so that this process can make new inputs and poison
  // the outputs between calls itself.
  std::vector<unsigned char*> reserve;
  struct ArgKind {
    size_t bytes = 0, element_bytes = 0;
    bool output = false, is_float = false;
  };
  std::vector<ArgKind> kinds;
  std::vector<unsigned char> flush;  // bigger than the last-level cache
  bool sandboxed = false;
  Confinement confinement;  // what its compiles may read (set before the first request)

  json fail(const std::string& kind, const std::string& error, const std::string& log = "") {
    return failure_reply(kind, error, log);
  }

  // Compiles the source, or loads the binary the harness kept for it (`fd`, `binary_bytes`; a binary
  // that does not load is compiled afresh); hands the binary back when asked (`want_binary`).
  json compile(const json& m, int fd) {
    if (kernel.entry) return fail("protocol", "a worker compiles one candidate");
    if (sandboxed) return fail("protocol", "compile before sandbox");
    if (std::string no = compile_refusal(confinement); !no.empty()) return fail("unavailable", no);
    CompileOptions o;
    o.cplusplus = m.value("cplusplus", false);
    auto t0 = std::chrono::steady_clock::now();
    std::string binary;
    bool cached = false;
    try {
      if (!cc) cc = make_default_c_compiler();
      if (fd >= 0) {
        binary.resize(m.value("binary_bytes", size_t(0)));
        bool read_all = pread(fd, binary.data(), binary.size(), 0) == static_cast<ssize_t>(binary.size());
        close(fd);
        if (read_all && !binary.empty()) try {
            kernel = load_cpu_kernel(*cc, binary);
            cached = true;
          } catch (const CompileError&) {
          }
      }
      if (!cached) {
        binary = cc->compile_binary(m.at("source").get<std::string>(), o);
        kernel = load_cpu_kernel(*cc, binary);
      }
    } catch (const CompileError& e) {
      CompileFailure f = explain_compile_failure(e.what(), e.log, confinement);
      return fail("compile", f.error, f.log);
    }
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    json reply = {{"ok", true},
                  {"compile_ms", ms},
                  {"cached", cached},
                  {"compiler", cc->name()},
                  {"confined", confinement.confined},
                  {"confinement", confinement.describe()}};
    if (!cached && m.value("want_binary", false)) reply["binary"] = base64_encode(binary);
    return reply;
  }

  json buffers(const json& m, int fd) {
    if (fd < 0) return fail("protocol", "buffers need a shared-memory descriptor");
    if (sandboxed || shared) return fail("protocol", "buffers come once, before sandbox");
    shared_bytes = m.at("bytes").get<size_t>();
    void* p = mmap(nullptr, shared_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return fail("protocol", std::string("mmap of the shared buffers: ") + std::strerror(errno));
    shared = static_cast<unsigned char*>(p);
    for (const auto& set : m.at("sets")) {
      std::vector<void*> args;
      for (const auto& off : set) {
        size_t o = off.get<size_t>();
        if (o >= shared_bytes) return fail("protocol", "a buffer offset is past the shared region");
        args.push_back(shared + o);
      }
      sets.push_back(std::move(args));
    }
    auto inside = [&](size_t off, size_t n) { return off <= shared_bytes && n <= shared_bytes - off; };
    for (const auto& k : m.value("args", json::array())) {
      ArgKind a{k.at("bytes").get<size_t>(), k.at("element_bytes").get<size_t>(), k.at("output").get<bool>(), k.at("float").get<bool>()};
      kinds.push_back(a);
    }
    if (m.contains("reserve") && m["reserve"].is_array()) {
      for (size_t i = 0; i < m["reserve"].size(); ++i) {
        size_t o = m["reserve"][i].get<size_t>();
        if (i >= kinds.size() || kinds[i].output || !inside(o, kinds[i].bytes)) return fail("protocol", "a reserve buffer is past the shared region");
        reserve.push_back(shared + o);
      }
    }
    for (const auto& set : sets)
      for (size_t a = 0; a < set.size() && a < kinds.size(); ++a)
        if (!inside(static_cast<size_t>(static_cast<unsigned char*>(set[a]) - shared), kinds[a].bytes))
          return fail("protocol", "a buffer is past the shared region");
    return json{{"ok", true}};
  }

  // Between two calls timed back to back: new inputs (elements exchanged with the reserve, drawn from
  // `rng`: the harness replays the same draws) and every output poisoned.
  void renew(std::vector<void*>& args, std::mt19937_64& rng, unsigned char poison) {
    size_t inputs = 0;
    for (size_t a = 0; a < args.size() && a < kinds.size(); ++a) {
      if (!kinds[a].output) {
        if (inputs < reserve.size()) exchange_some_elements(args[a], reserve[inputs], kinds[a].bytes, kinds[a].element_bytes, rng);
        ++inputs;
      } else {
        std::memset(args[a], kinds[a].is_float ? 0xFF : poison, kinds[a].bytes);
      }
    }
  }

  json sandbox(const json& m) {
    if (!kernel.entry || sets.empty()) return fail("protocol", "sandbox after compile and buffers");
    int threads = m.value("threads", 1);
    try {
      warm = compile_cpu_kernel(*cc, kWarmSource);
    } catch (const CompileError& e) {
      return fail("internal", std::string("warm-up kernel: ") + e.what(), e.log);
    }
    warm.entry(nullptr, threads);
    flush.assign(m.value("flush_bytes", size_t(64) << 20), 1);
    // The harness measures the candidate's memory as the growth of this process's resident set from
    // here: the compiler's freed memory goes back to the system (or the kernel's allocations would
    // reuse it unseen) and every page of the arguments is mapped in now (they are not its own).
    malloc_trim(0);
    unsigned sum = 0;
    for (size_t i = 0; i < shared_bytes; i += 4096) sum += shared[i];
    flush_sink = sum;
    SandboxLimits l;
    uint64_t budget = m.value("memory_budget", uint64_t(0));
    if (budget) {
      // The measured resident growth is what counts against the budget; the address-space cap is a
      // backstop with room for reserved, untouched mappings (thread stacks, allocator arenas).
      l.address_space_bytes = current_address_space() + 2 * budget;
      l.max_mapping_bytes = budget;
    }
    l.cpu_seconds = m.value("cpu_seconds", 0.0);
    std::string err = enter_sandbox(l, sock);
    if (!err.empty()) return fail("internal", "sandbox: " + err);
    sandboxed = true;
    return json{{"ok", true}, {"address_space_limit", l.address_space_bytes}};
  }

  json run(const json& m) {
    if (!sandboxed) return fail("protocol", "run after sandbox");
    size_t set = m.value("set", size_t(0));
    if (set >= sets.size()) return fail("protocol", "no such buffer set");
    int threads = m.value("threads", 1), calls = m.value("calls", 1);
    // The kernel's own time, by this process's clock: the harness's clock around the request also
    // counts the message's way there and back (tens of microseconds), which would make every small
    // kernel look alike. The harness bounds this figure by its own (evaluate.cpp, clock_disagrees).
    // With `warmup_ms`: untimed calls back to back on the inputs as they are, for that long (at least
    // one); the caller's next request then finds the data in the caches and the threads awake.
    if (m.contains("warmup_ms")) {
      double warmup_ms = m.value("warmup_ms", 0.0);
      int warmups = 0;
      auto w0 = std::chrono::steady_clock::now();
      auto since = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count(); };
      for (; warmups == 0 || since() < warmup_ms; ++warmups) kernel.entry(sets[set].data(), threads);
      return json{{"ok", true}, {"kernel_ms", since()}, {"warmup_calls", warmups}};
    }
    // With `renew_seed`: `calls` calls back to back, each timed on its own, each on new inputs and
    // poisoned outputs (renew). `busy_ms` is the whole of it: what lies outside the calls is the
    // renewals' time, the same code over the same sizes in the baseline's worker (evaluate.cpp
    // compares the two, as it compares the time outside the request).
    if (m.contains("renew_seed")) {
      if (reserve.empty() || kinds.size() != sets[set].size()) return fail("protocol", "renewed calls need the reserve and the argument kinds");
      auto begin = std::chrono::steady_clock::now();
      std::mt19937_64 rng(m["renew_seed"].get<uint64_t>());
      unsigned char poison = static_cast<unsigned char>(m.value("poison", 0xAB));
      json each = json::array();
      double total = 0;
      for (int i = 0; i < calls; ++i) {
        renew(sets[set], rng, poison);
        auto t0 = std::chrono::steady_clock::now();
        kernel.entry(sets[set].data(), threads);
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        each.push_back(ms);
        total += ms;
      }
      double busy = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
      return json{{"ok", true}, {"kernel_ms", total}, {"busy_ms", busy}, {"calls_ms", each}};
    }
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) kernel.entry(sets[set].data(), threads);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return json{{"ok", true}, {"kernel_ms", ms}};
  }

  json flush_caches() {
    // Read every line: the candidate's data leaves the caches. Reads only, so that no dirty lines
    // are still being written back while the next call is timed.
    unsigned sum = 0;
    for (size_t i = 0; i < flush.size(); i += 64) sum += flush[i];
    flush_sink = sum;
    return json{{"ok", true}};
  }
  volatile unsigned flush_sink = 0;

  nlohmann::json handle(const std::string& op, const Message& m) {
    if (op == "compile") return compile(m.body, m.fd);
    if (op == "buffers") return buffers(m.body, m.fd);
    if (op == "sandbox") return sandbox(m.body);
    if (op == "run") return run(m.body);
    if (op == "flush") return flush_caches();
    return fail("protocol", "unknown op `" + op + "`");
  }
};

}  // namespace

int main(int argc, char** argv) {
  int sock = socket_argument(argc, argv, "ekb-worker");
  if (sock < 0) return 2;
  Worker w;
  w.sock = sock;
  // Now, while the worker has one thread (Landlock restricts the calling thread and what it starts).
  w.confinement = confine_compile(
      {WorkerKind::cpu, private_dir_argument(argc, argv), default_c_compiler_dirs(), {cache_root().string()}});
  return serve_requests(sock, [&](const std::string& op, const Message& m) { return w.handle(op, m); });
}
