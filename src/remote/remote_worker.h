// The host's side of a worker on a board: the `Worker` interface (worker_client.h) over a
// connection to the board's `ekb worker --listen` (board_server.h), so that the attempt protocol
// (evaluate.h) runs unchanged. Argument buffers cannot be shared memory across machines: this
// client maps the harness's region itself and, around each call, sends the board the ranges the
// harness changed and writes back the ranges the call changed there (region_sync.h), so that the
// harness's checks (poisoned outputs, guard zones, unchanged inputs) see what the kernel did. The
// request's time (`wall_ms`), the worker's CPU time and resident memory are the board's, measured
// there around its local worker, as the harness measures its own workers here.
//
// A board that stops answering (the connection breaks, or nothing comes within the request's
// deadline and a margin for the network) makes the request `unavailable`: not the candidate's
// fault, and a resumed run makes that attempt again.
#pragma once
#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

#include "harness/worker_client.h"
#include "remote/board.h"
#include "remote/frame.h"

namespace ekb::remote {

// The board could not be reached, or refused this host (`unauthorized`: a wrong token).
struct BoardUnavailable : std::runtime_error {
  bool unauthorized = false;
  BoardUnavailable(const std::string& what, bool unauthorized_ = false) : std::runtime_error(what), unauthorized(unauthorized_) {}
};

// Connects to the board and proves the token; returns the board's facts (board_facts.h). Throws
// BoardUnavailable naming the board and why.
nlohmann::json hello_board(const Board& b, int* sock_out = nullptr);

class RemoteWorker final : public worker::Worker {
 public:
  // Connects, proves the token, and has the board start a worker of `threads` threads (idle OpenMP
  // threads spinning `idle_spin_us` before they sleep; `cold`: the board evicts each call's inputs
  // from its caches). Throws BoardUnavailable.
  RemoteWorker(const Board& b, int threads, int idle_spin_us, bool cold);
  ~RemoteWorker() override;
  RemoteWorker(const RemoteWorker&) = delete;
  RemoteWorker& operator=(const RemoteWorker&) = delete;

  // `fd`: for `load`, a file holding the kernel's objects (kernel_bytes + warm_bytes); for
  // `buffers`, the harness's shared region (mapped here and mirrored there).
  worker::Reply request(const nlohmann::json& request, int timeout_ms, int fd = -1) override;
  bool alive() const override { return sock_ >= 0; }
  uint64_t peak_rss() override;
  uint64_t reset_peak_rss() override;
  double cpu_seconds() override;

  const nlohmann::json& facts() const { return facts_; }
  int worker_pid() const { return pid_; }

 private:
  // One exchange with the board; false (and the connection closed, `why` set) when it failed.
  bool exchange(const nlohmann::json& body, const std::string& payload, int timeout_ms, Frame& reply, std::string* why);
  worker::Reply gone(const std::string& why);

  Board board_;
  int sock_ = -1;
  int pid_ = 0;
  nlohmann::json facts_;
  unsigned char* region_ = nullptr;  // the harness's region, mapped here
  size_t bytes_ = 0;
  std::string agreed_;               // what the board's copy holds
};

}  // namespace ekb::remote
