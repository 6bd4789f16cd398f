// The files of a GPU export (export.h). CUDA: the kernels (NAME.cu, as ekb generated them, with the
// fixed-width types taken from <stdint.h> where nvcc compiles them), NAME_launch.cu, which runs the
// launch contract (NAME_launch), the header, a CMake project with CMake's CUDA language and the
// example. OpenCL: the kernels (NAME.cl, built at run time through the ICD loader), NAME_host.c, which
// builds the program and enqueues the launch contract, the header, a CMake project and the example.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <sstream>

#include "codegen/c_printer.h"
#include "codegen/dialect.h"
#include "io/export_parts.h"

namespace ekb::io::detail {

namespace {

// CUDA C as both NVRTC (ekb) and nvcc (the export) compile it: NVRTC has no C library, so ekb's
// CUDA prelude declares the fixed-width types itself; under nvcc <stdint.h> already has (int64_t is
// `long` there, a 64-bit type as `long long` is), and math.h's INFINITY and NAN are defined again.
codegen::Dialect cuda_for_nvcc() {
  codegen::Dialect d = codegen::cuda_dialect();
  std::istringstream in(d.device_prelude);
  std::string types, constants;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("typedef ", 0) == 0) {
      types += line + "\n";
    } else if (line.rfind("#define ", 0) == 0) {
      std::string macro = line.substr(8, line.find_first_of(" (", 8) - 8);
      constants += "#undef " + macro + "\n" + line + "\n";
    } else if (line.rfind("/*", 0) != 0) {
      constants += line + "\n";
    }
  }
  d.device_prelude =
      "/* fixed-width types and constants: declared here under NVRTC (no C library on the device), <stdint.h>'s under nvcc */\n"
      "#ifdef __CUDACC_RTC__\n" +
      types + "#else\n#include <stdint.h>\n#endif\n" + constants;
  return d;
}

const std::string& gpu_type(DType t) {
  static const std::string bits16 = "uint16_t (bfloat16 bits)";
  if (t == DType::bf16) return bits16;
  return host_c_type(t);
}

std::string libm_lines(const std::string& target) {
  return fmt::format("if(UNIX)  # the C math library\n  target_link_libraries({0} PRIVATE m)\nendif()\n", target);
}

// --- CUDA ---

std::string cuda_header(const ExportContext& c, const gpu::LaunchContract& contract) {
  const std::string& n = c.name;
  HeaderText h;
  h.title = fmt::format("{0}.h: the entry point of the CUDA kernels in {0}.cu and the layout of their tensors.", n);
  h.usage = fmt::format(
      " * {0}_launch(buffers, stream) runs the launch contract below on `stream`: buffers[] holds {0}_NUM_BUFFERS\n"
      " * device pointers (cudaMalloc), the inputs, the outputs and the scratch buffers in that order. It returns\n"
      " * the first launch error (cudaSuccess when all were queued); wait for the stream to see the results.\n",
      n);
  h.includes = "#include <cuda_runtime_api.h>\n#include <stdint.h>\n\n";
  h.body = tensor_layout(c, gpu_type);
  h.body += launch_contract_block(c, contract);
  h.body += fmt::format("\ncudaError_t {}_launch(void* const* buffers, cudaStream_t stream);\n", n);
  return c_header(c, h);
}

std::string cuda_launch_source(const ExportContext& c, const gpu::LaunchContract& contract) {
  const std::string& n = c.name;
  std::string out = fmt::format(
      "/* {0}_launch.cu: the launch contract of the kernels in {0}.cu, as the host runs it ({0}.h). */\n"
      "#include \"{0}.cu\"\n#include \"{0}.h\"\n\n"
      "extern \"C\" cudaError_t {0}_launch(void* const* buffers, cudaStream_t stream) {{\n"
      "  void* args[{0}_NUM_BUFFERS];\n"
      "  for (int i = 0; i < {0}_NUM_BUFFERS; ++i) args[i] = (void*)&buffers[i];\n"
      "  cudaError_t e;\n",
      n);
  for (const auto& l : contract.launches)
    out += fmt::format(
        "  e = cudaLaunchKernel((const void*){}, dim3({}, {}, {}), dim3({}, {}, {}), args, 0, stream);\n"
        "  if (e != cudaSuccess) return e;\n",
        l.kernel, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2]);
  out += "  return cudaSuccess;\n}\n";
  return out;
}

