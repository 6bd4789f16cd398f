// The board's listener and its sessions (board_server.h).
#include "remote/board_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>

#include "harness/cache_evict.h"
#include "harness/worker_client.h"
#include "remote/board_facts.h"
#include "remote/elf_check.h"
#include "remote/protocol.h"
#include "remote/region_sync.h"
#include "remote/token.h"
#include "target/arch.h"

namespace ekb::remote {

namespace {

using nlohmann::json;

constexpr int kHelloTimeoutMs = 10000;
constexpr int kSendTimeoutMs = 60000;
constexpr int kMostRequestMs = 3600 * 1000;

void log(const std::string& what) {
  char when[32];
  std::time_t t = std::time(nullptr);
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", std::localtime(&t));
  std::fprintf(stderr, "ekb worker: %s %s\n", when, what.c_str());
  std::fflush(stderr);
}

json refusal(const std::string& kind, const std::string& error) { return json{{"ok", false}, {"kind", kind}, {"error", error}}; }

// The flush buffer's size for this board's caches: twice the last-level cache, 8 to 64 MiB (as the
// host's harness sizes its own, evaluate.cpp).
uint64_t board_flush_bytes() {
  long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (llc <= 0) llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
  uint64_t two = llc > 0 ? 2 * static_cast<uint64_t>(llc) : 16ull << 20;
  return std::min<uint64_t>(std::max<uint64_t>(two, 8ull << 20), 64ull << 20);
}

// A memory file holding `bytes` (for a worker), or -1.
int memory_file(const char* name, const std::string& bytes) {
  int fd = memfd_create(name, MFD_CLOEXEC);
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

struct Region {
  int fd = -1;
  unsigned char* base = nullptr;
  size_t bytes = 0;
  std::string agreed;  // what the host's copy holds
  ~Region() {
    if (base) munmap(base, bytes);
    if (fd >= 0) close(fd);
  }
};

class Session {
 public:
  Session(int sock, const BoardServerOptions& o, std::string peer) : sock_(sock), o_(o), peer_(std::move(peer)) {}

  // Serves frames until the host leaves (or stays silent past the idle timeout); the reason it ended.
  std::string serve() {
    for (;;) {
      Frame f;
      std::string error;
      FrameStatus s = recv_frame(sock_, f, o_.max_payload, o_.idle_timeout_s * 1000, &error);
      if (s == FrameStatus::closed) return "the host closed the connection";
      if (s == FrameStatus::timeout) return "nothing from the host for " + std::to_string(o_.idle_timeout_s) + " s";
      if (s != FrameStatus::ok) {
        send_frame(sock_, refusal("protocol", error), kSendTimeoutMs);
        linger_and_close_input();
        return std::string(frame_status_name(s)) + ": " + error;
      }
      json reply;
      std::string payload;
      try {
        reply = handle(f, payload);
      } catch (const std::exception& e) {
        reply = refusal("protocol", e.what());
        payload.clear();
      }
      if (!send_frame(sock_, reply, payload, kSendTimeoutMs, &error)) return "cannot answer the host: " + error;
    }
  }

 private:
  json handle(const Frame& f, std::string& payload) {
    const std::string op = f.body.value("op", "");
    if (op == "start") return start(f.body);
    if (op == "request") return request(f, payload);
    if (op == "ping") return json{{"ok", true}};
    if (op == "stat") return json{{"ok", true}, {"cpu_seconds", w_ ? w_->cpu_seconds() : 0.0}, {"peak_rss", w_ ? w_->peak_rss() : 0}};
    if (op == "reset_peak_rss") return json{{"ok", true}, {"rss", w_ ? w_->reset_peak_rss() : 0}};
    return refusal("protocol", "unknown op `" + op + "`");
  }

  json start(const json& m) {
    if (w_) return refusal("protocol", "one worker per session");
    int cpus_here = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    int most = o_.max_threads > 0 ? std::min(o_.max_threads, cpus_here) : cpus_here;
    int threads = m.value("threads", 1);
    if (threads < 1 || threads > most)
      return refusal("protocol", "the host asks for " + std::to_string(threads) + " threads; this board allows 1 to " + std::to_string(most) +
                                     " (its CPUs, or `ekb worker --threads`)");
    cold_ = m.value("cold", true);
    std::vector<int> cpus = worker::worker_cpus(threads);
    std::vector<std::string> args;
    if (o_.unsandboxed_emulation) args.push_back("--unsandboxed-emulation");
    try {
      w_ = std::make_unique<worker::WorkerProcess>(o_.worker_path, cpus, m.value("idle_spin_us", 0), o_.worker_launcher, args);
    } catch (const std::exception& e) {
      return refusal("internal", std::string("cannot start the board's worker: ") + e.what());
    }
    // This process waits on the worker's first CPU, as the host's harness waits for its local
    // workers (evaluate.cpp): a request then wakes the worker on the CPU it was sent from.
    if (!cpus.empty()) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpus[0], &one);
      sched_setaffinity(0, sizeof one, &one);
    }
    log(peer_ + ": worker " + std::to_string(w_->pid()) + " started (" + std::to_string(threads) + " thread" + (threads == 1 ? "" : "s") + ")");
    return json{{"ok", true}, {"pid", w_->pid()}};
  }

