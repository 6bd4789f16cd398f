// The messages between the host's harness and a board (`ekb worker --listen`) over TCP: a JSON
// object and an optional binary payload (a kernel's object file, argument bytes), each with its
// length in a fixed header, so that bytes never travel as base64 text. Both sides bound what they
// accept (a message larger than the limit is refused with an error naming both sizes, before any of
// it is read into memory) and read and write with deadlines, so that a peer that stops answering is
// noticed rather than waited on.
//
// Frame: "EKB1" | u32 JSON length | u64 payload length (little-endian) | JSON | payload.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "remote/endpoint.h"

namespace ekb::remote {

constexpr uint64_t kMaxJsonBytes = 4u << 20;          // requests and answers are small
constexpr uint64_t kDefaultMaxPayloadBytes = 512ull << 20;  // a task's argument slots, with room

struct Frame {
  nlohmann::json body = nlohmann::json::object();
  std::string payload;
};

enum class FrameStatus {
  ok,
  closed,     // the peer closed the connection (or it broke)
  timeout,    // nothing complete arrived before the deadline
  too_large,  // the header announced more than this side accepts (the connection cannot be used after it)
  corrupt,    // not a frame: wrong magic, or JSON that does not parse to an object
};
const char* frame_status_name(FrameStatus s);

// Sends one frame, waiting at most `timeout_ms` for the peer to take it. False when it could not
// (`error` says why).
bool send_frame(int sock, const nlohmann::json& body, const std::string& payload, int timeout_ms, std::string* error = nullptr);
inline bool send_frame(int sock, const nlohmann::json& body, int timeout_ms, std::string* error = nullptr) {
  return send_frame(sock, body, std::string(), timeout_ms, error);
}
// Receives one frame within `timeout_ms` (< 0: no deadline), its payload at most `max_payload`
// bytes. On `too_large` and `corrupt`, `error` says what arrived.
FrameStatus recv_frame(int sock, Frame& out, uint64_t max_payload, int timeout_ms, std::string* error = nullptr);

// The header's check alone (for tests and for the message a refusal carries): empty when a frame
// of these lengths is acceptable, else why not.
std::string frame_size_problem(uint64_t json_bytes, uint64_t payload_bytes, uint64_t max_payload);

// A connected socket, or -1 with `error` set (no answer within `timeout_ms` is an error too).
int connect_to(const Endpoint& e, int timeout_ms, std::string* error);
// A listening socket bound to `e` (port 0: any free port), or -1 with `error` set.
int listen_on(const Endpoint& e, std::string* error);
// The port a socket is bound to.
int bound_port(int sock);
// The peer's address as text ("10.0.0.1:53122").
std::string peer_name(int sock);

}  // namespace ekb::remote