std::string cuda_main(const ExportContext& c) {
  const std::string& n = c.name;
  return fmt::format(
      "/* main.c: an example that runs kernel {0} (ekb export) on a CUDA device, prints its outputs' checksums\n"
      " * and the time of a call (launches and wait), and checks the outputs against ekb's reference:\n"
      " * `{0}_example --help`. */\n"
      "#include \"example_support.h\"\n#include \"{0}.h\"\n\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n{1}\n"
      "static void* buffers[{0}_NUM_BUFFERS];\n"
      "static int gpu = 0;\n\n"
      "static int failed(cudaError_t e, const char* what) {{\n"
      "  if (e == cudaSuccess) return 0;\n"
      "  fprintf(stderr, \"error: %s: %s\\n\", what, cudaGetErrorString(e));\n"
      "  return 1;\n}}\n\n"
      "static int option(void* ctx, const char* key, const char* value) {{\n"
      "  (void)ctx;\n"
      "  if (strcmp(key, \"--gpu\") != 0) return 0;\n"
      "  gpu = atoi(value);\n  return 1;\n}}\n\n"
      "static int prepare(void* ctx, ekb_tensor* t, int count) {{\n"
      "#if {0}_NUM_SCRATCH > 0\n"
      "  static const size_t scratch[] = {0}_SCRATCH_BYTES_LIST;\n"
      "#endif\n"
      "  struct cudaDeviceProp prop;\n"
      "  int i;\n"
      "  (void)ctx;\n"
      "  if (failed(cudaSetDevice(gpu), \"cudaSetDevice\") || failed(cudaGetDeviceProperties(&prop, gpu), \"cudaGetDeviceProperties\"))\n"
      "    return 1;\n"
      "  printf(\"device: %s (CUDA device %d, sm_%d%d)\\n\", prop.name, gpu, prop.major, prop.minor);\n"
      "  for (i = 0; i < count; ++i) {{\n"
      "    size_t bytes = ekb_tensor_bytes(&t[i]);\n"
      "    if (failed(cudaMalloc(&buffers[i], bytes ? bytes : 1), \"cudaMalloc\")) return 1;\n"
      "    if (!t[i].is_output && failed(cudaMemcpy(buffers[i], t[i].data, bytes, cudaMemcpyHostToDevice), \"cudaMemcpy\")) return 1;\n"
      "  }}\n"
      "#if {0}_NUM_SCRATCH > 0\n"
      "  for (i = 0; i < {0}_NUM_SCRATCH; ++i)\n"
      "    if (failed(cudaMalloc(&buffers[count + i], scratch[i]), \"cudaMalloc (scratch)\")) return 1;\n"
      "#endif\n"
      "  return 0;\n}}\n\n"
      "static int run(void* ctx, ekb_tensor* t, int count, int threads) {{\n"
      "  (void)ctx, (void)t, (void)count, (void)threads;\n"
      "  if (failed({0}_launch(buffers, 0), \"{0}_launch\")) return 1;\n"
      "  return failed(cudaStreamSynchronize(0), \"the kernels\");\n}}\n\n"
      "static int finish(void* ctx, ekb_tensor* t, int count) {{\n"
      "  int i;\n"
      "  (void)ctx;\n"
      "  for (i = 0; i < count; ++i)\n"
      "    if (t[i].is_output && failed(cudaMemcpy(t[i].data, buffers[i], ekb_tensor_bytes(&t[i]), cudaMemcpyDeviceToHost), \"cudaMemcpy\"))\n"
      "      return 1;\n"
      "  for (i = 0; i < {0}_NUM_BUFFERS; ++i) cudaFree(buffers[i]);\n"
      "  return 0;\n}}\n\n"
      "int main(int argc, char** argv) {{\n"
      "  static const ekb_example_ops ops = {{\" [--gpu N]\\n  --gpu N       the CUDA device (default 0)\", option, prepare, run, finish}};\n"
      "  return ekb_example_main(argc, argv, \"{0}\", tensors, (int)(sizeof tensors / sizeof tensors[0]), 1, &ops, NULL);\n"
      "}}\n",
      n, example_tensor_table(c));
}