  json request(const Frame& f, std::string& payload) {
    if (!w_) return refusal("protocol", "start a worker first");
    json body = f.body.value("body", json::object());
    int timeout_ms = f.body.value("timeout_ms", 10000);
    if (!body.is_object() || timeout_ms < 1 || timeout_ms > kMostRequestMs) return refusal("protocol", "a request needs a body and a timeout (ms)");
    const std::string op = body.value("op", "");
    worker::Reply r;
    json ranges = json::array();
    if (op == "load") {
      uint64_t kernel = body.value("kernel_bytes", uint64_t(0)), warm = body.value("warm_bytes", uint64_t(0));
      if (kernel + warm != f.payload.size()) return refusal("protocol", "load: the bytes sent are not kernel_bytes + warm_bytes");
      const int machine = arch_info(native_arch()).elf_machine;
      for (auto [at, n] : {std::pair{uint64_t(0), kernel}, std::pair{kernel, warm}}) {
        if (n == 0) continue;
        ElfCheck c = check_kernel_object(f.payload.substr(at, n), machine);
        if (!c.ok()) {
          log(peer_ + ": refused a kernel: " + c.message);
          // (Code that would run at load is the candidate's; any other problem is the host's build.)
          return answer(worker::Reply{c.problem == ElfProblem::runs_at_load ? Outcome::denied : Outcome::internal, c.message, {}, 0}, ranges);
        }
      }
      int fd = memory_file("ekb-kernel", f.payload);
      if (fd < 0) return refusal("internal", std::string("memfd: ") + std::strerror(errno));
      r = w_->request(body, timeout_ms, fd);
      close(fd);
    } else if (op == "buffers") {
      if (region_) return refusal("protocol", "buffers come once");
      uint64_t bytes = body.value("bytes", uint64_t(0));
      if (bytes == 0 || bytes != f.payload.size()) return refusal("protocol", "buffers: the bytes sent are not the region's size");
      region_ = std::make_unique<Region>();
      region_->fd = memory_file("ekb-buffers", f.payload);
      if (region_->fd < 0) return refusal("internal", std::string("memfd: ") + std::strerror(errno));
      void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, region_->fd, 0);
      if (p == MAP_FAILED) return refusal("internal", std::string("mmap: ") + std::strerror(errno));
      region_->base = static_cast<unsigned char*>(p);
      region_->bytes = bytes;
      region_->agreed = f.payload;
      r = w_->request(body, timeout_ms, region_->fd);
    } else if (op == "run") {
      if (!region_) return refusal("protocol", "run before buffers");
      auto agreed = reinterpret_cast<unsigned char*>(region_->agreed.data());
      std::vector<ByteRange> in = apply_ranges(region_->base, region_->bytes, f.body.value("ranges", json::array()), f.payload, agreed);
      // Cold: the inputs leave this board's caches, as the host's harness evicts what it writes.
      if (cold_)
        for (const auto& b : in) evict_from_caches(region_->base + b.offset, b.length);
      r = w_->request(body, timeout_ms);
      pack_ranges(region_->base, changed_ranges(region_->base, agreed, region_->bytes), ranges, payload, agreed);
    } else {
      // The flush buffer is sized for this board's caches, not the host's.
      if (op == "sandbox") body["flush_bytes"] = board_flush_bytes();
      r = w_->request(body, timeout_ms);
    }
    if (!r.ok() && !w_->alive()) log(peer_ + ": worker ended: " + std::string(outcome_name(r.outcome)) + ": " + r.message);
    return answer(r, ranges);
  }

