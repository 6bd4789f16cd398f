// Base64 (RFC 4648, with padding): binary data inside the JSON messages between the harness and its
// workers (a compiled kernel's object file, handed back to be kept in the compile cache).
#pragma once
#include <optional>
#include <string>

namespace ekb {

std::string base64_encode(const std::string& bytes);
// The bytes, or nothing when `text` is not valid base64.
std::optional<std::string> base64_decode(const std::string& text);

}  // namespace ekb
