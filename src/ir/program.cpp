// Small helpers of the checked program model, and the category and domain vocabularies.
#include "ir/program.h"

#include <fmt/format.h>

namespace ekb {

std::string DistSpec::text() const {
  switch (kind) {
    case Kind::uniform: return fmt::format("uniform({}, {})", a, b);
    case Kind::normal: return fmt::format("normal({}, {})", a, b);
    case Kind::positive: return fmt::format("positive({}, {})", a, b);
    case Kind::mixed: return fmt::format("mixed({}, {})", a, b);
    case Kind::int_range: return fmt::format("int({}, {})", static_cast<int64_t>(a), static_cast<int64_t>(b));
    case Kind::bernoulli: return fmt::format("bernoulli({})", a);
  }
  return "?";
}

int64_t TensorInfo::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int Program::find_tensor(const std::string& n) const {
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == n) return static_cast<int>(i);
  return -1;
}

int Program::find_stage(const std::string& n) const {
  for (size_t i = 0; i < stages.size(); ++i)
    if (stages[i].name == n) return static_cast<int>(i);
  return -1;
}

const std::vector<std::string>& known_categories() {
  static const std::vector<std::string> v = {
      "elementwise", "broadcast", "reduction", "normalization", "gemm",   "conv",     "pooling",
      "data_movement", "attention", "quantization", "image",  "signal", "recurrent", "model",
  };
  return v;
}

const std::vector<std::string>& known_domains() {
  static const std::vector<std::string> v = {"vision", "audio", "language", "sensors", "image", "general"};
  return v;
}

}  // namespace ekb
