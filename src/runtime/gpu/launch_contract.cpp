// Writing and reading the @launch / @scratch lines of launch_contract.h.
#include "runtime/gpu/launch_contract.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace ekb::gpu {

uint64_t LaunchContract::scratch_bytes() const {
  uint64_t n = 0;
  for (const auto& s : scratch) n += s.bytes;
  return n;
}

std::vector<std::string> LaunchContract::kernel_names() const {
  std::vector<std::string> names;
  for (const auto& l : launches)
    if (std::find(names.begin(), names.end(), l.kernel) == names.end()) names.push_back(l.kernel);
  return names;
}

std::string format_launch_contract(const LaunchContract& c, const std::string& prefix) {
  std::string out;
  for (const auto& l : c.launches)
    out += fmt::format("{}@launch {} grid({},{},{}) block({},{},{})\n", prefix, l.kernel, l.grid[0], l.grid[1], l.grid[2],
                       l.block[0], l.block[1], l.block[2]);
  for (const auto& s : c.scratch) out += fmt::format("{}@scratch {} {}\n", prefix, s.name, s.bytes);
  return out;
}

namespace {

bool is_ident(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; });
}

// "grid(64,1,1)" -> {64,1,1}; 1 to 3 sizes, each in 1..2^31-1.
bool sizes(const std::string& tok, const std::string& key, std::array<uint32_t, 3>& out) {
  if (tok.rfind(key + "(", 0) != 0 || tok.back() != ')') return false;
  std::string inner = tok.substr(key.size() + 1, tok.size() - key.size() - 2);
  std::stringstream ss(inner);
  std::string part;
  size_t n = 0;
  while (std::getline(ss, part, ',')) {
    if (n == 3 || part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 10) return false;
    uint64_t v = std::stoull(part);
    if (v == 0 || v > 0x7fffffffu) return false;
    out[n++] = static_cast<uint32_t>(v);
  }
  return n >= 1;
}

}  // namespace

LaunchContract parse_launch_contract(const std::string& source) {
  LaunchContract c;
  std::istringstream in(source);
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    size_t at = line.find('@');
    if (at == std::string::npos) continue;
    std::istringstream words(line.substr(at));
    std::string key;
    words >> key;
    if (key != "@launch" && key != "@scratch") continue;
    std::vector<std::string> toks;
    for (std::string t; words >> t;) toks.push_back(t);
    while (!toks.empty() && (toks.back() == "*/" || toks.back() == "*")) toks.pop_back();
    auto bad = [&](const std::string& want) {
      return std::runtime_error(fmt::format("line {}: malformed `{}` line (want `{}`): {}", no, key, want, line));
    };
    if (key == "@launch") {
      const char* want = "@launch KERNEL grid(X[,Y[,Z]]) block(X[,Y[,Z]])";
      Launch l;
      if (toks.size() != 3 || !is_ident(toks[0]) || !sizes(toks[1], "grid", l.grid) || !sizes(toks[2], "block", l.block))
        throw bad(want);
      l.kernel = toks[0];
      c.launches.push_back(l);
    } else {
      const char* want = "@scratch NAME BYTES";
      if (toks.size() != 2 || !is_ident(toks[0]) || toks[1].find_first_not_of("0123456789") != std::string::npos ||
          toks[1].size() > 15)
        throw bad(want);
      uint64_t bytes = std::stoull(toks[1]);
      if (bytes == 0) throw bad(want);
      c.scratch.push_back({toks[0], bytes});
    }
  }
  if (c.launches.empty())
    throw std::runtime_error(
        "no `@launch KERNEL grid(X,Y,Z) block(X,Y,Z)` line: a GPU program says which kernels to launch, in a comment "
        "(`ekb show TASK --abi cuda|opencl` shows the contract)");
  return c;
}

}  // namespace ekb::gpu
