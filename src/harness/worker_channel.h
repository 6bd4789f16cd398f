// The harness and a worker process talk over one Unix stream socket: each message is a JSON object
// with a 4-byte length in front, and can carry one file descriptor (the shared-memory buffers). The
// harness side reads with a deadline, so a worker that hangs or dies is noticed, not waited on.
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace ekb::worker {

constexpr size_t kMaxMessageBytes = 64u << 20;  // C sources are far smaller; anything bigger is corrupt

struct Message {
  nlohmann::json body;
  int fd = -1;  // a descriptor that came with it (the receiver owns it), or -1
};

// Sends `body` (and `fd` when >= 0). Returns false when the peer is gone.
bool send_message(int sock, const nlohmann::json& body, int fd = -1);

enum class RecvStatus { ok, closed, timeout, corrupt };
// Receives one message; `timeout_ms` < 0 waits forever.
RecvStatus recv_message(int sock, Message& out, int timeout_ms);

}  // namespace ekb::worker
