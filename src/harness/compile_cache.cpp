// The compile cache (compile_cache.h).
#include "harness/compile_cache.h"

#include <fmt/format.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

#include "interp/reference.h"

namespace ekb {

namespace fs = std::filesystem;

namespace {
constexpr size_t kMaxEntries = 4000;  // beyond this the oldest quarter goes
}

CompileCache::CompileCache(fs::path dir) : dir_(dir.empty() ? cache_root() / "objects" : std::move(dir)) {
  const char* off = std::getenv("EKB_NO_COMPILE_CACHE");
  enabled_ = !(off && *off && std::string(off) != "0");
}

std::string CompileCache::key(const std::string& identity, const std::string& source, bool cplusplus) {
  std::string all = identity + '\0' + (cplusplus ? "c++" : "c") + '\0' + source;
  XXH128_hash_t h = XXH3_128bits(all.data(), all.size());
  return fmt::format("{:016x}{:016x}", h.high64, h.low64);
}

std::optional<std::string> CompileCache::get(const std::string& key) const {
  if (!enabled_) return std::nullopt;
  std::ifstream f(dir_ / key, std::ios::binary);
  if (!f) return std::nullopt;
  std::string bytes(std::istreambuf_iterator<char>(f), {});
  if (f.bad() || bytes.empty()) return std::nullopt;
  return bytes;
}

void CompileCache::put(const std::string& key, const std::string& bytes) const {
  if (!enabled_ || bytes.empty()) return;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  fs::path tmp = dir_ / fmt::format(".{}.{}.tmp", key, getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!f) {
      fs::remove(tmp, ec);
      return;  // a cache that cannot be written only costs time
    }
  }
  fs::rename(tmp, dir_ / key, ec);
  if (ec) fs::remove(tmp, ec);
  // Keep it bounded: the oldest quarter goes when it grows past kMaxEntries.
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  for (const auto& e : fs::directory_iterator(dir_, ec))
    if (e.is_regular_file(ec) && e.path().filename().string()[0] != '.') entries.push_back({e.last_write_time(ec), e.path()});
  if (entries.size() <= kMaxEntries) return;
  std::sort(entries.begin(), entries.end());
  for (size_t i = 0; i < entries.size() / 4; ++i) fs::remove(entries[i].second, ec);
}

}  // namespace ekb