std::string cuda_cmake(const ExportContext& c) {
  const std::string& n = c.name;
  std::string arch = c.options.cuda_architectures.empty() ? "90" : c.options.cuda_architectures;
  std::string out = cmake_intro(c, fmt::format("kernel {0} (ekb export) as a static library `{0}` (CUDA), and `{0}_example`.", n));
  out += fmt::format(
      "# Needs the CUDA toolkit (nvcc, the CUDA runtime). The GPUs it compiles for: CMAKE_CUDA_ARCHITECTURES\n"
      "# (default {1}; e.g. -DCMAKE_CUDA_ARCHITECTURES=87 for a Jetson Orin, or native).\n"
      "cmake_minimum_required(VERSION 3.18)\n"
      "if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)\n  set(CMAKE_CUDA_ARCHITECTURES {1})\nendif()\n"
      "project({0} LANGUAGES C CUDA)\n"
      "find_package(CUDAToolkit REQUIRED)\n\n"
      "# {0}_launch.cu includes the kernels ({0}.cu) and runs their launch contract.\n"
      "add_library({0} STATIC {0}_launch.cu)\n"
      "set_target_properties({0} PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON POSITION_INDEPENDENT_CODE ON)\n"
      "target_include_directories({0} PUBLIC ${{CMAKE_CURRENT_SOURCE_DIR}})\n"
      "target_link_libraries({0} PUBLIC CUDA::cudart)\n\n",
      n, arch);
  return out + cmake_example_target(n) + libm_lines(n + "_example");
}

// --- OpenCL ---

std::string opencl_header(const ExportContext& c, const gpu::LaunchContract& contract) {
  const std::string& n = c.name;
  HeaderText h;
  h.title = fmt::format("{0}.h: the entry points of the OpenCL kernels in {0}.cl and the layout of their tensors.", n);
  h.usage = fmt::format(
      " * {0}_build() builds the program from the text of {0}.cl for a device; {0}_enqueue() enqueues the\n"
      " * launch contract below on a queue, over {0}_NUM_BUFFERS buffers (the inputs, the outputs and the\n"
      " * scratch buffers, in that order); wait for the queue (clFinish) to see the results. A {0}_program\n"
      " * sets its kernels' arguments when it enqueues: use one per thread.\n",
      n);
  h.includes =
      "#ifndef CL_TARGET_OPENCL_VERSION\n#define CL_TARGET_OPENCL_VERSION 120\n#endif\n"
      "#include <CL/cl.h>\n#include <stddef.h>\n#include <stdint.h>\n\n";
  h.body = tensor_layout(c, gpu_type);
  h.body += launch_contract_block(c, contract);
  h.body += fmt::format(
      "#define {0}_NUM_KERNELS {1}\n\n"
      "typedef struct {{\n  cl_program program;\n  cl_kernel kernels[{0}_NUM_KERNELS];\n}} {0}_program;\n\n"
      "/* Builds the program (`source`: the text of {0}.cl, `length` bytes) for `device`. On a build error the\n"
      " * compiler's log goes to `log` (when not NULL). Returns CL_SUCCESS or the OpenCL error. */\n"
      "cl_int {0}_build(cl_context context, cl_device_id device, const char* source, size_t length, {0}_program* out,\n"
      "                 char* log, size_t log_size);\n"
      "cl_int {0}_enqueue(cl_command_queue queue, const {0}_program* program, const cl_mem* buffers);\n"
      "void {0}_release({0}_program* program);\n",
      n, contract.kernel_names().size());
  return c_header(c, h);
}

