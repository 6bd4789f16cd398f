// The dialects: C (C11 with GNU vector extensions, which clang and gcc both accept; OpenMP for
// parallel loops; f16 as _Float16 and bf16 stored as raw uint16_t bits) and CUDA C++ (NVRTC; loops
// bound to blocks and threads; no vector types or OpenMP).
#include <fmt/format.h>

#include "codegen/dialect.h"
#include "ir/parser.h"

namespace ekb::codegen {

std::string Dialect::storage_type(DType t) const {
  switch (t) {
    case DType::f64: return "double";
    case DType::f32: return "float";
    case DType::f16: return "_Float16";
    case DType::bf16: return "uint16_t";
    case DType::i64: return "int64_t";
    case DType::i32: return "int32_t";
    case DType::i16: return "int16_t";
    case DType::i8: return "int8_t";
    case DType::u8: return "uint8_t";
    case DType::boolean: return "uint8_t";
  }
  return "float";
}

std::string Dialect::compute_type(DType t) const {
  if (t == DType::f16 || t == DType::bf16) return "float";
  if (t == DType::boolean) return "int32_t";
  return storage_type(t);
}

std::string Dialect::math_fn(Fn fn, DType t) const {
  std::string base = function_name(fn);
  if (fn == Fn::abs) base = "fabs";
  return t == DType::f64 ? base : base + "f";
}

const Dialect& c_dialect() {
  static const Dialect d = [] {
    Dialect x;
    x.name = "c";
    x.restrict_kw = "restrict";
    x.openmp_parallel_for = true;
    x.vector_extensions = true;
    return x;
  }();
  return d;
}

const Dialect& cuda_dialect() {
  static const Dialect d = [] {
    Dialect x;
    x.name = "cuda";
    x.kernel_prefix = "extern \"C\" __global__";
    x.restrict_kw = "__restrict__";
    x.gpu = true;
    x.device_fn = "static __device__ __forceinline__";
    const char* axes[] = {"x", "y", "z"};
    for (int a = 0; a < 3; ++a) {
      x.block_index[a] = std::string("(int64_t)blockIdx.") + axes[a];
      x.thread_index[a] = std::string("(int64_t)threadIdx.") + axes[a];
    }
    return x;
  }();
  return d;
}

}  // namespace ekb::codegen
