// Reference evaluation with an on-disk cache. Cache files are written to a temporary name and renamed,
// so a crash never leaves a half-written entry; an unreadable entry is recomputed and replaced.
#include "interp/reference.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>
#include <unistd.h>

#include "harness/inputs.h"
#include "interp/interpreter.h"
#include "ir/printer.h"

namespace ekb {
namespace {

// Bump when the interpreter's semantics or input generation change: old entries stop matching.
constexpr const char* kReferenceVersion = "ekb-reference-4";
constexpr char kMagic[8] = {'E', 'K', 'B', 'R', 'E', 'F', '0', '1'};

std::string cache_key(const Program& p, uint64_t seed) {
  std::string text = std::string(kReferenceVersion) + '\0' + canonical_l0_text(p) + '\0' + std::to_string(seed);
  XXH128_hash_t h = XXH3_128bits(text.data(), text.size());
  return fmt::format("{:016x}{:016x}", h.high64, h.low64);
}

template <typename T>
void put(std::ostream& o, const T& v) {
  o.write(reinterpret_cast<const char*>(&v), sizeof(T));
}
template <typename T>
bool get(std::istream& in, T& v) {
  return static_cast<bool>(in.read(reinterpret_cast<char*>(&v), sizeof(T)));
}

bool write_entry(const std::filesystem::path& path, const std::string& key, const std::vector<TensorData>& outs) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  auto tmp = path;  // unique per process and thread: several may fill the cache at once
  tmp += fmt::format(".tmp{}-{}", ::getpid(), std::hash<std::thread::id>{}(std::this_thread::get_id()));
  {
    std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
    if (!o) return false;
    o.write(kMagic, sizeof kMagic);
    o.write(key.data(), static_cast<std::streamsize>(key.size()));
    put(o, static_cast<uint32_t>(outs.size()));
    for (const auto& t : outs) {
      put(o, static_cast<uint32_t>(t.name.size()));
      o.write(t.name.data(), static_cast<std::streamsize>(t.name.size()));
      put(o, static_cast<uint8_t>(t.dtype));
      put(o, static_cast<uint32_t>(t.shape.size()));
      for (int64_t d : t.shape) put(o, d);
      if (t.holds_float()) o.write(reinterpret_cast<const char*>(t.f.data()), static_cast<std::streamsize>(t.f.size() * 8));
      else o.write(reinterpret_cast<const char*>(t.i.data()), static_cast<std::streamsize>(t.i.size() * 8));
    }
    if (!o.flush()) {
      std::filesystem::remove(tmp, ec);
      return false;
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
  return !ec;
}

std::optional<std::vector<TensorData>> read_entry(const std::filesystem::path& path, const std::string& key, const Program& p) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  char magic[8];
  std::string k(key.size(), '\0');
  if (!in.read(magic, 8) || std::memcmp(magic, kMagic, 8) != 0) return std::nullopt;
  if (!in.read(k.data(), static_cast<std::streamsize>(k.size())) || k != key) return std::nullopt;
  uint32_t count;
  if (!get(in, count) || count != p.outputs.size()) return std::nullopt;
  std::vector<TensorData> outs;
  for (uint32_t n = 0; n < count; ++n) {
    const TensorInfo& info = p.tensors[p.outputs[n]];
    uint32_t len, rank;
    uint8_t dt;
    if (!get(in, len) || len != info.name.size()) return std::nullopt;
    std::string name(len, '\0');
    if (!in.read(name.data(), len) || name != info.name) return std::nullopt;
    if (!get(in, dt) || dt != static_cast<uint8_t>(info.dtype)) return std::nullopt;
    if (!get(in, rank) || rank != info.shape.size()) return std::nullopt;
    std::vector<int64_t> shape(rank);
    for (auto& d : shape)
      if (!get(in, d)) return std::nullopt;
    if (shape != info.shape) return std::nullopt;
    TensorData t(name, info.dtype, shape);
    char* dst = t.holds_float() ? reinterpret_cast<char*>(t.f.data()) : reinterpret_cast<char*>(t.i.data());
    if (!in.read(dst, static_cast<std::streamsize>(t.size() * 8))) return std::nullopt;
    outs.push_back(std::move(t));
  }
  return outs;
}

}  // namespace

std::filesystem::path cache_root() {
  if (const char* d = std::getenv("EKB_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::filesystem::path(x) / "ekb";
  if (const char* h = std::getenv("HOME"); h && *h) return std::filesystem::path(h) / ".cache" / "ekb";
  return std::filesystem::temp_directory_path() / "ekb-cache";
}

std::string canonical_l0_text(const Program& p) {
  KernelPrintOptions o;
  o.comments = false;
  return print_kernel(*p.module->kernel, o);
}

std::string l0_hash(const Program& p) {
  std::string text = canonical_l0_text(p);
  XXH128_hash_t h = XXH3_128bits(text.data(), text.size());
  return fmt::format("{:016x}{:016x}", h.high64, h.low64);
}

ReferenceResult reference_outputs(const Program& p, uint64_t seed, const ReferenceOptions& opts) {
  check_interpretable(p);
  ReferenceResult r;
  r.inputs = generate_inputs(p, seed);
  std::string key = cache_key(p, seed);
  std::filesystem::path dir = opts.cache_dir ? *opts.cache_dir : cache_root() / "reference";
  std::filesystem::path path = dir / (key + ".bin");
  if (opts.use_cache) {
    if (auto cached = read_entry(path, key, p)) {
      r.outputs = std::move(*cached);
      r.from_cache = true;
      return r;
    }
  }
  r.outputs = interpret(p, r.inputs);
  if (opts.use_cache) write_entry(path, key, r.outputs);  // a cache that cannot be written is not an error
  return r;
}

}  // namespace ekb
