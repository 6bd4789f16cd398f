// The per-backend table the one C-like printer consults: qualifiers, how a parallel loop is written,
// math function spellings, and what the backend's vector support is. C is the first dialect; CUDA C
// and OpenCL C add theirs here, not a copy of the printer.
#pragma once
#include <string>

#include "ir/ast.h"
#include "ir/dtype.h"

namespace ekb::codegen {

struct Dialect {
  std::string name;            // "c", "cuda", "opencl"
  std::string kernel_prefix;   // before the kernel's return type
  // Between a GPU kernel's return type and its name: the block's size {n} promised to the compiler,
  // which then keeps the registers per thread within what a block of that size may have (without
  // it, a heavy body can need more registers than the launch allows, and the launch is refused);
  // "" where the dialect has none.
  std::string block_size_promise;
  std::string restrict_kw;     // "restrict", "__restrict__"
  // GPU: whether a kernel that reads a buffer it also writes (a recurrence's own tensor, a scratch
  // buffer written and read in one nest) keeps `restrict` on its parameters. NVIDIA's OpenCL
  // compiler (driver 580) miscompiles such a kernel: it merges a select between two loads into one
  // load through a selected pointer and reads it through the non-coherent cache because one of the
  // two is a `const restrict` input, so the recurrence reads stale values (pcen: got 0, want 5.1).
  bool restrict_when_reading_written = true;
  std::string global_ptr;      // address-space qualifier of buffer parameters ("" in C, "__global" in OpenCL)
  bool openmp_parallel_for = false;  // parallel loops as `#pragma omp parallel for`
  bool vector_extensions = false;    // vectorized loops as GCC/clang vector types
  // GPU dialects: loops bound to blocks and threads read these indices; helper functions carry
  // `device_fn`; several kernels per program (one per root loop nest).
  bool gpu = false;
  std::string device_fn = "static inline";
  std::string block_index[3], thread_index[3];
  std::string device_prelude;  // GPU dialects: fixed-width types, NAN/INFINITY, the math names the printer uses
  // GPU memory shared by a block's threads and their synchronization: the qualifier of a shared
  // array (declared once, at the top of the kernel), the barrier statement, and a warp shuffle
  // `shuffle_down` with {v} (the value) and {d} (the lane distance), "" where the dialect has none
  // (the cross-thread reductions then use shared memory down to the last step).
  std::string shared_qualifier;
  std::string barrier;
  std::string shuffle_down;
  int warp_size = 32;
  // A statement telling the compiler that buffer parameter {p} (of pointer type {t}) is 16-byte
  // aligned, so that it may load and store four floats at once; "" where the dialect has none.
  // Every buffer the harness passes is (device allocations, guard zones of 4 KiB multiples).
  std::string assume_aligned;
  // The scalar C type used to store / compute values of a dtype.
  std::string storage_type(DType t) const;
  std::string compute_type(DType t) const;  // f16 and bf16 compute in float
  // The function implementing a one-argument math function for float or double ("expf", "exp").
  std::string math_fn(Fn fn, DType t) const;
};

const Dialect& c_dialect();
const Dialect& cuda_dialect();  // CUDA C++ as NVRTC compiles it
const Dialect& opencl_dialect();  // OpenCL C 1.2 (with cl_khr_fp64)

}  // namespace ekb::codegen
