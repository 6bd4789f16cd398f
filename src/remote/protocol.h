// The host-board protocol's constants (frame.h carries it; docs/scale.md describes it):
//   host -> board                         board -> host
//   hello {version, token}                {ok, board: facts} | refusal (unauthorized, protocol)
//   start {threads, idle_spin_us, cold}   {ok, pid}: a sandboxable worker started for this session
//   request {body, timeout_ms} + bytes    {ok, outcome, message, body, wall_ms, ranges, denied_syscall} + bytes
//   stat                                  {ok, cpu_seconds, peak_rss}
//   reset_peak_rss                        {ok, rss}
//   ping                                  {ok}
// A request's body is what the host's harness sends a local worker (kernel_worker.h); its bytes are
// the kernel's objects (load), the whole argument region (buffers) or the ranges that changed
// (run: region_sync.h), and the answer's bytes the ranges the call changed on the board.
#pragma once

namespace ekb::remote {

constexpr int kProtocolVersion = 1;
constexpr int kDefaultBoardPort = 7450;
// A refusal's kind when the token does not match.
constexpr const char* kUnauthorized = "unauthorized";

}  // namespace ekb::remote
