// Text hashes (text_hash.h).
#include "util/text_hash.h"

#include <fmt/format.h>
#include <xxhash.h>

namespace ekb {

std::string text_hash_hex(const std::string& text) { return fmt::format("{:016x}", XXH3_64bits(text.data(), text.size())); }

}  // namespace ekb
