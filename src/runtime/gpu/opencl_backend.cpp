// GpuBackend (gpu_backend.h) on OpenCL through the ICD loader (opencl_api.h): one platform's first
// device, one in-order queue with profiling, one program, one cl_mem per buffer. Launches are timed
// with the queue's profiling events, from the first kernel's start to the last one's end.
// Not for a process that holds ekb's LLVM (ekb_cpu): PoCL's compiler would bind to its libclang-cpp
// and crash; ekb makes these backends only in ekb-gpu-worker, which links no LLVM.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <regex>
#include <utility>

#include "runtime/gpu/gpu_backend.h"
#include "runtime/gpu/opencl_api.h"

namespace ekb::gpu {

namespace {

void check(cl_int r, const char* call) {
  if (r != CL_SUCCESS) throw GpuError(fmt::format("{}: {}", call, cl_error_name(r)));
}

// A char[] query (clGet*Info) as a string, without its terminating NULs and trailing blanks.
template <typename Query>
std::string info_string(Query query) {
  size_t n = 0;
  if (query(0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  if (query(n, s.data(), nullptr) != CL_SUCCESS) return {};
  while (!s.empty() && (s.back() == '\0' || std::isspace(static_cast<unsigned char>(s.back())))) s.pop_back();
  return s;
}

// The build log with the name the implementation gave the source (PoCL: a temporary file in its
// cache, "<cache>/tempfile_Ab12Cd.cl"; NVIDIA: "<kernel>") replaced by `name`, as NVRTC's log has it.
std::string name_source_in_log(const std::string& log, const std::string& name) {
  static const std::regex source_name(R"((\S*/tempfile_\w+\.cl|<kernel>|<source>)(?=:\d))");
  return std::regex_replace(log, source_name, name);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

class OpenClBackend : public GpuBackend {
 public:
  OpenClBackend(const OpenClApi* cl, cl_platform_id platform, cl_device_id device) : cl_(cl), device_id_(device) {
    auto dev_string = [&](cl_device_info p) {
      return info_string([&](size_t n, void* v, size_t* r) { return cl_->clGetDeviceInfo(device, p, n, v, r); });
    };
    info_.api = "opencl";
    info_.name = dev_string(CL_DEVICE_NAME);
    info_.platform = info_string(
        [&](size_t n, void* v, size_t* r) { return cl_->clGetPlatformInfo(platform, CL_PLATFORM_NAME, n, v, r); });
    driver_version_ = dev_string(CL_DRIVER_VERSION);
    info_.version = fmt::format("{}, driver {}", dev_string(CL_DEVICE_VERSION), driver_version_);
    info_.max_threads_per_block =
        static_cast<int>(std::min<size_t>(value<size_t>(CL_DEVICE_MAX_WORK_GROUP_SIZE), 1u << 30));
    info_.shared_memory_per_block = value<cl_ulong>(CL_DEVICE_LOCAL_MEM_SIZE);
    info_.total_memory = value<cl_ulong>(CL_DEVICE_GLOBAL_MEM_SIZE);
    info_.l2_bytes = value<cl_ulong>(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
    info_.compute_units = static_cast<int>(value<cl_uint>(CL_DEVICE_MAX_COMPUTE_UNITS));
    info_.host_cpu = (value<cl_device_type>(CL_DEVICE_TYPE) & CL_DEVICE_TYPE_CPU) != 0;

    cl_int err = CL_SUCCESS;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(platform), 0};
    context_ = cl_->clCreateContext(props, 1, &device_id_, nullptr, nullptr, &err);
    check(err, "clCreateContext");
    queue_ = cl_->clCreateCommandQueue(context_, device_id_, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) {
      cl_->clReleaseContext(context_);  // the destructor does not run for a constructor that throws
      check(err, "clCreateCommandQueue");
    }
  }

  ~OpenClBackend() override {
    if (queue_) cl_->clFinish(queue_);
    release_program();
    if (empty_kernel_) cl_->clReleaseKernel(empty_kernel_);
    if (empty_program_) cl_->clReleaseProgram(empty_program_);
    for (cl_mem m : buffers_) cl_->clReleaseMemObject(m);
    if (scratch_) cl_->clReleaseMemObject(scratch_);
    if (queue_) cl_->clReleaseCommandQueue(queue_);
    if (context_) cl_->clReleaseContext(context_);
  }

  const DeviceInfo& device() const override { return info_; }
  std::string compiler() const override { return fmt::format("OpenCL C ({} {})", info_.platform, driver_version_); }

  std::vector<KernelInfo> compile(const std::string& source, const std::string& name,
                                  const std::vector<std::string>& kernels) override {
    release_program();
    cl_int err = CL_SUCCESS;
    const char* text = source.c_str();
    size_t length = source.size();
    program_ = cl_->clCreateProgramWithSource(context_, 1, &text, &length, &err);
    if (err != CL_SUCCESS) {
      program_ = nullptr;
      throw GpuCompileError(fmt::format("{}: clCreateProgramWithSource: {}", name, cl_error_name(err)), "");
    }
    // No options: the device's default OpenCL C version (the highest 1.x it supports).
    err = cl_->clBuildProgram(program_, 1, &device_id_, "", nullptr, nullptr);
    std::string log = name_source_in_log(info_string([&](size_t n, void* v, size_t* r) {
      return cl_->clGetProgramBuildInfo(program_, device_id_, CL_PROGRAM_BUILD_LOG, n, v, r);
    }), name);
    if (err != CL_SUCCESS)
      throw GpuCompileError(fmt::format("{}: the OpenCL build failed ({})", name, cl_error_name(err)), log);
    // Asking for the program's binary makes the driver finish compiling now. PoCL (with work-group
    // specialization off, as the GPU worker sets it) then builds and links each kernel's work-group
    // function here, not at the first launch, when the worker's sandbox no longer lets it run `ld`.
    size_t binary_bytes = 0;
    if (cl_->clGetProgramInfo(program_, CL_PROGRAM_BINARY_SIZES, sizeof binary_bytes, &binary_bytes, nullptr) == CL_SUCCESS &&
        binary_bytes > 0) {
      std::vector<unsigned char> binary(binary_bytes);
      unsigned char* where = binary.data();
      cl_->clGetProgramInfo(program_, CL_PROGRAM_BINARIES, sizeof where, &where, nullptr);
    }

    std::vector<KernelInfo> out;
    for (const auto& k : kernels) {
      cl_kernel kernel = cl_->clCreateKernel(program_, k.c_str(), &err);
      if (err != CL_SUCCESS) {
        std::string there = info_string([&](size_t n, void* v, size_t* r) {
          return cl_->clGetProgramInfo(program_, CL_PROGRAM_KERNEL_NAMES, n, v, r);
        });
        std::replace(there.begin(), there.end(), ';', ' ');
        throw GpuCompileError(fmt::format("{}: no kernel '{}' ({}); the program defines: {}", name, k,
                                          cl_error_name(err), there.empty() ? "none" : there),
                              log);
      }
      kernels_.emplace_back(k, kernel);
      KernelInfo ki;
      ki.name = k;
      size_t wg = 0;
      cl_ulong local = 0;
      check(cl_->clGetKernelWorkGroupInfo(kernel, device_id_, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr),
            "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)");
      check(cl_->clGetKernelWorkGroupInfo(kernel, device_id_, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local, &local, nullptr),
            "clGetKernelWorkGroupInfo(CL_KERNEL_LOCAL_MEM_SIZE)");
      ki.max_threads_per_block = static_cast<int>(std::min<size_t>(wg, 1u << 30));
      ki.static_shared_bytes = local;
      out.push_back(std::move(ki));
    }
    return out;
  }

  size_t alloc(size_t bytes) override {
    cl_int err = CL_SUCCESS;
    cl_mem m = cl_->clCreateBuffer(context_, CL_MEM_READ_WRITE, std::max<size_t>(bytes, 1), nullptr, &err);
    if (err != CL_SUCCESS) throw GpuError(fmt::format("clCreateBuffer({} bytes): {}", bytes, cl_error_name(err)));
    buffers_.push_back(m);
    sizes_.push_back(bytes);
    return buffers_.size() - 1;
  }

  size_t view(size_t of, size_t offset, size_t bytes) override {
    cl_mem parent = buffer_at(of, offset + bytes, "view");
    struct {
      size_t origin, size;
    } region{offset, std::max<size_t>(bytes, 1)};
    cl_int err = CL_SUCCESS;
    cl_mem m = cl_->clCreateSubBuffer(parent, CL_MEM_READ_WRITE, kBufferCreateTypeRegion, &region, &err);
    if (err != CL_SUCCESS) throw GpuError(fmt::format("clCreateSubBuffer({} bytes at {}): {}", bytes, offset, cl_error_name(err)));
    buffers_.push_back(m);
    sizes_.push_back(bytes);
    return buffers_.size() - 1;
  }

  void upload(size_t buffer, const void* host, size_t bytes) override {
    cl_mem m = buffer_at(buffer, bytes, "upload");
    if (bytes == 0) return;
    check(cl_->clEnqueueWriteBuffer(queue_, m, CL_TRUE, 0, bytes, host, 0, nullptr, nullptr), "clEnqueueWriteBuffer");
  }

  void download(size_t buffer, void* host, size_t bytes, size_t offset) override {
    cl_mem m = buffer_at(buffer, offset + bytes, "download");
    if (bytes == 0) return;
    check(cl_->clEnqueueReadBuffer(queue_, m, CL_TRUE, offset, bytes, host, 0, nullptr, nullptr), "clEnqueueReadBuffer");
  }

  void fill(size_t buffer, unsigned char byte, size_t bytes, size_t offset) override {
    cl_mem m = buffer_at(buffer, offset + bytes, "fill");
    if (bytes == 0) return;
    check(cl_->clEnqueueFillBuffer(queue_, m, &byte, 1, offset, bytes, 0, nullptr, nullptr), "clEnqueueFillBuffer");
    check(cl_->clFinish(queue_), "clFinish");
  }

  double run(const std::vector<Launch>& launches, const std::vector<size_t>& args, bool locate,
             const std::function<void(size_t)>& on_launch) override {
    if (launches.empty()) return 0;
    std::vector<cl_mem> mems;
    for (size_t a : args) mems.push_back(buffer_at(a, 0, "run"));
    return timed(launches, [&](const Launch& l) { return kernel(l.kernel); }, mems, locate, on_launch);
  }

  void prepare_empty_kernel() override {
    if (empty_kernel_) return;
    cl_int err = CL_SUCCESS;
    const char* text = kEmptyKernelOpenCl;
    size_t length = std::strlen(text);
    empty_program_ = cl_->clCreateProgramWithSource(context_, 1, &text, &length, &err);
    if (err != CL_SUCCESS) {
      empty_program_ = nullptr;
      throw GpuCompileError(fmt::format("the empty kernel: clCreateProgramWithSource: {}", cl_error_name(err)), "");
    }
    err = cl_->clBuildProgram(empty_program_, 1, &device_id_, "", nullptr, nullptr);
    if (err != CL_SUCCESS) throw GpuCompileError(fmt::format("the empty kernel: the OpenCL build failed ({})", cl_error_name(err)), "");
    // (Its binary asked for now, as a candidate's: PoCL then links it before the sandbox.)
    size_t binary_bytes = 0;
    if (cl_->clGetProgramInfo(empty_program_, CL_PROGRAM_BINARY_SIZES, sizeof binary_bytes, &binary_bytes, nullptr) == CL_SUCCESS &&
        binary_bytes > 0) {
      std::vector<unsigned char> binary(binary_bytes);
      unsigned char* where = binary.data();
      cl_->clGetProgramInfo(empty_program_, CL_PROGRAM_BINARIES, sizeof where, &where, nullptr);
    }
    empty_kernel_ = cl_->clCreateKernel(empty_program_, kEmptyKernelName, &err);
    if (err != CL_SUCCESS) {
      empty_kernel_ = nullptr;
      throw GpuCompileError(fmt::format("the empty kernel: clCreateKernel: {}", cl_error_name(err)), "");
    }
  }

  double run_empty_kernel() override {
    if (!empty_kernel_) throw GpuError("the empty kernel was not built");
    Launch l;
    l.kernel = kEmptyKernelName;
    return timed({l}, [&](const Launch&) { return empty_kernel_; }, {}, false, {});
  }

  void flush_cache() override {
    if (!scratch_) {
      scratch_bytes_ = cache_flush_bytes(info_);
      cl_int err = CL_SUCCESS;
      scratch_ = cl_->clCreateBuffer(context_, CL_MEM_READ_WRITE, scratch_bytes_, nullptr, &err);
      if (err != CL_SUCCESS) {
        scratch_ = nullptr;
        throw GpuError(fmt::format("clCreateBuffer(cache flush, {} bytes): {}", scratch_bytes_, cl_error_name(err)));
      }
    }
    unsigned char byte = ++flushes_;  // a new value each time, so no write can be skipped as unchanged
    check(cl_->clEnqueueFillBuffer(queue_, scratch_, &byte, 1, 0, scratch_bytes_, 0, nullptr, nullptr),
          "clEnqueueFillBuffer(cache flush)");
    check(cl_->clFinish(queue_), "clFinish");
  }

 private:
  // The launches timed by the queue's profiling: the device idle before (clFinish), each kernel given
  // every buffer of `mems`, the device idle after; from the first kernel's start to the last one's end.
  double timed(const std::vector<Launch>& launches, const std::function<cl_kernel(const Launch&)>& kernel_of,
               const std::vector<cl_mem>& mems, bool locate, const std::function<void(size_t)>& on_launch) {
    check(cl_->clFinish(queue_), "clFinish");
    Events events{cl_, {}};
    for (size_t li = 0; li < launches.size(); ++li) {
      const Launch& l = launches[li];
      cl_kernel k = kernel_of(l);
      for (size_t i = 0; i < mems.size(); ++i)
        if (cl_int r = cl_->clSetKernelArg(k, static_cast<cl_uint>(i), sizeof(cl_mem), &mems[i]); r != CL_SUCCESS)
          throw GpuError(fmt::format("clSetKernelArg({}, argument {}): {}", l.kernel, i, cl_error_name(r)));
      size_t global[3], local[3];
      cl_uint dims = 1;
      for (int d = 0; d < 3; ++d) {
        global[d] = size_t(l.grid[d]) * l.block[d];
        local[d] = l.block[d];
        if (d > 0 && (l.grid[d] != 1 || l.block[d] != 1)) dims = static_cast<cl_uint>(d + 1);
      }
      std::string where = fmt::format("launch {} of {} ({}, grid {}x{}x{}, block {}x{}x{})", li + 1, launches.size(), l.kernel,
                                      l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2]);
      cl_event e = nullptr;
      cl_int r = cl_->clEnqueueNDRangeKernel(queue_, k, dims, nullptr, global, local, 0, nullptr, &e);
      if (r != CL_SUCCESS) {
        cl_->clFinish(queue_);
        throw GpuError(fmt::format("{}: clEnqueueNDRangeKernel: {}", where, cl_error_name(r)));
      }
      events.list.push_back(e);
      if (on_launch) on_launch(li);
      if (locate) {
        check(cl_->clFinish(queue_), where.c_str());
        check(cl_->clWaitForEvents(1, &e), where.c_str());
      }
    }
    check(cl_->clFinish(queue_), "clFinish");
    // A kernel that failed on the device reports it through its event's status here.
    check(cl_->clWaitForEvents(static_cast<cl_uint>(events.list.size()), events.list.data()), "clWaitForEvents");
    cl_ulong start = 0, end = 0;
    check(cl_->clGetEventProfilingInfo(events.list.front(), CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr),
          "clGetEventProfilingInfo(CL_PROFILING_COMMAND_START)");
    check(cl_->clGetEventProfilingInfo(events.list.back(), CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr),
          "clGetEventProfilingInfo(CL_PROFILING_COMMAND_END)");
    return end > start ? double(end - start) / 1e6 : 0.0;
  }

  // The events of one run, released however it ends.
  struct Events {
    const OpenClApi* cl;
    std::vector<cl_event> list;
    ~Events() {
      for (cl_event e : list) cl->clReleaseEvent(e);
    }
  };

  template <typename T>
  T value(cl_device_info p) const {
    T v{};
    if (cl_->clGetDeviceInfo(device_id_, p, sizeof v, &v, nullptr) != CL_SUCCESS) return T{};
    return v;
  }

  cl_mem buffer_at(size_t buffer, size_t bytes, const char* what) const {
    if (buffer >= buffers_.size())
      throw GpuError(fmt::format("{}: no buffer {} (there are {})", what, buffer, buffers_.size()));
    if (bytes > sizes_[buffer])
      throw GpuError(fmt::format("{}: {} bytes into buffer {} of {}", what, bytes, buffer, sizes_[buffer]));
    return buffers_[buffer];
  }

  cl_kernel kernel(const std::string& name) const {
    for (const auto& [n, k] : kernels_)
      if (n == name) return k;
    throw GpuError(fmt::format("run: no compiled kernel '{}'", name));
  }

  void release_program() {
    for (auto& nk : kernels_) cl_->clReleaseKernel(nk.second);
    kernels_.clear();
    if (program_) cl_->clReleaseProgram(program_);
    program_ = nullptr;
  }

  const OpenClApi* cl_;
  cl_device_id device_id_;
  DeviceInfo info_;
  std::string driver_version_;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  cl_program empty_program_ = nullptr;  // the empty kernel's (prepare_empty_kernel)
  cl_kernel empty_kernel_ = nullptr;
  std::vector<std::pair<std::string, cl_kernel>> kernels_;
  std::vector<cl_mem> buffers_;
  std::vector<size_t> sizes_;
  cl_mem scratch_ = nullptr;
  uint64_t scratch_bytes_ = 0;
  unsigned char flushes_ = 0;
};

}  // namespace

std::unique_ptr<GpuBackend> make_opencl_backend(const std::string& platform_match, std::string* why) {
  auto fail = [&](std::string w) -> std::unique_ptr<GpuBackend> {
    if (why) *why = std::move(w);
    return nullptr;
  };
  const OpenClApi* cl = opencl_api(why);
  if (!cl) return nullptr;
  cl_uint n = 0;
  cl_int r = cl->clGetPlatformIDs(0, nullptr, &n);
  if (r != CL_SUCCESS || n == 0)
    return fail(fmt::format("no OpenCL platform (clGetPlatformIDs: {})", r != CL_SUCCESS ? cl_error_name(r) : "none"));
  std::vector<cl_platform_id> platforms(n);
  if (r = cl->clGetPlatformIDs(n, platforms.data(), nullptr); r != CL_SUCCESS)
    return fail(fmt::format("no OpenCL platform (clGetPlatformIDs: {})", cl_error_name(r)));

  std::string there;  // the platforms there are, for the message when none fits
  const std::string want = lower(platform_match);
  for (cl_platform_id p : platforms) {
    std::string name = info_string(
        [&](size_t sz, void* v, size_t* rs) { return cl->clGetPlatformInfo(p, CL_PLATFORM_NAME, sz, v, rs); });
    cl_uint devices = 0;
    r = cl->clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &devices);
    if (r != CL_SUCCESS) devices = 0;  // CL_DEVICE_NOT_FOUND among others
    there += fmt::format("{}'{}' ({} device{})", there.empty() ? "" : ", ", name, devices, devices == 1 ? "" : "s");
    if (devices == 0 || lower(name).find(want) == std::string::npos) continue;
    cl_device_id device = nullptr;
    if (cl->clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) != CL_SUCCESS) continue;
    try {
      return std::make_unique<OpenClBackend>(cl, p, device);
    } catch (const GpuError& e) {
      return fail(fmt::format("OpenCL platform '{}': {}", name, e.what()));
    }
  }
  if (platform_match.empty()) return fail(fmt::format("no OpenCL platform has a device (there are: {})", there));
  return fail(fmt::format("no OpenCL platform with a device matches '{}' (there are: {})", platform_match, there));
}

}  // namespace ekb::gpu