std::string opencl_host_source(const ExportContext& c, const gpu::LaunchContract& contract) {
  const std::string& n = c.name;
  std::vector<std::string> names = contract.kernel_names(), names_q, rows;
  for (const auto& k : names) names_q.push_back("\"" + k + "\"");
  for (const auto& l : contract.launches) {
    size_t index = std::find(names.begin(), names.end(), l.kernel) - names.begin();
    unsigned dims = 1;
    for (int d = 1; d < 3; ++d)
      if (l.grid[d] != 1 || l.block[d] != 1) dims = static_cast<unsigned>(d + 1);
    rows.push_back(fmt::format("    {{{}, {}, {{{}, {}, {}}}, {{{}, {}, {}}}}}", index, dims, uint64_t(l.grid[0]) * l.block[0],
                               uint64_t(l.grid[1]) * l.block[1], uint64_t(l.grid[2]) * l.block[2], l.block[0], l.block[1],
                               l.block[2]));
  }
  return fmt::format(
      "/* {0}_host.c: building the OpenCL program of kernel {0} and enqueueing its launch contract ({0}.h). */\n"
      "#include \"{0}.h\"\n\n#include <string.h>\n\n"
      "static const char* const kernel_names[{0}_NUM_KERNELS] = {{{1}}};\n"
      "/* Per launch: the kernel, the work dimensions, the global size (grid x block) and the work-group size. */\n"
      "static const struct {{\n  int kernel;\n  cl_uint dims;\n  size_t global[3], local[3];\n}} launches[{0}_NUM_LAUNCHES] = {{\n{2}\n}};\n\n"
      "void {0}_release({0}_program* p) {{\n"
      "  int k;\n"
      "  for (k = 0; k < {0}_NUM_KERNELS; ++k)\n"
      "    if (p->kernels[k]) clReleaseKernel(p->kernels[k]), p->kernels[k] = NULL;\n"
      "  if (p->program) clReleaseProgram(p->program), p->program = NULL;\n}}\n\n"
      "cl_int {0}_build(cl_context context, cl_device_id device, const char* source, size_t length, {0}_program* p,\n"
      "                 char* log, size_t log_size) {{\n"
      "  cl_int err;\n"
      "  int k;\n"
      "  memset(p, 0, sizeof *p);\n"
      "  p->program = clCreateProgramWithSource(context, 1, &source, &length, &err);\n"
      "  if (err != CL_SUCCESS) return err;\n"
      "  /* No options: the device's default OpenCL C version, as ekb builds it. */\n"
      "  err = clBuildProgram(p->program, 1, &device, \"\", NULL, NULL);\n"
      "  if (err != CL_SUCCESS) {{\n"
      "    if (log && log_size) {{\n"
      "      log[0] = 0;\n"
      "      clGetProgramBuildInfo(p->program, device, CL_PROGRAM_BUILD_LOG, log_size, log, NULL);\n"
      "      log[log_size - 1] = 0;\n"
      "    }}\n"
      "    {0}_release(p);\n"
      "    return err;\n"
      "  }}\n"
      "  for (k = 0; k < {0}_NUM_KERNELS; ++k) {{\n"
      "    p->kernels[k] = clCreateKernel(p->program, kernel_names[k], &err);\n"
      "    if (err != CL_SUCCESS) return {0}_release(p), err;\n"
      "  }}\n"
      "  return CL_SUCCESS;\n}}\n\n"
      "cl_int {0}_enqueue(cl_command_queue queue, const {0}_program* p, const cl_mem* buffers) {{\n"
      "  int l, a;\n"
      "  for (l = 0; l < {0}_NUM_LAUNCHES; ++l) {{\n"
      "    cl_kernel k = p->kernels[launches[l].kernel];\n"
      "    cl_int err;\n"
      "    for (a = 0; a < {0}_NUM_BUFFERS; ++a)\n"
      "      if ((err = clSetKernelArg(k, (cl_uint)a, sizeof(cl_mem), &buffers[a])) != CL_SUCCESS) return err;\n"
      "    err = clEnqueueNDRangeKernel(queue, k, launches[l].dims, NULL, launches[l].global, launches[l].local, 0, NULL, NULL);\n"
      "    if (err != CL_SUCCESS) return err;\n"
      "  }}\n"
      "  return CL_SUCCESS;\n}}\n",
      n, fmt::join(names_q, ", "), fmt::join(rows, ",\n"));
}

