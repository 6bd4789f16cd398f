// Length-prefixed JSON over a Unix stream socket, with SCM_RIGHTS for one descriptor per message.
#include "harness/worker_channel.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ekb::worker {

namespace {

bool write_all(int sock, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::send(sock, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

using Clock = std::chrono::steady_clock;

// Waits until `sock` is readable or the deadline passes.
RecvStatus wait_readable(int sock, Clock::time_point deadline, bool forever) {
  for (;;) {
    int wait_ms = -1;
    if (!forever) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return RecvStatus::timeout;
      wait_ms = static_cast<int>(std::min<long long>(left, 1 << 30));
    }
    pollfd p{sock, POLLIN, 0};
    int r = ::poll(&p, 1, wait_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return RecvStatus::closed;
    if (r == 0) return RecvStatus::timeout;
    return RecvStatus::ok;
  }
}

}  // namespace

bool send_message(int sock, const nlohmann::json& body, int fd) {
  std::string text = body.dump();
  uint32_t n = static_cast<uint32_t>(text.size());
  char header[4];
  std::memcpy(header, &n, 4);
  iovec iov{header, 4};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  if (fd >= 0) {
    std::memset(control, 0, sizeof control);
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
  }
  ssize_t w;
  do w = ::sendmsg(sock, &msg, MSG_NOSIGNAL);
  while (w < 0 && errno == EINTR);
  if (w < 4) {
    if (w <= 0) return false;
    if (!write_all(sock, header + w, static_cast<size_t>(4 - w))) return false;
  }
  return write_all(sock, text.data(), text.size());
}

RecvStatus recv_message(int sock, Message& out, int timeout_ms) {
  out = Message{};
  bool forever = timeout_ms < 0;
  Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(forever ? 0 : timeout_ms);
  char header[4];
  size_t got = 0;
  while (got < 4) {
    RecvStatus s = wait_readable(sock, deadline, forever);
    if (s != RecvStatus::ok) return s;
    iovec iov{header + got, 4 - got};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t r = ::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return RecvStatus::closed;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && out.fd < 0) std::memcpy(&out.fd, CMSG_DATA(c), sizeof(int));
    got += static_cast<size_t>(r);
  }
  uint32_t n;
  std::memcpy(&n, header, 4);
  if (n > kMaxMessageBytes) return RecvStatus::corrupt;
  std::string text(n, '\0');
  got = 0;
  while (got < n) {
    RecvStatus s = wait_readable(sock, deadline, forever);
    if (s != RecvStatus::ok) return s;
    ssize_t r = ::recv(sock, text.data() + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return RecvStatus::closed;
    got += static_cast<size_t>(r);
  }
  out.body = nlohmann::json::parse(text, nullptr, false);
  if (out.body.is_discarded() || !out.body.is_object()) return RecvStatus::corrupt;
  return RecvStatus::ok;
}

nlohmann::json failure_reply(const std::string& kind, const std::string& error, const std::string& log) {
  return nlohmann::json{{"ok", false}, {"kind", kind}, {"error", error}, {"log", log}};
}

int serve_requests(int sock, const std::function<nlohmann::json(const std::string&, const Message&)>& handle,
                   const std::function<bool(const nlohmann::json&)>& stop_after) {
  for (;;) {
    Message m;
    RecvStatus s = recv_message(sock, m, -1);
    if (s == RecvStatus::closed) return 0;
    if (s != RecvStatus::ok) return 2;
    std::string op = m.body.value("op", "");
    if (op == "exit") _exit(0);
    nlohmann::json reply;
    try {
      reply = handle(op, m);
    } catch (const std::exception& e) {
      reply = failure_reply("protocol", e.what());
    }
    if (!send_message(sock, reply)) return 0;
    if (stop_after && stop_after(reply)) return 0;
  }
}

int socket_argument(int argc, char** argv, const char* program) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--socket") == 0) return std::atoi(argv[i + 1]);
  std::fprintf(stderr, "%s: run by the ekb harness only (usage: %s --socket FD [--private-dir DIR])\n", program, program);
  return -1;
}

std::string private_dir_argument(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--private-dir") == 0) return argv[i + 1];
  return "";
}

}  // namespace ekb::worker
