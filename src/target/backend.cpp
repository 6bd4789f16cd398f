// Backend names (backend.h).
#include "target/backend.h"

#include <stdexcept>

namespace ekb {

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
    case Backend::opencl: return "opencl";
  }
  return "?";
}

const std::vector<Backend>& all_backends() {
  static const std::vector<Backend> v = {Backend::cpu, Backend::cuda, Backend::opencl};
  return v;
}

std::optional<Backend> find_backend(const std::string& name) {
  for (Backend b : all_backends())
    if (name == backend_name(b)) return b;
  return std::nullopt;
}

Backend parse_backend(const std::string& name) {
  if (auto b = find_backend(name)) return *b;
  throw std::runtime_error("unknown backend `" + name + "`; backends: cpu, cuda, opencl");
}

}  // namespace ekb