std::string opencl_main(const ExportContext& c) {
  const std::string& n = c.name;
  return fmt::format(
      "/* main.c: an example that runs kernel {0} (ekb export) on an OpenCL device, prints its outputs' checksums\n"
      " * and the time of a call (launches and wait), and checks the outputs against ekb's reference:\n"
      " * `{0}_example --help`. It builds the kernels from {0}.cl at run time. */\n"
      "#include \"example_support.h\"\n#include \"{0}.h\"\n\n#include <ctype.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n"
      "#ifndef {0}_CL_PATH\n#define {0}_CL_PATH \"{0}.cl\"\n#endif\n\n{1}\n"
      "static const char* platform_match = \"{2}\";\n"
      "static const char* source_path = {0}_CL_PATH;\n"
      "static cl_context context;\nstatic cl_command_queue queue;\nstatic cl_mem buffers[{0}_NUM_BUFFERS];\nstatic {0}_program program;\n\n"
      "static int failed(cl_int e, const char* what) {{\n"
      "  if (e == CL_SUCCESS) return 0;\n"
      "  fprintf(stderr, \"error: %s: OpenCL error %d\\n\", what, (int)e);\n"
      "  return 1;\n}}\n\n"
      "static int contains(const char* text, const char* part) {{ /* case-insensitive */\n"
      "  size_t n = strlen(part), i, j;\n"
      "  for (i = 0; n == 0 || text[i]; ++i) {{\n"
      "    for (j = 0; j < n && text[i + j] && tolower((unsigned char)text[i + j]) == tolower((unsigned char)part[j]); ++j) {{\n"
      "    }}\n"
      "    if (j == n) return 1;\n"
      "  }}\n"
      "  return 0;\n}}\n\n"
      "static int option(void* ctx, const char* key, const char* value) {{\n"
      "  (void)ctx;\n"
      "  if (strcmp(key, \"--platform\") == 0) return platform_match = value, 1;\n"
      "  if (strcmp(key, \"--source\") == 0) return source_path = value, 1;\n"
      "  return 0;\n}}\n\n"
      "static char* read_text(const char* path, size_t* length) {{\n"
      "  FILE* f = fopen(path, \"rb\");\n"
      "  char* text;\n"
      "  long n;\n"
      "  if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {{\n"
      "    if (f) fclose(f);\n"
      "    return NULL;\n"
      "  }}\n"
      "  text = (char*)malloc((size_t)n + 1);\n"
      "  *length = text ? fread(text, 1, (size_t)n, f) : 0;\n"
      "  fclose(f);\n"
      "  if (text) text[*length] = 0;\n"
      "  return text;\n}}\n\n"
      "/* The first GPU or CPU device of the first platform whose name contains platform_match. */\n"
      "static int pick_device(cl_device_id* device) {{\n"
      "  cl_platform_id platforms[16];\n"
      "  cl_uint count = 0, i;\n"
      "  char name[256];\n"
      "  if (failed(clGetPlatformIDs(16, platforms, &count), \"clGetPlatformIDs\")) return 1;\n"
      "  for (i = 0; i < count && i < 16; ++i) {{\n"
      "    cl_uint devices = 0;\n"
      "    clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);\n"
      "    if (!contains(name, platform_match)) continue;\n"
      "    if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_CPU, 1, device, &devices) != CL_SUCCESS || !devices)\n"
      "      continue;\n"
      "    printf(\"platform: %s\\n\", name);\n"
      "    return 0;\n"
      "  }}\n"
      "  fprintf(stderr, \"error: no OpenCL platform whose name contains \\\"%s\\\" has a GPU or CPU device (--platform)\\n\", platform_match);\n"
      "  return 1;\n}}\n\n"
      "static int prepare(void* ctx, ekb_tensor* t, int count) {{\n"
      "#if {0}_NUM_SCRATCH > 0\n"
      "  static const size_t scratch[] = {0}_SCRATCH_BYTES_LIST;\n"
      "#endif\n"
      "  static char log[1 << 16];\n"
      "  cl_device_id device;\n"
      "  cl_int err;\n"
      "  char name[256];\n"
      "  size_t length = 0;\n"
      "  char* source;\n"
      "  int i;\n"
      "  (void)ctx;\n"
      "  if (pick_device(&device)) return 1;\n"
      "  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, NULL);\n"
      "  printf(\"device: %s\\n\", name);\n"
      "  context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);\n"
      "  if (failed(err, \"clCreateContext\")) return 1;\n"
      "  queue = clCreateCommandQueue(context, device, 0, &err);\n"
      "  if (failed(err, \"clCreateCommandQueue\")) return 1;\n"
      "  if (!(source = read_text(source_path, &length))) {{\n"
      "    fprintf(stderr, \"error: cannot read %s (the kernels' source; --source FILE)\\n\", source_path);\n"
      "    return 1;\n"
      "  }}\n"
      "  err = {0}_build(context, device, source, length, &program, log, sizeof log);\n"
      "  free(source);\n"
      "  if (err != CL_SUCCESS) {{\n"
      "    fprintf(stderr, \"error: building %s: OpenCL error %d\\n%s\\n\", source_path, (int)err, log);\n"
      "    return 1;\n"
      "  }}\n"
      "  for (i = 0; i < count; ++i) {{\n"
      "    size_t bytes = ekb_tensor_bytes(&t[i]);\n"
      "    buffers[i] = clCreateBuffer(context, CL_MEM_READ_WRITE | (t[i].is_output ? 0 : CL_MEM_COPY_HOST_PTR), bytes ? bytes : 1,\n"
      "                                t[i].is_output ? NULL : t[i].data, &err);\n"
      "    if (failed(err, \"clCreateBuffer\")) return 1;\n"
      "  }}\n"
      "#if {0}_NUM_SCRATCH > 0\n"
      "  for (i = 0; i < {0}_NUM_SCRATCH; ++i) {{\n"
      "    buffers[count + i] = clCreateBuffer(context, CL_MEM_READ_WRITE, scratch[i], NULL, &err);\n"
      "    if (failed(err, \"clCreateBuffer (scratch)\")) return 1;\n"
      "  }}\n"
      "#endif\n"
      "  return 0;\n}}\n\n"
      "static int run(void* ctx, ekb_tensor* t, int count, int threads) {{\n"
      "  (void)ctx, (void)t, (void)count, (void)threads;\n"
      "  if (failed({0}_enqueue(queue, &program, buffers), \"{0}_enqueue\")) return 1;\n"
      "  return failed(clFinish(queue), \"the kernels\");\n}}\n\n"
      "static int finish(void* ctx, ekb_tensor* t, int count) {{\n"
      "  int i;\n"
      "  (void)ctx;\n"
      "  for (i = 0; i < count; ++i)\n"
      "    if (t[i].is_output &&\n"
      "        failed(clEnqueueReadBuffer(queue, buffers[i], CL_TRUE, 0, ekb_tensor_bytes(&t[i]), t[i].data, 0, NULL, NULL),\n"
      "               \"clEnqueueReadBuffer\"))\n"
      "      return 1;\n"
      "  for (i = 0; i < {0}_NUM_BUFFERS; ++i) clReleaseMemObject(buffers[i]);\n"
      "  {0}_release(&program);\n"
      "  clReleaseCommandQueue(queue);\n"
      "  clReleaseContext(context);\n"
      "  return 0;\n}}\n\n"
      "int main(int argc, char** argv) {{\n"
      "  static const ekb_example_ops ops = {{\" [--platform NAME] [--source FILE]\\n\"\n"
      "                                      \"  --platform NAME  the first platform whose name contains NAME (default \\\"{2}\\\")\\n\"\n"
      "                                      \"  --source FILE    the kernels' OpenCL C (default \" {0}_CL_PATH \")\",\n"
      "                                      option, prepare, run, finish}};\n"
      "  return ekb_example_main(argc, argv, \"{0}\", tensors, (int)(sizeof tensors / sizeof tensors[0]), 1, &ops, NULL);\n"
      "}}\n",
      n, example_tensor_table(c), c.options.opencl_platform);
}

