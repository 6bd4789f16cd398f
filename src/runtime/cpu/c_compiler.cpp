// What both C compile paths share: the error type, the common flags, and the choice of default path.
#include "runtime/cpu/c_compiler.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#if EKB_WITH_LLVM
#include <llvm/Config/llvm-config.h>
#endif
#include "runtime/cpu/run_process.h"
#if EKB_WITH_LLVM
#include "runtime/cpu/clang_frontend.h"
#endif

namespace ekb {

CompileError::CompileError(const std::string& what, std::string log)
    : std::runtime_error(what), log(std::move(log)) {}

std::vector<std::string> common_c_flags(const CompileOptions& o) {
  std::vector<std::string> f = o.cplusplus ? std::vector<std::string>{"-x", "c++", "-std=gnu++17"}
                                           : std::vector<std::string>{"-std=gnu11"};
  f.insert(f.end(), {"-ffp-contract=fast", "-fno-math-errno"});
  if (o.openmp) f.push_back("-fopenmp");
  f.insert(f.end(), o.extra_flags.begin(), o.extra_flags.end());
  return f;
}

std::string first_error_line(const std::string& log, const std::string& fallback) {
  size_t at = log.find("error: ");
  if (at == std::string::npos) at = log.find("error:");
  if (at == std::string::npos) return fallback;
  size_t begin = log.rfind('\n', at);
  begin = begin == std::string::npos ? 0 : begin + 1;
  size_t end = log.find('\n', at);
  return log.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

std::unique_ptr<CCompiler> make_default_c_compiler() {
#if EKB_WITH_LLVM
  return make_inprocess_c_compiler();
#else
  return make_subprocess_c_compiler();
#endif
}

std::string default_c_compiler_identity() {
  // The CPU the code is built for (-march=native, or the host's CPU and features in process).
  std::string cpu;
  {
    std::ifstream f("/proc/cpuinfo");
    for (std::string line; std::getline(f, line);)
      if (line.rfind("model name", 0) == 0 || line.rfind("flags", 0) == 0 || line.rfind("Features", 0) == 0) {
        cpu += line + "\n";
        if (line.rfind("flags", 0) == 0 || line.rfind("Features", 0) == 0) break;
      }
  }
#if EKB_WITH_LLVM
  std::string path = "clang " LLVM_VERSION_STRING " in process, " + inprocess_code_identity();
#else
  const char* env = std::getenv("CC");
  std::string path = resolve_in_path(env && *env ? env : "cc") + " subprocess";
  std::error_code ec;
  auto stamp = std::filesystem::last_write_time(std::filesystem::path(resolve_in_path(env && *env ? env : "cc")), ec);
  if (!ec) path += " " + std::to_string(stamp.time_since_epoch().count());
#endif
  return path + "\n" + cpu;
}

std::vector<std::string> default_c_compiler_dirs() {
#if EKB_WITH_LLVM
  return inprocess_compiler_dirs();
#else
  return subprocess_c_compiler_dirs();
#endif
}

}  // namespace ekb
