// The buffers a kernel in a worker process reads and writes: one memfd, mapped here and there, holding
// SLOTS copies of the kernel's arguments (inputs, then outputs, in the ABI's order, each 64-byte
// aligned), and optionally a reserve: one more copy of the inputs, from which a worker exchanges
// elements into a slot's inputs between calls timed back to back (the warm regime, evaluate.h). The
// harness writes inputs and poisons outputs before each call, and reads outputs and re-checks inputs
// after it, all in its own process.
#pragma once
#include <nlohmann/json.hpp>

#include <cstddef>
#include <vector>

#include "interp/tensor_data.h"
#include "ir/program.h"
#include "runtime/kernel_args.h"

namespace ekb {

class SharedBuffers {
 public:
  SharedBuffers(const Program& p, int slots, bool reserve = false);
  ~SharedBuffers();
  SharedBuffers(const SharedBuffers&) = delete;
  SharedBuffers& operator=(const SharedBuffers&) = delete;

  int fd() const { return fd_; }  // for the worker (sent once); the harness keeps its own mapping
  size_t bytes() const { return bytes_; }
  unsigned char* mapped() const { return base_; }  // the harness's mapping of all of it
  int slots() const { return slots_; }
  nlohmann::json layout() const;  // [[offset of each argument] per slot]
  nlohmann::json reserve_layout() const;  // [offset of each input] in the reserve, or null without one
  // For a worker that changes buffers itself: per argument its bytes, element bytes, whether it is an
  // output and whether it holds floats.
  nlohmann::json argument_kinds() const;
  const std::vector<size_t>& sizes() const { return sizes_; }  // bytes of each argument
  static constexpr size_t guard_bytes() { return kGuardBytes; }  // the guard zone after each argument, at least

  // Writes and poisoning leave the bytes in memory, out of every cache (`evict`: the cold regime), or
  // where the writes left them (warm: as a previous layer would have).
  void write_inputs(int slot, const std::vector<HostBuffer>& inputs, bool evict = true);
  bool inputs_equal(int slot, const std::vector<HostBuffer>& inputs) const;
  void write_reserve(const std::vector<HostBuffer>& inputs);
  bool reserve_equal(const std::vector<HostBuffer>& inputs) const;
  void poison_outputs(int slot, unsigned char pattern, bool evict = true);  // floats get NaN, other types `pattern` bytes
  std::vector<TensorData> read_outputs(int slot) const;
  // Every output of `slot` holds the same bytes as in `other` (the same program's buffers).
  bool outputs_identical(int slot, const SharedBuffers& other) const;
  // Guard zones around every buffer (4 KiB of a known byte): a write out of bounds shows here.
  bool guards_intact() const;
  void reset_guards();
  // Gives both sides' buffers their memory page by page in turn (a page of `a`, a page of `b`, ...),
  // so that neither gets the pages the system hands out first: which physical pages a buffer gets
  // (scattered or contiguous, in a virtual machine also how the host maps them) changes the time of a
  // memory-bound kernel by several per cent, and would always favour the side whose memory came second.
  static void fault_in_alternately(SharedBuffers& a, SharedBuffers& b);

 private:
  const Program& p_;
  int slots_, fd_ = -1;
  size_t bytes_ = 0;
  unsigned char* base_ = nullptr;
  std::vector<std::vector<size_t>> offsets_;  // per slot, per argument
  std::vector<size_t> reserve_;               // per input (empty: no reserve)
  std::vector<size_t> sizes_;                 // per argument
  std::vector<std::vector<size_t>> buffer_rows() const;  // the slots' offsets, and the reserve's
  static constexpr size_t kGuardBytes = 4096;
  static constexpr unsigned char kGuardByte = 0xC3;
};

}  // namespace ekb