std::string opencl_cmake(const ExportContext& c) {
  const std::string& n = c.name;
  std::string out =
      cmake_intro(c, fmt::format("kernel {0} (ekb export) as a static library `{0}` (OpenCL), and `{0}_example`.", n));
  out += fmt::format(
      "# Needs the OpenCL headers and ICD loader (Debian: ocl-icd-opencl-dev) and, to run, an OpenCL driver.\n"
      "cmake_minimum_required(VERSION 3.16)\n"
      "project({0} LANGUAGES C)\n"
      "find_package(OpenCL REQUIRED)\n\n"
      "# The kernels ({0}.cl) are built at run time; {0}_host.c builds them and enqueues their launches.\n"
      "add_library({0} STATIC {0}_host.c)\n"
      "set_target_properties({0} PROPERTIES C_STANDARD 11 POSITION_INDEPENDENT_CODE ON)\n"
      "target_include_directories({0} PUBLIC ${{CMAKE_CURRENT_SOURCE_DIR}})\n"
      "target_compile_definitions({0} PUBLIC CL_TARGET_OPENCL_VERSION=120)\n"
      "target_link_libraries({0} PUBLIC OpenCL::OpenCL)\n\n",
      n);
  std::string source_path =
      fmt::format("target_compile_definitions({0}_example PRIVATE {0}_CL_PATH=\"${{CMAKE_CURRENT_SOURCE_DIR}}/{0}.cl\")\n", n);
  return out + cmake_example_target(n, source_path) + libm_lines(n + "_example");
}

