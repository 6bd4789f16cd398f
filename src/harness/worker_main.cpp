// ekb-worker: the process in which candidate code runs, never the harness. One worker serves one
// candidate. Before anything else it confines what its compile may read (compile_confinement.h);
// then it compiles the C it is sent (or loads a kernel built for it), maps the shared buffers,
// starts the OpenMP threads, locks itself in (sandbox.h) and then only runs the kernel, flushes
// caches and answers on its socket (kernel_worker.h). The harness times each request from outside,
// checks the buffers itself, and kills and replaces a worker that crashes, hangs, or does something
// the sandbox denies. For a board it also cross-compiles: the candidate's C built by the board's
// cross compiler inside this confinement, and handed back, never loaded here.
//
// Usage (by the harness only): ekb-worker --socket FD [--private-dir DIR] [--unsandboxed-emulation]
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>

#include "harness/kernel_worker.h"
#include "interp/reference.h"
#include "util/base64.h"

namespace {

using nlohmann::json;
using namespace ekb;
using namespace ekb::worker;

class CompilingWorker final : public KernelWorker {
 public:
  using KernelWorker::KernelWorker;

 private:
  std::unique_ptr<CCompiler> cc_;

  // Compiles the source, or loads the binary the harness kept for it (`fd`, `binary_bytes`; a binary
  // that does not load is compiled afresh); hands the binary back when asked (`want_binary`). With
  // `cross` ({cc, march, openmp}): compiles for a board with its cross compiler, and the kernel and
  // its warm-up kernel go back as `binary` and `warm_binary`, never loaded here.
  json compile(const json& m, int fd) override {
    if (kernel_.entry) {
      if (fd >= 0) close(fd);
      return fail("protocol", "a worker compiles one candidate");
    }
    if (std::string no = refusal(); !no.empty()) {
      if (fd >= 0) close(fd);
      return fail("unavailable", no);
    }
    CompileOptions o;
    o.cplusplus = m.value("cplusplus", false);
    auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); };
    std::string binary;
    bool cached = false;
    try {
      if (m.contains("cross")) {
        const json& x = m["cross"];
        auto cross = make_subprocess_c_compiler(x.at("cc").get<std::string>());
        o.cpu = x.value("march", "");
        o.openmp = x.value("openmp", true);
        o.extra_flags = {"-nostartfiles"};  // no start files: nothing of the kernel's runs when it is loaded (remote/elf_check.h)
        binary = cross->compile_binary(m.at("source").get<std::string>(), o);
        json reply = {{"ok", true}, {"compile_ms", elapsed()}, {"cached", false}, {"compiler", cross->name()},
                      {"binary", base64_encode(binary)}};
        if (x.value("warm", false)) {
          CompileOptions w = o;
          w.cplusplus = false;
          reply["warm_binary"] = base64_encode(cross->compile_binary(kWarmUpSource, w));
        }
        reply.update(confinement_fields());
        return reply;
      }
      if (!cc_) cc_ = make_default_c_compiler();
      if (fd >= 0) {
        binary.resize(m.value("binary_bytes", size_t(0)));
        bool read_all = pread(fd, binary.data(), binary.size(), 0) == static_cast<ssize_t>(binary.size());
        close(fd);
        if (read_all && !binary.empty()) try {
            kernel_ = kernel_from_module(cc_->load_binary(binary));
            cached = true;
          } catch (const CompileError&) {
          }
      }
      if (!cached) {
        binary = cc_->compile_binary(m.at("source").get<std::string>(), o);
        kernel_ = kernel_from_module(cc_->load_binary(binary));
      }
    } catch (const CompileError& e) {
      CompileFailure f = explain_compile_failure(e.what(), e.log, confinement_);
      return fail("compile", f.error, f.log);
    }
    json reply = {{"ok", true}, {"compile_ms", elapsed()}, {"cached", cached}, {"compiler", cc_->name()}};
    reply.update(confinement_fields());
    if (!cached && m.value("want_binary", false)) reply["binary"] = base64_encode(binary);
    return reply;
  }

  // The warm-up kernel compiled by the kernel's own compiler: it starts the same OpenMP runtime.
  std::string start_threads_without_warm_up(int threads) override {
    try {
      if (!cc_) cc_ = make_default_c_compiler();
      warm_ = kernel_from_module(cc_->compile(kWarmUpSource, CompileOptions{}));
    } catch (const CompileError& e) {
      return std::string(e.what()) + (e.log.empty() ? "" : ": " + e.log);
    }
    warm_.entry(nullptr, threads);
    return "";
  }
};

}  // namespace

int main(int argc, char** argv) {
  int sock = socket_argument(argc, argv, "ekb-worker");
  if (sock < 0) return 2;
  // Now, while the worker has one thread (Landlock restricts the calling thread and what it starts).
  Confinement c = confine_compile({WorkerKind::cpu, private_dir_argument(argc, argv), default_c_compiler_dirs(), {cache_root().string()}});
  CompilingWorker w(sock, std::move(c), unsandboxed_emulation_argument(argc, argv));
  return w.serve();
}
