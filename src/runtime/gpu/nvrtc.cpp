// Loading libnvrtc and compiling with it (nvrtc.h).
#include "runtime/gpu/nvrtc.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "runtime/gpu/dynamic_library.h"

namespace ekb::gpu {

namespace {

using nvrtcResult = int;
struct nvrtcProgram_st;
using nvrtcProgram = nvrtcProgram_st*;

struct Api {
  nvrtcResult (*Version)(int*, int*) = nullptr;
  const char* (*GetErrorString)(nvrtcResult) = nullptr;
  nvrtcResult (*CreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*) = nullptr;
  nvrtcResult (*DestroyProgram)(nvrtcProgram*) = nullptr;
  nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char* const*) = nullptr;
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetCUBIN)(nvrtcProgram, char*) = nullptr;
  bool ok = false;
  std::string why;
};

std::filesystem::path cuda_home() {
  for (const char* v : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* e = std::getenv(v); e && *e) return e;
  return "/usr/local/cuda";
}

const Api& api() {
  static Api a = [] {
    Api a;
    static DynamicLibrary lib;
    std::vector<std::string> names;
    for (const char* n : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}) names.push_back(n);
    for (const char* n : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}) names.push_back((cuda_home() / "lib64" / n).string());
    if (!lib.open(names)) {
      a.why = "no NVRTC (libnvrtc could not be loaded; install the CUDA toolkit or set CUDA_HOME)";
      return a;
    }
    bool ok = lib.bind(a.Version, {"nvrtcVersion"}) && lib.bind(a.GetErrorString, {"nvrtcGetErrorString"}) &&
              lib.bind(a.CreateProgram, {"nvrtcCreateProgram"}) && lib.bind(a.DestroyProgram, {"nvrtcDestroyProgram"}) &&
              lib.bind(a.CompileProgram, {"nvrtcCompileProgram"}) && lib.bind(a.GetProgramLogSize, {"nvrtcGetProgramLogSize"}) &&
              lib.bind(a.GetProgramLog, {"nvrtcGetProgramLog"}) && lib.bind(a.GetCUBINSize, {"nvrtcGetCUBINSize"}) &&
              lib.bind(a.GetCUBIN, {"nvrtcGetCUBIN"});
    if (!ok) a.why = lib.path() + " lacks " + lib.missing();
    a.ok = ok;
    return a;
  }();
  return a;
}

}  // namespace

std::string cuda_home_dir() { return cuda_home().string(); }

bool nvrtc_available(std::string* why) {
  const Api& a = api();
  if (!a.ok && why) *why = a.why;
  return a.ok;
}

std::string nvrtc_version() {
  const Api& a = api();
  int major = 0, minor = 0;
  if (!a.ok || a.Version(&major, &minor) != 0) return "unavailable";
  return fmt::format("{}.{}", major, minor);
}

NvrtcResult nvrtc_compile(const std::string& source, const std::string& name, const std::string& arch,
                          const std::vector<std::string>& extra_options) {
  const Api& a = api();
  if (!a.ok) throw std::runtime_error(a.why);
  auto t0 = std::chrono::steady_clock::now();
  NvrtcResult out;
  nvrtcProgram prog = nullptr;
  if (nvrtcResult r = a.CreateProgram(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr); r != 0)
    throw std::runtime_error(std::string("nvrtcCreateProgram: ") + a.GetErrorString(r));
  std::vector<std::string> opts = {"--gpu-architecture=" + arch, "--std=c++17", "-default-device"};
  if (auto inc = cuda_home() / "include"; std::filesystem::exists(inc / "cuda_fp16.h")) opts.push_back("-I" + inc.string());
  opts.insert(opts.end(), extra_options.begin(), extra_options.end());
  std::vector<const char*> argv;
  for (const auto& o : opts) argv.push_back(o.c_str());
  nvrtcResult r = a.CompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  size_t log_size = 0;
  if (a.GetProgramLogSize(prog, &log_size) == 0 && log_size > 1) {
    out.log.resize(log_size);
    a.GetProgramLog(prog, out.log.data());
    out.log.resize(log_size - 1);
  }
  if (r == 0) {
    size_t n = 0;
    if (a.GetCUBINSize(prog, &n) == 0 && n > 0) {
      out.cubin.resize(n);
      out.ok = a.GetCUBIN(prog, out.cubin.data()) == 0;
    }
    if (!out.ok) out.log += "\nNVRTC produced no cubin for " + arch + " (is it a real architecture, sm_XY?)";
  } else if (out.log.empty()) {
    out.log = std::string("nvrtcCompileProgram: ") + a.GetErrorString(r);
  }
  a.DestroyProgram(&prog);
  out.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace ekb::gpu