std::string gpu_readme(const ExportContext& c, bool cuda) {
  const std::string& n = c.name;
  ReadmeText r;
  r.files = cuda ? fmt::format("  {0}.cu            the kernels: ekb's generated CUDA C (the fixed-width types from <stdint.h> under nvcc)\n"
                               "  {0}_launch.cu     {0}_launch(): the launch contract, run on a stream\n",
                               n)
                 : fmt::format("  {0}.cl            the kernels: ekb's generated OpenCL C, exactly as ekb built and checked it\n"
                               "  {0}_host.c        {0}_build() and {0}_enqueue(): the program built at run time, the launch contract\n",
                               n);
  r.files += fmt::format("  {}.h              its entry points, every tensor's name, type, shape and layout, the launch contract\n", n);
  r.example = "runs the kernels, prints checksums and the time, checks the outputs";
  r.needs = cuda ? "the CUDA toolkit: nvcc, the runtime; a CUDA GPU to run" : "the OpenCL headers and ICD loader; an OpenCL driver to run";
  return readme_text(c, r);
}

}  // namespace

void add_gpu_files(const ExportContext& c, KernelExport& e) {
  bool cuda = c.kernel.target.backend == Backend::cuda;
  codegen::GpuProgram prog = cuda ? codegen::print_gpu(c.kernel, cuda_for_nvcc()) : codegen::print_gpu(c.kernel, codegen::opencl_dialect());
  std::string ext = cuda ? ".cu" : ".cl";
  std::string notice = fmt::format("/* {}{}: the kernels of {} as ekb generated them (see {}.h for their interface).\n{} */\n",
                                   c.name, ext, c.program.name, c.name, provenance(c, " * "));
  e.files.push_back({c.name + ext, notice + prog.source});
  if (cuda) {
    e.files.push_back({c.name + "_launch.cu", cuda_launch_source(c, prog.contract)});
    e.files.push_back({c.name + ".h", cuda_header(c, prog.contract)});
    e.files.push_back({"main.c", cuda_main(c)});
    e.files.push_back({"CMakeLists.txt", cuda_cmake(c)});
  } else {
    e.files.push_back({c.name + "_host.c", opencl_host_source(c, prog.contract)});
    e.files.push_back({c.name + ".h", opencl_header(c, prog.contract)});
    e.files.push_back({"main.c", opencl_main(c)});
    e.files.push_back({"CMakeLists.txt", opencl_cmake(c)});
  }
  e.files.push_back({"README.txt", gpu_readme(c, cuda)});
}

}  // namespace ekb::io::detail
