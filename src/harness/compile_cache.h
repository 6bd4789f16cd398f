// Compiled kernels kept by source: the object file (or shared library) a worker's compiler made for a
// translation unit, under a key hashed from the compiler's identity (path, version, target CPU), the
// options and the source, in $EKB_CACHE_DIR/objects. The harness (trusted) keeps it and hands the
// bytes to a new worker, which loads them instead of compiling: a search compiles its baseline once,
// and a program measured again (a resumed run, the re-scoring of what a search found) is not
// compiled again. Files are written whole (a temporary file renamed); an entry that does not load is
// compiled afresh by the worker. The oldest entries go when there are more than a few thousand.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace ekb {

class CompileCache {
 public:
  // `dir` defaults to cache_root()/objects; EKB_NO_COMPILE_CACHE=1 turns the cache off.
  explicit CompileCache(std::filesystem::path dir = {});
  bool enabled() const { return enabled_; }
  static std::string key(const std::string& compiler_identity, const std::string& source, bool cplusplus);
  std::optional<std::string> get(const std::string& key) const;
  void put(const std::string& key, const std::string& bytes) const;

 private:
  std::filesystem::path dir_;
  bool enabled_ = true;
};

}  // namespace ekb
