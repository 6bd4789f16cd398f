// dlopen / dlsym behind DynamicLibrary (dynamic_library.h).
#include "runtime/gpu/dynamic_library.h"

#include <dlfcn.h>

namespace ekb::gpu {

DynamicLibrary::~DynamicLibrary() {
  // Driver libraries are left loaded: they keep threads and atexit handlers that must not outlive
  // their code.
}

bool DynamicLibrary::open(const std::vector<std::string>& names) {
  why_.clear();
  for (const auto& n : names) {
    handle_ = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_) {
      path_ = n;
      return true;
    }
    const char* e = dlerror();
    why_ += (why_.empty() ? "" : "; ") + std::string(e ? e : n + ": not found");
  }
  return false;
}

void* DynamicLibrary::symbol(const std::vector<std::string>& names) {
  if (!handle_) return nullptr;
  for (const auto& n : names)
    if (void* p = dlsym(handle_, n.c_str())) return p;
  missing_ += (missing_.empty() ? "" : ", ") + names.front();
  return nullptr;
}

}  // namespace ekb::gpu
