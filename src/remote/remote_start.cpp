// A candidate's worker on a board (remote_start.h).
#include "remote/remote_start.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

#include "harness/compile_cache.h"
#include "harness/kernel_worker.h"
#include "remote/elf_check.h"
#include "remote/remote_worker.h"
#include "runtime/cpu/c_compiler.h"
#include "runtime/cpu/run_process.h"
#include "util/base64.h"

namespace ekb {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

int memory_file(const std::string& bytes) {
  int fd = memfd_create("ekb-kernel", MFD_CLOEXEC);
  if (fd < 0) return -1;
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) {
      close(fd);
      return -1;
    }
    done += static_cast<size_t>(n);
  }
  return fd;
}

worker::Reply failure(Outcome o, std::string message) { return worker::Reply{o, std::move(message), {}, 0}; }

// The kernel and the warm-up kernel for the board: from the compile cache, or compiled by a local
// worker with the board's cross compiler. `compiled` receives the compile's answer.
worker::Reply build_for_board(const Board& b, const WorkerStart& how, std::string& kernel, std::string& warm, json& compiled) {
  if (std::string why = cross_compiler_missing(b); !why.empty()) return failure(Outcome::internal, why);
  CompileCache cache;
  const std::string identity = cross_compiler_identity(b);
  const std::string kernel_key = CompileCache::key(identity, how.source, how.cplusplus);
  const std::string warm_key = CompileCache::key(identity, worker::kWarmUpSource, false);
  std::optional<std::string> k = cache.enabled() ? cache.get(kernel_key) : std::nullopt;
  std::optional<std::string> w = cache.enabled() ? cache.get(warm_key) : std::nullopt;
  compiled = {{"compile_ms", 0.0}, {"cached", k.has_value()}, {"compiler", b.cc + " (cross, subprocess)"},
              {"confinement", "none needed: not compiled (the compile cache)"}};
  auto compile = [&](const std::string& source, bool cplusplus, bool with_warm, std::string& out, std::string* warm_out) -> worker::Reply {
    // A worker of this machine's, confined as for a local compile, with the cross toolchain's tree readable.
    std::string dirs;
    if (const char* e = std::getenv("EKB_COMPILE_READ_DIRS"); e && *e) dirs = e;
    for (const std::string& d : cross_compiler_dirs(b.cc)) dirs += (dirs.empty() ? "" : ":") + d;
    worker::WorkerProcess cw("", {}, 0, {}, {}, {"EKB_COMPILE_READ_DIRS=" + dirs});
    json req = {{"op", "compile"},
                {"source", source},
                {"cplusplus", cplusplus},
                {"cross", {{"cc", b.cc}, {"march", b.march}, {"openmp", b.openmp}, {"warm", with_warm}}}};
    worker::Reply r = cw.request(req, 180000);
    if (!r.ok()) return r;
    auto bytes = base64_decode(r.body.value("binary", ""));
    if (!bytes) return failure(Outcome::internal, "the cross compile's answer held no kernel");
    out = *bytes;
    if (with_warm && warm_out) {
      auto wb = base64_decode(r.body.value("warm_binary", ""));
      if (!wb) return failure(Outcome::internal, "the cross compile's answer held no warm-up kernel");
      *warm_out = *wb;
    }
    r.body.erase("binary");
    r.body.erase("warm_binary");
    return r;
  };
  if (!k) {
    std::string out, wout;
    worker::Reply r = compile(how.source, how.cplusplus, !w, out, &wout);
    if (!r.ok()) return r;
    compiled = r.body;
    if (cache.enabled()) cache.put(kernel_key, out);
    k = out;
    if (!w) {
      w = wout;
      if (cache.enabled()) cache.put(warm_key, wout);
    }
  }
  if (!w) {
    std::string out;
    worker::Reply r = compile(worker::kWarmUpSource, false, false, out, nullptr);
    if (!r.ok()) return failure(Outcome::internal, "the warm-up kernel for the board: " + r.message);
    if (cache.enabled()) cache.put(warm_key, out);
    w = out;
  }
  kernel = *k;
  warm = *w;
  return worker::Reply{};
}

}  // namespace

