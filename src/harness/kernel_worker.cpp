// The kernel worker's requests (kernel_worker.h), shared by the host's ekb-worker and a board's.
#include "harness/kernel_worker.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

#include "codegen/abi_names.h"
#include "harness/element_swaps.h"
#include "harness/sandbox.h"
#include "remote/elf_check.h"
#include "target/arch.h"

namespace ekb::worker {

using nlohmann::json;


LoadedKernel kernel_from_module(std::unique_ptr<CompiledModule> m) {
  LoadedKernel k;
  k.entry = reinterpret_cast<KernelEntry>(m->lookup(codegen::kEntryWrapper));
  if (!k.entry) throw CompileError(std::string("the compiled code has no `") + codegen::kEntryWrapper + "`", "");
  k.module = std::move(m);
  return k;
}

bool unsandboxed_emulation_argument(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--unsandboxed-emulation") == 0) return true;
  return false;
}

KernelWorker::KernelWorker(int sock, Confinement confinement, bool unsandboxed_emulation)
    : sock_(sock), confinement_(std::move(confinement)), unsandboxed_emulation_(unsandboxed_emulation) {
  keep_freed_memory();
}

void keep_freed_memory() {
  // A kernel's scratch memory stays in the process between calls, as a runtime's arena does between
  // layers: blocks up to 32 MiB come from the heap, and the heap is never given back. Otherwise
  // glibc maps large blocks afresh, or trims its heap, and the pages fault in again in every call —
  // in some workers and not others, by the order of earlier frees: the same adaptive threshold, its
  // 2.5 MB of scratch faulting in (585 page faults) or not, measured 0.67 and 0.18 ms.
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, -1);
#endif
}

int KernelWorker::serve() {
  return serve_requests(sock_, [&](const std::string& op, const Message& m) { return handle(op, m); });
}

std::string KernelWorker::refusal() const {
  if (confinement_.confined || unsandboxed_emulation_) return "";
  return compile_refusal(confinement_);
}

json KernelWorker::confinement_fields() const {
  std::string how = confinement_.describe();
  if (!confinement_.confined && unsandboxed_emulation_) how += " (--unsandboxed-emulation)";
  return json{{"confined", confinement_.confined}, {"confinement", how}};
}

json KernelWorker::compile(const json&, int fd) {
  if (fd >= 0) close(fd);
  return fail("protocol", "this worker does not compile: it loads kernels built for it (`load`)");
}

std::string KernelWorker::start_threads_without_warm_up(int) {
  return "no warm-up kernel came with the kernel (`load` with warm_bytes)";
}

json KernelWorker::load(const json& m, int fd) {
  struct Closer {
    int fd;
    ~Closer() {
      if (fd >= 0) close(fd);
    }
  } closer{fd};
  if (kernel_.entry) return fail("protocol", "a worker loads one candidate");
  if (sandboxed_) return fail("protocol", "load before sandbox");
  if (fd < 0) return fail("protocol", "load needs the kernel's bytes (a descriptor)");
  if (std::string no = refusal(); !no.empty()) return fail("unavailable", no);
  size_t kernel_bytes = m.value("kernel_bytes", size_t(0)), warm_bytes = m.value("warm_bytes", size_t(0));
  if (kernel_bytes == 0 || kernel_bytes > remote::kMaxKernelObjectBytes || warm_bytes > remote::kMaxKernelObjectBytes)
    return fail("protocol", "load: kernel_bytes must be between 1 and " + std::to_string(remote::kMaxKernelObjectBytes));
  std::string all(kernel_bytes + warm_bytes, '\0');
  if (pread(fd, all.data(), all.size(), 0) != static_cast<ssize_t>(all.size())) return fail("protocol", "load: the descriptor holds fewer bytes than announced");
  auto t0 = std::chrono::steady_clock::now();
  const int machine = arch_info(native_arch()).elf_machine;
  for (auto [at, n] : {std::pair{size_t(0), kernel_bytes}, std::pair{kernel_bytes, warm_bytes}}) {
    if (n == 0) continue;
    remote::ElfCheck c = remote::check_kernel_object(all.substr(at, n), machine);
    if (!c.ok()) return fail(c.problem == remote::ElfProblem::runs_at_load ? "denied" : "protocol", c.message);
  }
  try {
    kernel_ = kernel_from_module(load_shared_object(all.substr(0, kernel_bytes)));
    if (warm_bytes) warm_ = kernel_from_module(load_shared_object(all.substr(kernel_bytes)));
  } catch (const CompileError& e) {
    kernel_ = {};
    return fail("compile", e.what(), e.log);
  }
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  json reply = {{"ok", true}, {"load_ms", ms}, {"arch", arch_name(native_arch())}, {"pid", getpid()}};
  reply.update(confinement_fields());
  return reply;
}