  static json answer(const worker::Reply& r, const json& ranges) {
    json a = {{"ok", true}, {"outcome", outcome_name(r.outcome)}, {"message", r.message}, {"body", r.body},
              {"wall_ms", r.wall_ms}, {"ranges", ranges}};
    if (r.denied_syscall >= 0) a["denied_syscall"] = r.denied_syscall;
    return a;
  }

  // After refusing a message the host may still be sending: no more from this side, and what
  // arrives is read and dropped for a few seconds, so that the refusal reaches the host (closing
  // with unread bytes would reset the connection and could drop the refusal on the way).
  void linger_and_close_input() {
    shutdown(sock_, SHUT_WR);
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    char buf[65536];
    while (std::chrono::steady_clock::now() < until) {
      pollfd p{sock_, POLLIN, 0};
      if (poll(&p, 1, 200) <= 0) continue;
      if (recv(sock_, buf, sizeof buf, 0) <= 0) break;
    }
  }

  int sock_;
  const BoardServerOptions& o_;
  std::string peer_;
  std::unique_ptr<worker::WorkerProcess> w_;
  std::unique_ptr<Region> region_;
  bool cold_ = true;
};

// The session of one connection, in its own process: the hello, then the session itself.
void run_connection(int sock, const BoardServerOptions& o, const std::string& token, const json& facts) {
  std::string peer = peer_name(sock);
  Frame hello;
  std::string error;
  FrameStatus s = recv_frame(sock, hello, 0, kHelloTimeoutMs, &error);
  if (s != FrameStatus::ok) {
    log(peer + ": no hello (" + frame_status_name(s) + (error.empty() ? "" : ": " + error) + ")");
    if (s == FrameStatus::too_large || s == FrameStatus::corrupt) send_frame(sock, refusal("protocol", error), kSendTimeoutMs);
    return;
  }
  if (hello.body.value("op", "") != "hello") {
    log(peer + ": refused: the first message was not a hello");
    send_frame(sock, refusal("protocol", "the first message must be a hello"), kSendTimeoutMs);
    return;
  }
  int version = hello.body.value("version", 0);
  if (version != kProtocolVersion) {
    log(peer + ": refused: protocol version " + std::to_string(version));
    send_frame(sock, refusal("protocol", "the host speaks protocol version " + std::to_string(version) + ", this board " +
                                             std::to_string(kProtocolVersion) + ": build both from the same ekb"),
               kSendTimeoutMs);
    return;
  }
  const json& given = hello.body.contains("token") ? hello.body["token"] : json();
  if (!given.is_string() || !tokens_equal(given.get<std::string>(), token)) {
    log(peer + ": refused: wrong token");
    send_frame(sock, refusal(kUnauthorized, "the board refused the token: it does not match the board's --token-file"), kSendTimeoutMs);
    return;
  }
  log(peer + ": authenticated");
  if (!send_frame(sock, json{{"ok", true}, {"board", facts}, {"protocol", kProtocolVersion}}, kSendTimeoutMs)) return;
  Session session(sock, o, peer);
  std::string why = session.serve();
  log(peer + ": session ended: " + why);
}

}  // namespace