std::string cross_compiler_missing(const Board& b) {
  std::string path = resolve_in_path(b.cc);
  if (path.find('/') != std::string::npos && access(path.c_str(), X_OK) == 0) return "";
  std::string package = b.arch == native_arch() ? "gcc" : std::string("g++-") + arch_info(b.arch).triple;
  return fmt::format("board `{}`: its compiler `{}` is not installed here (Debian: {}; scripts/setup.sh installs it), or name "
                     "another in its profile's `cc` ({})",
                     b.name, b.cc, package, b.profile_path);
}

std::vector<std::string> cross_compiler_dirs(const std::string& cc) {
  static std::mutex m;
  static std::map<std::string, std::vector<std::string>> known;
  std::lock_guard<std::mutex> lock(m);
  if (auto it = known.find(cc); it != known.end()) return it->second;
  std::vector<std::string> dirs = subprocess_c_compiler_dirs(cc);
  try {
    // Debian's cross toolchains keep their C library, headers and binutils in /usr/TRIPLE.
    std::string libc = run_process({cc, "-print-file-name=libc.so"}).output;
    while (!libc.empty() && (libc.back() == '\n' || libc.back() == '\r')) libc.pop_back();
    std::error_code ec;
    fs::path real = fs::canonical(libc, ec);
    if (!ec && real.is_absolute()) {
      fs::path tree = real.parent_path().parent_path();  // /usr/aarch64-linux-gnu/lib/libc.so -> /usr/aarch64-linux-gnu
      if (tree != "/" && tree != "/usr") dirs.push_back(tree.string());
    }
  } catch (const std::exception&) {
    // (No such compiler: the compile itself says so.)
  }
  known[cc] = dirs;
  return dirs;
}

std::string cross_compiler_identity(const Board& b) {
  std::string path = resolve_in_path(b.cc);
  std::error_code ec;
  auto stamp = fs::last_write_time(fs::path(path), ec);
  return fmt::format("cross {} {} -march={} openmp={} -nostartfiles", path, ec ? 0 : stamp.time_since_epoch().count(), b.march, b.openmp);
}

StartedWorker prepare_remote_worker(const Program& p, const SharedBuffers& buf, const WorkerStart& how) {
  (void)p;
  const Board& b = *how.board;
  StartedWorker s;
  std::string kernel, warm;
  json compiled;
  worker::Reply r = build_for_board(b, how, kernel, warm, compiled);
  if (!r.ok()) {
    s.failure = r;
    return s;
  }
  // Checked here before it goes: code that would run when the board loads it is the candidate's.
  for (const std::string* o : {&kernel, &warm}) {
    remote::ElfCheck c = remote::check_kernel_object(*o, arch_info(b.arch).elf_machine);
    if (!c.ok()) {
      s.failure = failure(c.problem == remote::ElfProblem::runs_at_load ? Outcome::denied : Outcome::internal, c.message);
      return s;
    }
  }
  try {
    auto w = std::make_unique<remote::RemoteWorker>(b, how.threads, how.idle_spin_us, how.cold);
    compiled["board"] = w->facts();
    compiled["board"]["worker_pid"] = w->worker_pid();
    s.worker = std::move(w);
  } catch (const remote::BoardUnavailable& e) {
    s.failure = failure(Outcome::unavailable, e.what());
    return s;
  }
  int fd = memory_file(kernel + warm);
  if (fd < 0) {
    s.failure = failure(Outcome::internal, "cannot make a memory file for the kernel");
    return s;
  }
  r = s.worker->request({{"op", "load"}, {"kernel_bytes", kernel.size()}, {"warm_bytes", warm.size()}}, 60000, fd);
  close(fd);
  if (r.ok()) {
    compiled["load_ms"] = r.body.value("load_ms", 0.0);
    compiled["board_confinement"] = r.body.value("confinement", "");  // what the board's loader could read
    json buffers = {{"op", "buffers"}, {"bytes", buf.bytes()}, {"sets", buf.layout()}, {"args", buf.argument_kinds()}};
    if (!buf.reserve_layout().is_null()) buffers["reserve"] = buf.reserve_layout();
    r = s.worker->request(buffers, 60000, buf.fd());
  }
  s.compiled = compiled;
  if (!r.ok()) s.failure = r;
  return s;
}

}  // namespace ekb
