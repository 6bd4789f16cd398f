// Writing a file so that a reader (or a run killed mid-write) sees the old contents or the new,
// never half of them: the text goes to PATH.tmp, which is then renamed over PATH.
#pragma once
#include <filesystem>
#include <string>

namespace ekb {

// Throws std::runtime_error naming the file when it cannot be written.
void write_atomically(const std::filesystem::path& path, const std::string& text);

}  // namespace ekb