json KernelWorker::buffers(const json& m, int fd) {
  if (fd < 0) return fail("protocol", "buffers need a shared-memory descriptor");
  if (sandboxed_ || shared_) {
    close(fd);
    return fail("protocol", "buffers come once, before sandbox");
  }
  shared_bytes_ = m.at("bytes").get<size_t>();
  void* p = mmap(nullptr, shared_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return fail("protocol", std::string("mmap of the shared buffers: ") + std::strerror(errno));
  shared_ = static_cast<unsigned char*>(p);
  for (const auto& set : m.at("sets")) {
    std::vector<void*> args;
    for (const auto& off : set) {
      size_t o = off.get<size_t>();
      if (o >= shared_bytes_) return fail("protocol", "a buffer offset is past the shared region");
      args.push_back(shared_ + o);
    }
    sets_.push_back(std::move(args));
  }
  auto inside = [&](size_t off, size_t n) { return off <= shared_bytes_ && n <= shared_bytes_ - off; };
  for (const auto& k : m.value("args", json::array())) {
    ArgKind a{k.at("bytes").get<size_t>(), k.at("element_bytes").get<size_t>(), k.at("output").get<bool>(), k.at("float").get<bool>()};
    kinds_.push_back(a);
  }
  if (m.contains("reserve") && m["reserve"].is_array()) {
    for (size_t i = 0; i < m["reserve"].size(); ++i) {
      size_t o = m["reserve"][i].get<size_t>();
      if (i >= kinds_.size() || kinds_[i].output || !inside(o, kinds_[i].bytes)) return fail("protocol", "a reserve buffer is past the shared region");
      reserve_.push_back(shared_ + o);
    }
  }
  for (const auto& set : sets_)
    for (size_t a = 0; a < set.size() && a < kinds_.size(); ++a)
      if (!inside(static_cast<size_t>(static_cast<unsigned char*>(set[a]) - shared_), kinds_[a].bytes))
        return fail("protocol", "a buffer is past the shared region");
  return json{{"ok", true}};
}

// Between two calls timed back to back: new inputs (elements exchanged with the reserve, drawn from
// `rng`: the harness replays the same draws) and every output poisoned.
void KernelWorker::renew(std::vector<void*>& args, std::mt19937_64& rng, unsigned char poison) {
  size_t inputs = 0;
  for (size_t a = 0; a < args.size() && a < kinds_.size(); ++a) {
    if (!kinds_[a].output) {
      if (inputs < reserve_.size()) exchange_some_elements(args[a], reserve_[inputs], kinds_[a].bytes, kinds_[a].element_bytes, rng);
      ++inputs;
    } else {
      std::memset(args[a], kinds_[a].is_float ? 0xFF : poison, kinds_[a].bytes);
    }
  }
}

json KernelWorker::sandbox(const json& m) {
  if (!kernel_.entry || sets_.empty()) return fail("protocol", "sandbox after compile (or load) and buffers");
  int threads = m.value("threads", 1);
  if (warm_.entry) {
    warm_.entry(nullptr, threads);
  } else if (std::string e = start_threads_without_warm_up(threads); !e.empty()) {
    return fail("internal", "warm-up kernel: " + e);
  }
  flush_.assign(m.value("flush_bytes", size_t(64) << 20), 1);
  // The harness measures the candidate's memory as the growth of this process's resident set from
  // here: the compiler's freed memory goes back to the system (or the kernel's allocations would
  // reuse it unseen) and every page of the arguments is mapped in now (they are not its own).
  malloc_trim(0);
  unsigned sum = 0;
  for (size_t i = 0; i < shared_bytes_; i += 4096) sum += shared_[i];
  flush_sink_ = sum;
  SandboxLimits l;
  uint64_t budget = m.value("memory_budget", uint64_t(0));
  if (budget) {
    // The measured resident growth is what counts against the budget; the address-space cap is a
    // backstop with room for reserved, untouched mappings (thread stacks, allocator arenas).
    l.address_space_bytes = current_address_space() + 2 * budget;
    l.max_mapping_bytes = budget;
  }
  l.cpu_seconds = m.value("cpu_seconds", 0.0);
  std::string err = enter_sandbox(l, sock_);
  json reply = {{"ok", true}, {"address_space_limit", l.address_space_bytes}, {"sandboxed", err.empty()}};
  if (err.empty()) {
    reply["sandbox"] = "seccomp filter and rlimits";
  } else if (unsandboxed_emulation_) {
    // An emulator that refuses its guests' filters (qemu-user): the limits that were set stay (CPU
    // time, no files written, no core dumps; qemu-user ignores the address-space limit), the filter
    // is not there, and the answer says so for every attempt made here.
    reply["sandbox"] = "none: " + err + " (started with --unsandboxed-emulation: emulation tests only)";
  } else {
    return fail("internal", "sandbox: " + err);
  }
  sandboxed_ = true;
  return reply;
}

json KernelWorker::run(const json& m) {
  if (!sandboxed_) return fail("protocol", "run after sandbox");
  size_t set = m.value("set", size_t(0));
  if (set >= sets_.size()) return fail("protocol", "no such buffer set");
  int threads = m.value("threads", 1), calls = m.value("calls", 1);
  KernelEntry entry = kernel_.entry;
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
    for (; warmups == 0 || since() < warmup_ms; ++warmups) entry(sets_[set].data(), threads);
    return json{{"ok", true}, {"kernel_ms", since()}, {"warmup_calls", warmups}};
  }
  // With `renew_seed`: `calls` calls back to back, each timed on its own, each on new inputs and
  // poisoned outputs (renew). `busy_ms` is the whole of it: what lies outside the calls is the
  // renewals' time, the same code over the same sizes in the baseline's worker (evaluate.cpp
  // compares the two, as it compares the time outside the request).
  if (m.contains("renew_seed")) {
    if (reserve_.empty() || kinds_.size() != sets_[set].size()) return fail("protocol", "renewed calls need the reserve and the argument kinds");
    auto begin = std::chrono::steady_clock::now();
    std::mt19937_64 rng(m["renew_seed"].get<uint64_t>());
    unsigned char poison = static_cast<unsigned char>(m.value("poison", 0xAB));
    json each = json::array();
    double total = 0;
    for (int i = 0; i < calls; ++i) {
      renew(sets_[set], rng, poison);
      auto t0 = std::chrono::steady_clock::now();
      entry(sets_[set].data(), threads);
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      each.push_back(ms);
      total += ms;
    }
    double busy = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
    return json{{"ok", true}, {"kernel_ms", total}, {"busy_ms", busy}, {"calls_ms", each}};
  }
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) entry(sets_[set].data(), threads);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return json{{"ok", true}, {"kernel_ms", ms}};
}

