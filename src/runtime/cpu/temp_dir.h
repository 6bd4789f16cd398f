// A private temporary directory that removes itself: where the subprocess compiler keeps a kernel's
// source and shared object while the kernel is loaded.
#pragma once
#include <string>

namespace ekb {

class TempDir {
 public:
  // Creates $TMPDIR/<prefix>XXXXXX (or /tmp/...) with mode 0700; throws std::runtime_error on failure.
  explicit TempDir(const std::string& prefix);
  ~TempDir();  // removes the directory and everything in it
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Whole-file helpers (binary-safe); both throw std::runtime_error naming the path.
void write_binary_file(const std::string& path, const std::string& data);
std::string read_binary_file(const std::string& path);

}  // namespace ekb
