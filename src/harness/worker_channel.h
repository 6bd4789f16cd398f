// The harness and a worker process talk over one Unix stream socket: each message is a JSON object
// with a 4-byte length in front, and can carry one file descriptor (the shared-memory buffers). The
// harness side reads with a deadline, so a worker that hangs or dies is noticed, not waited on.
#pragma once
#include <nlohmann/json.hpp>

#include <functional>
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

// The worker processes' side (ekb-worker, ekb-gpu-worker).
// A refusal: {"ok": false, "kind": KIND, "error": ERROR, "log": LOG}.
nlohmann::json failure_reply(const std::string& kind, const std::string& error, const std::string& log = "");
// Answers requests on `sock` until the harness closes it: `handle(op, message)` makes each reply (an
// exception becomes a "protocol" refusal); the op "exit" ends the process at once. After a reply is
// sent, `stop_after(reply)` (when given) may end the loop. Returns the process's exit status.
int serve_requests(int sock, const std::function<nlohmann::json(const std::string&, const Message&)>& handle,
                   const std::function<bool(const nlohmann::json&)>& stop_after = {});
// The FD of `--socket FD`; without it, prints how `program` is used (by the harness only) and returns -1.
int socket_argument(int argc, char** argv, const char* program);
// The DIR of `--private-dir DIR`: the directory the harness made for this worker alone (its TMPDIR,
// the one place its compile may write), or empty.
std::string private_dir_argument(int argc, char** argv);

}  // namespace ekb::worker
