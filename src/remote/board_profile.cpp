// Board profile files (board_profile.h).
#include "remote/board_profile.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "remote/token.h"

namespace ekb {

namespace {

using nlohmann::json;

// The fields a profile may have; anything else is a typo to report.
const std::set<std::string> kFields = {"name", "description", "address", "token_file", "arch", "march", "isa", "cc", "openmp",
                                       "threads", "memory_budget_mib", "peak_gflops", "peak_gbps", "emulated",
                                       "l1_kib", "l2_kib", "l3_kib", "connect_timeout_ms", "reconnect_seconds"};

struct Fields {
  const json& j;
  const std::string& path;
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw std::runtime_error(fmt::format("device profile {}: field `{}`: {}", path, field, what));
  }
  std::string type_of(const json& v) const { return v.is_string() ? "a string" : v.is_boolean() ? "true or false" : v.is_number() ? "a number" : v.is_null() ? "null" : v.is_array() ? "a list" : "an object"; }
  std::string text(const std::string& f, bool required, const std::string& fallback = "") const {
    if (!j.contains(f)) {
      if (required) fail(f, "missing (it is required)");
      return fallback;
    }
    if (!j[f].is_string() || j[f].get<std::string>().empty()) fail(f, "expected a non-empty string, got " + type_of(j[f]));
    return j[f].get<std::string>();
  }
  double number(const std::string& f, double lo, double hi, double fallback, bool integer = false) const {
    if (!j.contains(f)) return fallback;
    const json& v = j[f];
    if (!v.is_number() || (integer && !v.is_number_integer()))
      fail(f, fmt::format("expected {} from {} to {}, got {}", integer ? "a whole number" : "a number", lo, hi, v.dump()));
    double d = v.get<double>();
    if (d < lo || d > hi) fail(f, fmt::format("{} is out of range (from {} to {})", v.dump(), lo, hi));
    return d;
  }
  bool flag(const std::string& f, bool fallback) const {
    if (!j.contains(f)) return fallback;
    if (!j[f].is_boolean()) fail(f, "expected true or false, got " + j[f].dump());
    return j[f].get<bool>();
  }
};

// "file:LINE:COL" of byte offset `at` in `text`.
std::string position(const std::string& text, size_t at) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < at && i < text.size(); ++i) {
    if (text[i] == '\n') ++line, col = 1;
    else ++col;
  }
  return fmt::format("{}:{}", line, col);
}

}  // namespace

bool is_profile_file(const std::string& device) {
  return device.size() > 5 && device.compare(device.size() - 5, 5, ".json") == 0;
}

DeviceProfile parse_board_profile(const std::string& text, const std::string& path) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    if (size_t at = what.find("syntax error"); at != std::string::npos) what = what.substr(at);
    throw std::runtime_error(fmt::format("device profile {}:{}: not valid JSON: {}", path, position(text, e.byte > 0 ? e.byte - 1 : 0), what));
  }
  if (!j.is_object()) throw std::runtime_error(fmt::format("device profile {}: expected a JSON object (docs/scale.md shows one)", path));
  for (const auto& [k, v] : j.items())
    if (!kFields.count(k)) {
      std::string known;
      for (const auto& f : kFields) known += (known.empty() ? "" : ", ") + f;
      throw std::runtime_error(fmt::format("device profile {}: unknown field `{}` (known: {})", path, k, known));
    }
  Fields f{j, path};
  DeviceProfile d;
  d.backend = Backend::cpu;
  Board b;
  b.profile_path = path;
  d.name = b.name = f.text("name", true);
  if (d.name.find_first_of(" \t\n/") != std::string::npos) f.fail("name", "no spaces or slashes (it names the device in the results store)");
  for (const auto& builtin : device_profiles())
    if (builtin.name == d.name) f.fail("name", "`" + d.name + "` is a built-in profile's name; choose another");
  std::string address = f.text("address", true);
  try {
    b.address = remote::parse_endpoint(address);
  } catch (const std::invalid_argument& e) {
    f.fail("address", e.what());
  }
  if (b.address.port == 0) f.fail("address", "the port must not be 0");
  std::string arch = f.text("arch", true);
  auto a = find_arch(arch);
  if (!a) f.fail("arch", "`" + arch + "` is not x86_64, aarch64 or riscv64");
  b.arch = *a;
  b.march = f.text("march", false, arch_info(b.arch).default_march);
  b.cc = f.text("cc", false, std::string(arch_info(b.arch).triple) + "-gcc");
  if (j.contains("isa")) {
    std::string isa = f.text("isa", true);
    auto i = isa_from_name(isa);
    if (!i) f.fail("isa", "`" + isa + "` is not none, sse, avx2, avx512 or neon");
    bool fits = *i == Isa::none || (b.arch == Arch::aarch64 ? *i == Isa::neon : b.arch == Arch::x86_64 && *i != Isa::neon);
    if (!fits) f.fail("isa", fmt::format("`{}` is not an ISA of {}", isa, arch_name(b.arch)));
    b.isa = *i;
  }
  b.openmp = f.flag("openmp", true);
  b.emulated = f.flag("emulated", false);
  d.threads = static_cast<int>(f.number("threads", 1, 1024, 1, true));
  if (!b.openmp && d.threads > 1) f.fail("threads", "more than 1 thread needs \"openmp\": true (kernels without OpenMP run on one thread)");
  d.memory_budget = static_cast<uint64_t>(f.number("memory_budget_mib", 1, 1 << 20, 256, true)) << 20;
  b.peak_gflops = f.number("peak_gflops", 0, 1e7, 0);
  b.peak_gbps = f.number("peak_gbps", 0, 1e7, 0);
  if ((b.peak_gflops > 0) != (b.peak_gbps > 0)) f.fail(b.peak_gflops > 0 ? "peak_gbps" : "peak_gflops", "give both peak rates, or neither");
  b.l1_bytes = static_cast<int64_t>(f.number("l1_kib", 1, 1 << 20, 0, true)) << 10;
  b.l2_bytes = static_cast<int64_t>(f.number("l2_kib", 1, 1 << 20, 0, true)) << 10;
  b.l3_bytes = static_cast<int64_t>(f.number("l3_kib", 1, 1 << 22, 0, true)) << 10;
  b.connect_timeout_ms = static_cast<int>(f.number("connect_timeout_ms", 100, 600000, 5000, true));
  b.reconnect_seconds = static_cast<int>(f.number("reconnect_seconds", 0, 3600, 20, true));
  b.token_file = f.text("token_file", true);
  std::filesystem::path tf(b.token_file);
  if (tf.is_relative()) tf = std::filesystem::path(path).parent_path() / tf;
  b.token_file = tf.lexically_normal().string();
  try {
    b.token = remote::read_token_file(b.token_file);
  } catch (const std::exception& e) {
    f.fail("token_file", e.what());
  }
  d.description = f.text("description", false,
                         fmt::format("a {} board at {}{}", arch_name(b.arch), b.address.text(), b.emulated ? " (emulated: its times are not meaningful)" : ""));
  d.board = std::move(b);
  return d;
}

DeviceProfile read_board_profile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("device profile {}: cannot read it (a board's profile file; docs/scale.md)", path));
  std::stringstream s;
  s << in.rdbuf();
  return parse_board_profile(s.str(), path);
}

}  // namespace ekb
