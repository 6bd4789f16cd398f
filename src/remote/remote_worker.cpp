// A worker on a board, seen from the host (remote_worker.h).
#include "remote/remote_worker.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "remote/frame.h"
#include "remote/protocol.h"
#include "remote/region_sync.h"

namespace ekb::remote {

namespace {

using nlohmann::json;

constexpr int kHelloTimeoutMs = 15000;
// Beyond a request's own deadline (which the board enforces on its worker): the network's share,
// and the bytes' time on a slow link (a board on 100 Mbit/s Ethernet takes ~1 s for 10 MB).
int network_margin_ms(size_t payload_bytes) { return 20000 + static_cast<int>(payload_bytes / (1 << 20)) * 200; }

std::string board_name(const Board& b) { return "board `" + b.name + "` at " + b.address.text(); }

}  // namespace

json hello_board(const Board& b, int* sock_out) {
  std::string error;
  int sock = connect_to(b.address, b.connect_timeout_ms, &error);
  if (sock < 0) throw BoardUnavailable(board_name(b) + ": " + error + " (is `ekb worker --listen` running there?)");
  Frame reply;
  FrameStatus s = FrameStatus::closed;
  if (send_frame(sock, json{{"op", "hello"}, {"version", kProtocolVersion}, {"token", b.token}}, kHelloTimeoutMs, &error))
    s = recv_frame(sock, reply, 0, kHelloTimeoutMs, &error);
  if (s != FrameStatus::ok) {
    close(sock);
    throw BoardUnavailable(board_name(b) + ": no answer to the hello (" + frame_status_name(s) + (error.empty() ? "" : ": " + error) + ")");
  }
  if (!reply.body.value("ok", false)) {
    close(sock);
    std::string kind = reply.body.value("kind", ""), why = reply.body.value("error", "refused");
    if (kind == kUnauthorized)
      throw BoardUnavailable(board_name(b) + " refused this host: " + why + " (the profile's token_file " + b.token_file + ")", true);
    throw BoardUnavailable(board_name(b) + " refused the connection: " + why);
  }
  json facts = reply.body.value("board", json::object());
  std::string arch = facts.value("arch", "");
  if (arch != arch_name(b.arch)) {
    close(sock);
    throw BoardUnavailable(board_name(b) + " is " + (arch.empty() ? "of an unknown architecture" : arch) + ", but its profile " +
                           b.profile_path + " says " + arch_name(b.arch));
  }
  if (sock_out) *sock_out = sock;
  else close(sock);
  return facts;
}

RemoteWorker::RemoteWorker(const Board& b, int threads, int idle_spin_us, bool cold) : board_(b) {
  facts_ = hello_board(b, &sock_);
  Frame reply;
  std::string why;
  if (!exchange(json{{"op", "start"}, {"threads", threads}, {"idle_spin_us", idle_spin_us}, {"cold", cold}}, "", kHelloTimeoutMs, reply, &why))
    throw BoardUnavailable(board_name(b) + ": " + why);
  if (!reply.body.value("ok", false)) {
    close(sock_);
    sock_ = -1;
    throw BoardUnavailable(board_name(b) + " could not start a worker: " + reply.body.value("error", "refused"));
  }
  pid_ = reply.body.value("pid", 0);
}

RemoteWorker::~RemoteWorker() {
  if (sock_ >= 0) close(sock_);  // the board's session ends, and its worker with it
  if (region_) munmap(region_, bytes_);
}

bool RemoteWorker::exchange(const json& body, const std::string& payload, int timeout_ms, Frame& reply, std::string* why) {
  if (sock_ < 0) {
    *why = "the connection was lost before";
    return false;
  }
  std::string error, send_error;
  uint64_t most = std::max<uint64_t>(kDefaultMaxPayloadBytes, bytes_ + (1u << 20));
  int wait_ms = timeout_ms + network_margin_ms(bytes_);
  // (When the board refuses a message while it is still being sent, e.g. one larger than it
  // accepts, the send fails; its refusal may still be there to read.)
  bool sent = send_frame(sock_, body, payload, network_margin_ms(payload.size()), &send_error);
  FrameStatus s = recv_frame(sock_, reply, most, sent ? wait_ms : 2000, &error);
  if (s == FrameStatus::ok && sent) return true;
  if (s == FrameStatus::ok) {
    close(sock_);
    sock_ = -1;
    return true;
  }
  *why = !sent                        ? "cannot send to it: " + send_error
         : s == FrameStatus::timeout ? "no answer within " + std::to_string(wait_ms / 1000) + " s"
                                      : std::string(frame_status_name(s)) + (error.empty() ? "" : ": " + error);
  close(sock_);
  sock_ = -1;
  return false;
}

worker::Reply RemoteWorker::gone(const std::string& why) {
  return worker::Reply{Outcome::unavailable, board_name(board_) + " stopped answering: " + why + " (not the candidate's fault; run the "
                                                                                                 "same command again to make this attempt again)",
                       {}, 0};
}

worker::Reply RemoteWorker::request(const json& req, int timeout_ms, int fd) {
  const std::string op = req.value("op", "");
  json body = req;
  std::string payload;
  json outer = {{"op", "request"}, {"timeout_ms", timeout_ms}};
  if (op == "load") {
    size_t n = req.value("kernel_bytes", size_t(0)) + req.value("warm_bytes", size_t(0));
    payload.resize(n);
    if (fd < 0 || pread(fd, payload.data(), n, 0) != static_cast<ssize_t>(n))
      return worker::Reply{Outcome::internal, "cannot read the kernel's objects to send them", {}, 0};
  } else if (op == "buffers") {
    if (fd < 0 || region_) return worker::Reply{Outcome::internal, "buffers need the harness's region, once", {}, 0};
    bytes_ = req.at("bytes").get<size_t>();
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) return worker::Reply{Outcome::internal, std::string("mmap of the shared buffers: ") + std::strerror(errno), {}, 0};
    region_ = static_cast<unsigned char*>(p);
    payload.assign(reinterpret_cast<const char*>(region_), bytes_);
    agreed_ = payload;
  } else if (op == "run") {
    if (!region_) return worker::Reply{Outcome::internal, "run before buffers", {}, 0};
    json ranges;
    auto agreed = reinterpret_cast<unsigned char*>(agreed_.data());
    pack_ranges(region_, changed_ranges(region_, agreed, bytes_), ranges, payload, agreed);
    outer["ranges"] = ranges;
  }
  outer["body"] = body;
  Frame reply;
  std::string why;
  if (!exchange(outer, payload, timeout_ms, reply, &why)) return gone(why);
  if (!reply.body.value("ok", false)) {
    // The board refused the request itself, not its worker (a message larger than it accepts, a
    // request out of order): never the candidate's fault.
    return worker::Reply{Outcome::internal, board_name(board_) + " refused the request: " + reply.body.value("error", "refused"), {}, 0};
  }
  worker::Reply r;
  r.outcome = outcome_named(reply.body.value("outcome", ""), Outcome::protocol);
  r.message = reply.body.value("message", "");
  r.body = reply.body.value("body", json::object());
  r.wall_ms = reply.body.value("wall_ms", 0.0);
  r.denied_syscall = reply.body.value("denied_syscall", -1);
  if (r.outcome == Outcome::denied && r.denied_syscall >= 0)
    r.message = "the sandbox denied the system call " + worker::syscall_name(r.denied_syscall, arch_name(board_.arch)) + " (on " + board_.name + ")";
  if (region_ && reply.body.contains("ranges") && !reply.body["ranges"].empty()) {
    try {
      apply_ranges(region_, bytes_, reply.body["ranges"], reply.payload, reinterpret_cast<unsigned char*>(agreed_.data()));
    } catch (const std::exception& e) {
      return worker::Reply{Outcome::protocol, board_name(board_) + ": " + e.what(), {}, 0};
    }
  }
  return r;
}

uint64_t RemoteWorker::peak_rss() {
  Frame reply;
  std::string why;
  if (!exchange(json{{"op", "stat"}}, "", kHelloTimeoutMs, reply, &why)) return 0;
  return reply.body.value("peak_rss", uint64_t(0));
}

uint64_t RemoteWorker::reset_peak_rss() {
  Frame reply;
  std::string why;
  if (!exchange(json{{"op", "reset_peak_rss"}}, "", kHelloTimeoutMs, reply, &why)) return 0;
  return reply.body.value("rss", uint64_t(0));
}

double RemoteWorker::cpu_seconds() {
  Frame reply;
  std::string why;
  if (!exchange(json{{"op", "stat"}}, "", kHelloTimeoutMs, reply, &why)) return 0;
  return reply.body.value("cpu_seconds", 0.0);
}

}  // namespace ekb::remote
