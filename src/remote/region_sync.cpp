// Changed byte ranges of a mirrored region (region_sync.h).
#include "remote/region_sync.h"

#include <cstring>
#include <stdexcept>

namespace ekb::remote {

namespace {
constexpr size_t kBlock = 256;
constexpr uint64_t kMergeGap = 4096;
constexpr size_t kMostRanges = 1024;
}  // namespace

std::vector<ByteRange> changed_ranges(const unsigned char* now, const unsigned char* agreed, size_t n) {
  std::vector<ByteRange> out;
  for (size_t at = 0; at < n; at += kBlock) {
    size_t len = std::min(kBlock, n - at);
    if (std::memcmp(now + at, agreed + at, len) == 0) continue;
    if (!out.empty() && at - (out.back().offset + out.back().length) <= kMergeGap)
      out.back().length = at + len - out.back().offset;
    else
      out.push_back({at, len});
  }
  if (out.size() > kMostRanges) out = {{out.front().offset, out.back().offset + out.back().length - out.front().offset}};
  return out;
}

void pack_ranges(const unsigned char* base, const std::vector<ByteRange>& ranges, nlohmann::json& list, std::string& payload,
                 unsigned char* agreed) {
  list = nlohmann::json::array();
  payload.clear();
  size_t total = 0;
  for (const auto& r : ranges) total += r.length;
  payload.reserve(total);
  for (const auto& r : ranges) {
    list.push_back({r.offset, r.length});
    payload.append(reinterpret_cast<const char*>(base + r.offset), r.length);
    if (agreed) std::memcpy(agreed + r.offset, base + r.offset, r.length);
  }
}

std::vector<ByteRange> apply_ranges(unsigned char* base, size_t n, const nlohmann::json& list, const std::string& payload,
                                    unsigned char* agreed) {
  std::vector<ByteRange> ranges;
  if (!list.is_array()) throw std::runtime_error("the changed ranges are not a list");
  uint64_t total = 0;
  for (const auto& r : list) {
    if (!r.is_array() || r.size() != 2 || !r[0].is_number_unsigned() || !r[1].is_number_unsigned())
      throw std::runtime_error("a changed range is not [offset, length]");
    ByteRange b{r[0].get<uint64_t>(), r[1].get<uint64_t>()};
    if (b.offset > n || b.length > n - b.offset) throw std::runtime_error("a changed range lies outside the region");
    total += b.length;
    ranges.push_back(b);
  }
  if (total != payload.size())
    throw std::runtime_error("the changed ranges hold " + std::to_string(total) + " bytes, but " + std::to_string(payload.size()) +
                             " came with them");
  size_t at = 0;
  for (const auto& b : ranges) {
    std::memcpy(base + b.offset, payload.data() + at, b.length);
    if (agreed) std::memcpy(agreed + b.offset, payload.data() + at, b.length);
    at += b.length;
  }
  return ranges;
}

}  // namespace ekb::remote