json KernelWorker::flush_caches() {
  // Read every line: the candidate's data leaves the caches. Reads only, so that no dirty lines
  // are still being written back while the next call is timed.
  unsigned sum = 0;
  for (size_t i = 0; i < flush_.size(); i += 64) sum += flush_[i];
  flush_sink_ = sum;
  return json{{"ok", true}};
}

void KernelWorker::flush_with_threads(int threads) {
  if (!warm_.entry) {  // (no warm-up kernel: the caller's thread alone)
    flush_caches();
    return;
  }
  unsigned long bytes = flush_.size();
  std::vector<unsigned> sinks(static_cast<size_t>(std::max(1, threads)));
  void* args[3] = {flush_.data(), &bytes, sinks.data()};
  warm_.entry(args, std::max(1, threads));
  flush_sink_ = sinks[0];
}

json KernelWorker::handle(const std::string& op, const Message& m) {
  if (op == "compile") return compile(m.body, m.fd);
  if (op == "load") return load(m.body, m.fd);
  if (op == "buffers") return buffers(m.body, m.fd);
  if (op == "sandbox") return sandbox(m.body);
  if (op == "run") return run(m.body);
  if (op == "flush") {
    // With `threads`: by the kernel's own threads, which stay awake for the next request (the cold
    // regime; timing_regime.h). Without: by this thread alone, the others left asleep.
    if (m.body.contains("threads")) {
      if (!sandboxed_) return fail("protocol", "flush with threads after sandbox");
      flush_with_threads(m.body.value("threads", 1));
      return json{{"ok", true}};
    }
    return flush_caches();
  }
  if (m.fd >= 0) close(m.fd);
  return fail("protocol", "unknown op `" + op + "`");
}

}  // namespace ekb::worker
