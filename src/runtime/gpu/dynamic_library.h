// A shared library opened with dlopen and its symbols looked up by name: how ekb reaches the GPU
// stacks (the CUDA driver, NVRTC, the OpenCL ICD loader) without linking them, so that it builds and
// runs on machines that have none of them and uses them where they are.
#pragma once
#include <string>
#include <vector>

namespace ekb::gpu {

class DynamicLibrary {
 public:
  DynamicLibrary() = default;
  ~DynamicLibrary();
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;

  // Opens the first of `names` that loads (each tried as given: a file name searched the usual way,
  // or a path). False, with why() saying what was tried and what dlopen said, when none does.
  bool open(const std::vector<std::string>& names);
  bool is_open() const { return handle_ != nullptr; }
  const std::string& path() const { return path_; }
  const std::string& why() const { return why_; }

  // The first of `names` the library defines, or nullptr (and a line added to missing()).
  void* symbol(const std::vector<std::string>& names);
  template <typename F>
  bool bind(F*& fn, const std::vector<std::string>& names) {
    fn = reinterpret_cast<F*>(symbol(names));
    return fn != nullptr;
  }
  const std::string& missing() const { return missing_; }

 private:
  void* handle_ = nullptr;
  std::string path_, why_, missing_;
};

// A table of an API's functions, loaded once per process: the table, or why it could not be loaded.
template <typename Api>
struct LoadedApi {
  Api api;
  std::string why;
  bool ok = false;
  const Api* get(std::string* why_out) const {
    if (ok) return &api;
    if (why_out) *why_out = why;
    return nullptr;
  }
};

}  // namespace ekb::gpu
