// Token files and their constant-time comparison (token.h).
#include "remote/token.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ekb::remote {

std::string read_token_file(const std::string& path, std::string* warning) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("token file " + path + ": cannot read it (" + std::strerror(errno) + ")");
  std::ostringstream s;
  s << in.rdbuf();
  std::string t = s.str();
  if (t.size() > kMaxTokenBytes + 64)
    throw std::runtime_error("token file " + path + ": " + std::to_string(t.size()) + " bytes; a token is at most " +
                             std::to_string(kMaxTokenBytes));
  size_t b = t.find_first_not_of(" \t\r\n"), e = t.find_last_not_of(" \t\r\n");
  t = b == std::string::npos ? "" : t.substr(b, e - b + 1);
  if (t.empty()) throw std::runtime_error("token file " + path + ": it is empty");
  if (t.size() < kMinTokenBytes)
    throw std::runtime_error("token file " + path + ": the token has " + std::to_string(t.size()) + " characters; at least " +
                             std::to_string(kMinTokenBytes) + " are needed (make one with `head -c 32 /dev/urandom | base64 > " +
                             path + "`)");
  if (t.size() > kMaxTokenBytes)
    throw std::runtime_error("token file " + path + ": a token is at most " + std::to_string(kMaxTokenBytes) + " characters");
  struct stat st{};
  if (warning && stat(path.c_str(), &st) == 0 && (st.st_mode & (S_IRGRP | S_IROTH)))
    *warning = "token file " + path + " can be read by other users (chmod 600 " + path + ")";
  return t;
}

bool tokens_equal(const std::string& a, const std::string& b) {
  // Every byte of the longer string is compared (against 0 past the shorter's end), and the lengths
  // are folded in: no early exit, no branch on the bytes.
  size_t n = std::max(a.size(), b.size());
  unsigned char diff = static_cast<unsigned char>(a.size() != b.size());
  for (size_t i = 0; i < n; ++i) {
    unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ y);
  }
  // (volatile: the compiler may not turn the loop into an early-exit comparison)
  volatile unsigned char result = diff;
  return result == 0;
}

}  // namespace ekb::remote
