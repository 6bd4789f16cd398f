// The three backend stacks as one typed value: what a schedule section, a device profile, a
// submission and the printer's dialect are for. Text spellings ("cpu", "cuda", "opencl") exist only at
// the edges (parsing .ekb sections and flags, printing, the results store).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace ekb {

enum class Backend { cpu, cuda, opencl };

const char* backend_name(Backend b);
// The backend spelled `name`, or nothing.
std::optional<Backend> find_backend(const std::string& name);
// The backend spelled `name`; throws naming the known ones.
Backend parse_backend(const std::string& name);
const std::vector<Backend>& all_backends();
inline bool is_gpu(Backend b) { return b != Backend::cpu; }

}  // namespace ekb
