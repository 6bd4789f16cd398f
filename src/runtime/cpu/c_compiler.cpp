// What both C compile paths share: the error type, the common flags, and the choice of default path.
#include "runtime/cpu/c_compiler.h"
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

std::vector<std::string> default_c_compiler_dirs() {
#if EKB_WITH_LLVM
  return inprocess_compiler_dirs();
#else
  return subprocess_c_compiler_dirs();
#endif
}

}  // namespace ekb
