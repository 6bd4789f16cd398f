// The dialects: C (C11 with GNU vector extensions, which clang and gcc both accept; OpenMP for
// parallel loops; f16 as _Float16 and bf16 stored as raw uint16_t bits), CUDA C++ (NVRTC) and OpenCL
// C (loops bound to blocks and threads; no vector types or OpenMP; no C library on the device).
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
    x.block_size_promise = "__launch_bounds__({n}) ";
    x.restrict_kw = "__restrict__";
    x.gpu = true;
    x.device_fn = "static __device__ __forceinline__";
    x.shared_qualifier = "__shared__";
    x.barrier = "__syncthreads();";
    x.shuffle_down = "__shfl_down_sync(0xffffffffu, {v}, {d})";
    x.assume_aligned = "{p} = ({t})__builtin_assume_aligned({p}, 16);";
    x.device_prelude =
        "/* fixed-width types and constants (no C library on the device) */\n"
        "typedef signed char int8_t;\ntypedef short int16_t;\ntypedef int int32_t;\ntypedef long long int64_t;\n"
        "typedef unsigned char uint8_t;\ntypedef unsigned short uint16_t;\ntypedef unsigned int uint32_t;\n"
        "typedef unsigned long long uint64_t;\n"
        "#define INFINITY (__int_as_float(0x7f800000))\n#define NAN (__int_as_float(0x7fc00000))\n";
    const char* axes[] = {"x", "y", "z"};
    for (int a = 0; a < 3; ++a) {
      x.block_index[a] = std::string("(int)blockIdx.") + axes[a];
      x.thread_index[a] = std::string("(int)threadIdx.") + axes[a];
    }
    return x;
  }();
  return d;
}

// OpenCL C names its math built-ins without C's `f` suffix (they are overloaded on the argument type):
// the C names the printer and the helpers use are mapped onto them, and memcpy (for bit casts in
// the helpers) is a byte loop over private memory.
static std::string opencl_prelude() {
  std::string out =
      "/* OpenCL C: fixed-width types, doubles, and the C library names ekb's code uses */\n"
      "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
      "typedef char int8_t;\ntypedef short int16_t;\ntypedef int int32_t;\ntypedef long int64_t;\n"
      "typedef uchar uint8_t;\ntypedef ushort uint16_t;\ntypedef uint uint32_t;\ntypedef ulong uint64_t;\n";
  for (const char* f : {"exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "tanh", "erf", "sin", "cos",
                        "tan", "asin", "acos", "atan", "sinh", "cosh", "floor", "ceil", "round", "rint", "trunc", "fabs",
                        "atan2", "pow", "fmod", "fmin", "fmax"})
    out += fmt::format("#define {}f {}\n", f, f);
  out += "#define nearbyintf rint\n#define nearbyint rint\n"
         "static inline void ekb_copy_bytes(uchar* d, const uchar* s, int n) { for (int i = 0; i < n; ++i) d[i] = s[i]; }\n"
         "#define memcpy(d, s, n) ekb_copy_bytes((uchar*)(d), (const uchar*)(s), (n))\n";
  return out;
}

const Dialect& opencl_dialect() {
  static const Dialect d = [] {
    Dialect x;
    x.name = "opencl";
    x.kernel_prefix = "__kernel";
    x.restrict_kw = "restrict";
    x.restrict_when_reading_written = false;
    x.global_ptr = "__global";
    x.gpu = true;
    x.device_fn = "static inline";
    x.device_prelude = opencl_prelude();
    x.shared_qualifier = "__local";  // OpenCL allows these only at the kernel's function scope
    x.barrier = "barrier(CLK_LOCAL_MEM_FENCE);";
    for (int a = 0; a < 3; ++a) {
      x.block_index[a] = fmt::format("(int)get_group_id({})", a);
      x.thread_index[a] = fmt::format("(int)get_local_id({})", a);
    }
    return x;
  }();
  return d;
}

}  // namespace ekb::codegen
