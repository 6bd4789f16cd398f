// The one C-like printer: loop IR in, source text out, with a Dialect table for what differs between
// C, CUDA C and OpenCL C. Vectorized loops print with GNU vector types (explicit SIMD); parallel loops
// as OpenMP; buffers allocated as the loop IR says (stack arrays, aligned heap blocks).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/abi_names.h"
#include "codegen/dialect.h"
#include "lower/lower.h"
#include "runtime/gpu/launch_contract.h"

namespace ekb::codegen {

// The kernel's C signature (the ABI raw C submissions implement; its name is kEntryPoint):
//   void ekb_kernel(const float* restrict A, ..., float* restrict Y, int32_t num_threads)
std::string c_signature(const lower::LoweredKernel& k, const Dialect& d);

// A whole translation unit: the prelude, the kernel function and the entry wrapper.
std::string print_c(const lower::LoweredKernel& k, const Dialect& d);

// A GPU program (CUDA C, OpenCL C): kernels ekb_k0, ekb_k1, ... launched in order, each over every
// buffer (inputs, outputs, then the scratch buffers the host allocates for intermediate stages). The
// source opens with its launch contract (runtime/gpu/launch_contract.h), which the runtime reads.
struct GpuProgram {
  std::string source;
  gpu::LaunchContract contract;
};
GpuProgram print_gpu(const lower::LoweredKernel& k, const Dialect& d);

// The source the kernel's backend (k.target) compiles: print_c for cpu, print_gpu's source for cuda
// and opencl.
std::string print_for_backend(const lower::LoweredKernel& k);
// The printer's dialect of a backend.
const Dialect& dialect_for(Backend b);

// The ABI of a task's kernel from its parameters alone (for raw C submissions): the signature with a
// comment per tensor (shape and layout), and the wrapper the runtime calls,
//   void ekb_entry(void* const* args, int32_t num_threads)
// (kEntryWrapper) which passes args[i] (inputs, then outputs) to ekb_kernel.
std::string c_abi_text(const std::string& task, const std::vector<lower::TensorArg>& inputs,
                       const std::vector<lower::TensorArg>& outputs, const Dialect& d);
// The same for a raw CUDA (.cu) or OpenCL (.cl) submission: the launch contract and a kernel's
// parameters (launch_contract.h).
std::string gpu_abi_text(const std::string& task, const std::vector<lower::TensorArg>& inputs,
                         const std::vector<lower::TensorArg>& outputs, const Dialect& d);
std::string c_entry_wrapper(const std::vector<lower::TensorArg>& inputs, const std::vector<lower::TensorArg>& outputs,
                            const Dialect& d);

// A raw C or C++ submission made into a translation unit the runtime can call: the source followed by
// the entry wrapper (for C++, with extern "C" declarations; the submission must define
// `extern "C" void ekb_kernel(...)` with the ABI's signature).
std::string raw_submission_source(const std::string& source, bool cplusplus, const std::vector<lower::TensorArg>& inputs,
                                  const std::vector<lower::TensorArg>& outputs, const Dialect& d);

}  // namespace ekb::codegen
