// Base64 encoding and decoding (base64.h).
#include "util/base64.h"

#include <array>

namespace ekb {

namespace {
constexpr const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
}

std::string base64_encode(const std::string& in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    unsigned v = (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8 | (unsigned char)in[i + 2];
    for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(v >> s) & 63];
  }
  if (i < in.size()) {
    unsigned v = (unsigned char)in[i] << 16 | (i + 1 < in.size() ? (unsigned char)in[i + 1] << 8 : 0u);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::string> base64_decode(const std::string& text) {
  std::array<int, 256> value;
  value.fill(-1);
  for (int k = 0; k < 64; ++k) value[(unsigned char)kAlphabet[k]] = k;
  if (text.size() % 4) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      unsigned char c = text[i + k];
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        v[k] = 0;
        ++pad;
        continue;
      }
      if (pad || value[c] < 0) return std::nullopt;
      v[k] = value[c];
    }
    unsigned n = v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3];
    out += char(n >> 16);
    if (pad < 2) out += char((n >> 8) & 255);
    if (pad < 1) out += char(n & 255);
  }
  return out;
}

}  // namespace ekb
