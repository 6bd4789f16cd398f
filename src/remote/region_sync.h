// Keeping a remote worker's argument region the same as the harness's: a board cannot share memory
// with the host, so each side keeps a copy of the region (the host: the harness's SharedBuffers; the
// board: a memory file its worker maps) and, around every call, sends the other the byte ranges
// that changed on its side since they last agreed — the inputs and poisoned outputs before a call,
// the outputs (and anything else the kernel wrote: a guard zone, another slot) after it. So every
// check the harness makes on its buffers sees what the kernel did on the board.
#pragma once
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ekb::remote {

struct ByteRange {
  uint64_t offset = 0, length = 0;
};

// The ranges where `now` differs from `agreed` (both `n` bytes), compared in blocks of 256 bytes;
// ranges closer than 4 KiB are merged (sending equal bytes is harmless), and past 1024 ranges they
// become one, so that the list stays short.
std::vector<ByteRange> changed_ranges(const unsigned char* now, const unsigned char* agreed, size_t n);

// The ranges as a message: [[offset, length], ...] and their bytes from `base`, one after another.
// `agreed` (when given) is updated to hold them too.
void pack_ranges(const unsigned char* base, const std::vector<ByteRange>& ranges, nlohmann::json& list, std::string& payload,
                 unsigned char* agreed = nullptr);

// Writes a message's ranges into `base` (`n` bytes) and, when given, `agreed`; returns the ranges,
// or throws std::runtime_error when a range lies outside the region or the bytes do not add up.
std::vector<ByteRange> apply_ranges(unsigned char* base, size_t n, const nlohmann::json& list, const std::string& payload,
                                    unsigned char* agreed = nullptr);

}  // namespace ekb::remote
