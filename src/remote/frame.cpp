// Frames over TCP with bounds and deadlines (frame.h).
#include "remote/frame.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace ekb::remote {

namespace {

using Clock = std::chrono::steady_clock;
constexpr char kMagic[4] = {'E', 'K', 'B', '1'};
constexpr size_t kHeaderBytes = 16;

void put_le(unsigned char* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
uint64_t get_le(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

// Milliseconds left before `deadline` (-1: none), at least 0.
int left_ms(Clock::time_point deadline, bool forever) {
  if (forever) return -1;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::max<long long>(0, std::min<long long>(left, 1 << 30)));
}

// Waits for `events` on `sock`: 1 ready, 0 deadline passed, -1 error.
int wait_for(int sock, short events, Clock::time_point deadline, bool forever) {
  for (;;) {
    pollfd p{sock, events, 0};
    int r = ::poll(&p, 1, left_ms(deadline, forever));  // (0 when the deadline passed: what is there already still counts)
    if (r < 0 && errno == EINTR) continue;
    return r > 0 ? 1 : r == 0 ? 0 : -1;
  }
}

bool write_all(int sock, const char* p, size_t n, Clock::time_point deadline, std::string* error) {
  while (n > 0) {
    int w = wait_for(sock, POLLOUT, deadline, false);
    if (w == 0) {
      if (error) *error = "the peer did not take the message in time";
      return false;
    }
    if (w < 0) {
      if (error) *error = std::string("poll: ") + std::strerror(errno);
      return false;
    }
    ssize_t s = ::send(sock, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (s < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (s <= 0) {
      if (error) *error = std::string("send: ") + (s < 0 ? std::strerror(errno) : "connection closed");
      return false;
    }
    p += s;
    n -= static_cast<size_t>(s);
  }
  return true;
}

// Reads exactly n bytes; ok, closed or timeout.
FrameStatus read_all(int sock, char* p, size_t n, Clock::time_point deadline, bool forever) {
  while (n > 0) {
    int w = wait_for(sock, POLLIN, deadline, forever);
    if (w == 0) return FrameStatus::timeout;
    if (w < 0) return FrameStatus::closed;
    ssize_t r = ::recv(sock, p, n, MSG_DONTWAIT);
    if (r < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (r <= 0) return FrameStatus::closed;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return FrameStatus::ok;
}

std::string mib_text(uint64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

}  // namespace

const char* frame_status_name(FrameStatus s) {
  switch (s) {
    case FrameStatus::ok: return "ok";
    case FrameStatus::closed: return "connection closed";
    case FrameStatus::timeout: return "no message before the deadline";
    case FrameStatus::too_large: return "message too large";
    case FrameStatus::corrupt: return "malformed message";
  }
  return "?";
}

std::string frame_size_problem(uint64_t json_bytes, uint64_t payload_bytes, uint64_t max_payload) {
  if (json_bytes > kMaxJsonBytes)
    return "a message's JSON part of " + std::to_string(json_bytes) + " bytes is larger than the limit of " +
           std::to_string(kMaxJsonBytes) + " bytes";
  if (payload_bytes > max_payload)
    return "a message's payload of " + std::to_string(payload_bytes) + " bytes (" + mib_text(payload_bytes) +
           ") is larger than this side's limit of " + std::to_string(max_payload) + " bytes (" + mib_text(max_payload) +
           "; a board raises it with `ekb worker --max-message-mib`)";
  return "";
}

bool send_frame(int sock, const nlohmann::json& body, const std::string& payload, int timeout_ms, std::string* error) {
  std::string text = body.dump();
  unsigned char header[kHeaderBytes];
  std::memcpy(header, kMagic, 4);
  put_le(header + 4, text.size(), 4);
  put_le(header + 8, payload.size(), 8);
  Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(std::max(0, timeout_ms));
  return write_all(sock, reinterpret_cast<const char*>(header), kHeaderBytes, deadline, error) &&
         write_all(sock, text.data(), text.size(), deadline, error) && write_all(sock, payload.data(), payload.size(), deadline, error);
}

FrameStatus recv_frame(int sock, Frame& out, uint64_t max_payload, int timeout_ms, std::string* error) {
  out = Frame{};
  bool forever = timeout_ms < 0;
  Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(forever ? 0 : timeout_ms);
  unsigned char header[kHeaderBytes];
  FrameStatus s = read_all(sock, reinterpret_cast<char*>(header), kHeaderBytes, deadline, forever);
  if (s != FrameStatus::ok) return s;
  if (std::memcmp(header, kMagic, 4) != 0) {
    if (error) *error = "not an ekb board message (wrong magic bytes)";
    return FrameStatus::corrupt;
  }
  uint64_t json_bytes = get_le(header + 4, 4), payload_bytes = get_le(header + 8, 8);
  if (std::string why = frame_size_problem(json_bytes, payload_bytes, max_payload); !why.empty()) {
    if (error) *error = why;
    return FrameStatus::too_large;
  }
  std::string text(json_bytes, '\0');
  if ((s = read_all(sock, text.data(), text.size(), deadline, forever)) != FrameStatus::ok) return s;
  out.payload.resize(payload_bytes);
  if ((s = read_all(sock, out.payload.data(), out.payload.size(), deadline, forever)) != FrameStatus::ok) return s;
  out.body = nlohmann::json::parse(text, nullptr, false);
  if (out.body.is_discarded() || !out.body.is_object()) {
    if (error) *error = "a message whose JSON part is not an object";
    return FrameStatus::corrupt;
  }
  return FrameStatus::ok;
}

std::string Endpoint::text() const {
  return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Endpoint parse_endpoint(const std::string& text) {
  Endpoint e;
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    throw std::invalid_argument("`" + text + "` is not HOST:PORT (for example 10.0.0.2:7450)");
  e.host = text.substr(0, colon);
  if (e.host.size() >= 2 && e.host.front() == '[' && e.host.back() == ']') e.host = e.host.substr(1, e.host.size() - 2);
  std::string port = text.substr(colon + 1);
  if (port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5 || std::stoi(port) > 65535)
    throw std::invalid_argument("`" + text + "`: the port must be a number from 0 to 65535");
  e.port = std::stoi(port);
  return e;
}

namespace {
addrinfo* resolve(const Endpoint& e, bool passive, std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  addrinfo* res = nullptr;
  std::string port = std::to_string(e.port);
  int r = getaddrinfo(e.host.empty() ? nullptr : e.host.c_str(), port.c_str(), &hints, &res);
  if (r != 0) {
    if (error) *error = "cannot resolve `" + e.host + "`: " + gai_strerror(r);
    return nullptr;
  }
  return res;
}
}  // namespace

int connect_to(const Endpoint& e, int timeout_ms, std::string* error) {
  addrinfo* res = resolve(e, false, error);
  if (!res) return -1;
  std::string last = "no address";
  int sock = -1;
  for (addrinfo* a = res; a && sock < 0; a = a->ai_next) {
    int s = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (s < 0) {
      last = std::string("socket: ") + std::strerror(errno);
      continue;
    }
    int r = ::connect(s, a->ai_addr, a->ai_addrlen);
    if (r != 0 && errno == EINPROGRESS) {
      pollfd p{s, POLLOUT, 0};
      int w;
      do w = ::poll(&p, 1, timeout_ms);
      while (w < 0 && errno == EINTR);
      int err = 0;
      socklen_t len = sizeof err;
      if (w == 0) {
        last = "no answer within " + std::to_string(timeout_ms) + " ms";
        ::close(s);
        continue;
      }
      getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len);
      r = err == 0 ? 0 : -1;
      errno = err;
    }
    if (r != 0) {
      last = std::strerror(errno);
      ::close(s);
      continue;
    }
    int one = 1;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(s, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    sock = s;
  }
  freeaddrinfo(res);
  if (sock < 0 && error) *error = "cannot connect to " + e.text() + ": " + last;
  return sock;
}

int listen_on(const Endpoint& e, std::string* error) {
  addrinfo* res = resolve(e, true, error);
  if (!res) return -1;
  std::string last = "no address";
  int sock = -1;
  for (addrinfo* a = res; a && sock < 0; a = a->ai_next) {
    int s = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (s < 0) continue;
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(s, a->ai_addr, a->ai_addrlen) != 0 || ::listen(s, 16) != 0) {
      last = std::strerror(errno);
      ::close(s);
      continue;
    }
    sock = s;
  }
  freeaddrinfo(res);
  if (sock < 0 && error) *error = "cannot listen on " + e.text() + ": " + last;
  return sock;
}

int bound_port(int sock) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (getsockname(sock, reinterpret_cast<sockaddr*>(&a), &len) != 0) return 0;
  if (a.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&a)->sin_port);
  if (a.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&a)->sin6_port);
  return 0;
}

std::string peer_name(int sock) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (getpeername(sock, reinterpret_cast<sockaddr*>(&a), &len) != 0) return "?";
  char host[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (a.ss_family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&a);
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    port = ntohs(in->sin_port);
  } else if (a.ss_family == AF_INET6) {
    auto* in = reinterpret_cast<sockaddr_in6*>(&a);
    inet_ntop(AF_INET6, &in->sin6_addr, host, sizeof host);
    port = ntohs(in->sin6_port);
    return "[" + std::string(host) + "]:" + std::to_string(port);
  }
  return std::string(host) + ":" + std::to_string(port);
}

}  // namespace ekb::remote
