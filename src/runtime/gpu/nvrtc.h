// NVRTC (libnvrtc), loaded at run time: CUDA C source to a cubin for one GPU architecture, in
// process. Its own declarations, so that ekb builds where no CUDA toolkit is installed; where NVRTC
// is missing, nvrtc_available() says why and GPU work on CUDA is reported as unavailable.
#pragma once
#include <string>
#include <vector>

namespace ekb::gpu {

struct NvrtcResult {
  bool ok = false;
  std::vector<char> cubin;  // the machine code for `arch`, ready for cuModuleLoadData
  std::string log;          // NVRTC's messages (errors with their line numbers)
  double compile_ms = 0;
};

// The CUDA toolkit's directory: $CUDA_HOME, else $CUDA_PATH, else /usr/local/cuda (whether or not it exists).
std::string cuda_home_dir();

// Whether NVRTC loads here; false with *why set otherwise.
bool nvrtc_available(std::string* why = nullptr);
// NVRTC's version, e.g. "13.0".
std::string nvrtc_version();

// Compiles `source` (file name `name` in messages) for `arch` ("sm_90"). The CUDA toolkit's include
// directory is passed with -I when it is found ($CUDA_HOME or CUDA_PATH, else /usr/local/cuda).
// Throws std::runtime_error when NVRTC is not available.
NvrtcResult nvrtc_compile(const std::string& source, const std::string& name, const std::string& arch,
                          const std::vector<std::string>& extra_options = {});

}  // namespace ekb::gpu
