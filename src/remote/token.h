// The shared secret a host proves itself to a board with (`ekb worker --token-file F` on the board,
// `token_file` in the host's device profile). Read from a file, never from a command line (where
// `ps` shows it) and never stored or printed; compared in constant time, so that how long a refusal
// takes says nothing about how much of a guess was right.
#pragma once
#include <string>

namespace ekb::remote {

constexpr size_t kMinTokenBytes = 16;
constexpr size_t kMaxTokenBytes = 4096;

// The token in `path`: its text with surrounding whitespace (a trailing newline) removed. Throws
// std::runtime_error naming the file when it cannot be read, is empty, shorter than kMinTokenBytes
// or longer than kMaxTokenBytes. `warning` (when given) is set when others may read the file.
std::string read_token_file(const std::string& path, std::string* warning = nullptr);

// Whether `a` and `b` are equal, in a time that depends on their lengths only (every byte of the
// longer is visited, whatever differs where).
bool tokens_equal(const std::string& a, const std::string& b);

}  // namespace ekb::remote