int serve_board(const BoardServerOptions& opts) {
  BoardServerOptions o = opts;
  std::string token, warning;
  try {
    token = read_token_file(o.token_file, &warning);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ekb worker: %s\n", e.what());
    return 2;
  }
  if (!warning.empty()) log("warning: " + warning);
  if (o.worker_path.empty()) o.worker_path = worker::default_worker_path();
  if (access(o.worker_path.c_str(), X_OK) != 0) {
    std::fprintf(stderr, "ekb worker: cannot run the worker %s (ekb-worker belongs beside ekb; or set EKB_WORKER)\n", o.worker_path.c_str());
    return 2;
  }
  // The worker must be this board's own build (an x86-64 one under an AArch64 emulator would fail
  // every attempt as if the candidate had).
  {
    std::ifstream w(o.worker_path, std::ios::binary);
    unsigned char h[20] = {};
    w.read(reinterpret_cast<char*>(h), sizeof h);
    int machine = h[18] | (h[19] << 8);
    if (w.gcount() == 20 && h[0] == 0x7f && h[1] == 'E' && h[2] == 'L' && h[3] == 'F' && machine != arch_info(native_arch()).elf_machine) {
      std::fprintf(stderr, "ekb worker: the worker %s is built for %s, but this board is %s (is $EKB_WORKER set?)\n", o.worker_path.c_str(),
                   elf_machine_name(machine).c_str(), arch_name(native_arch()));
      return 2;
    }
  }
  // The sandbox must work here, or be given up knowingly.
  json facts = board_facts();
  std::string seccomp = seccomp_refusal();
  std::string emulation = emulation_signs(seccomp);
  if (!seccomp.empty() && !o.unsandboxed_emulation) {
    std::fprintf(stderr,
                 "ekb worker: this system refuses seccomp filters (%s), so workers could not sandbox themselves; it does not "
                 "serve.%s Under an emulator (qemu-user refuses its guests' filters), `--unsandboxed-emulation` serves "
                 "anyway, without the sandbox: for emulation tests only.\n",
                 seccomp.c_str(), emulation.empty() ? "" : (" (" + emulation + ")").c_str());
    return 2;
  }
  facts["sandbox"] = seccomp.empty() ? "seccomp filter and rlimits (as on the host)"
                                     : "none: " + seccomp + " (--unsandboxed-emulation: emulation tests only)";
  facts["sandboxed"] = seccomp.empty();
  facts["emulation_signs"] = emulation;
  facts["max_payload"] = o.max_payload;
  facts["max_threads"] = o.max_threads;
  Endpoint e;
  try {
    e = parse_endpoint(o.listen);
  } catch (const std::invalid_argument& ex) {
    std::fprintf(stderr, "ekb worker: --listen %s\n", ex.what());
    return 2;
  }
  std::string error;
  int listener = listen_on(e, &error);
  if (listener < 0) {
    std::fprintf(stderr, "ekb worker: %s\n", error.c_str());
    return 1;
  }
  int port = bound_port(listener);
  log("listening on " + e.host + ":" + std::to_string(port) + " (" + facts.value("arch", "") + ", " + std::to_string(facts.value("cpus", 0)) +
      " CPUs; sandbox: " + facts.value("sandbox", "") + (emulation.empty() ? "" : "; looks emulated: " + emulation) + ")");
  // (After the log line: whoever waits for the port file then finds the line too.)
  if (!o.port_file.empty()) std::ofstream(o.port_file) << port << "\n";
  signal(SIGPIPE, SIG_IGN);
  int sessions = 0;
  for (;;) {
    while (waitpid(-1, nullptr, WNOHANG) > 0) --sessions;
    pollfd p{listener, POLLIN, 0};
    if (poll(&p, 1, 1000) <= 0) continue;
    int sock = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (sock < 0) continue;
    int one = 1;  // small answers go at once (no waiting to fill a segment)
    setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(sock, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    if (sessions >= o.max_sessions) {
      log(peer_name(sock) + ": refused: " + std::to_string(sessions) + " sessions already");
      send_frame(sock, refusal("busy", "the board serves " + std::to_string(sessions) + " sessions already"), 1000);
      close(sock);
      continue;
    }
    pid_t pid = fork();
    if (pid == 0) {
      close(listener);
      run_connection(sock, o, token, facts);
      close(sock);
      _exit(0);
    }
    close(sock);
    if (pid > 0) ++sessions;
  }
}

}  // namespace ekb::remote
