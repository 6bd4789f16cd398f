// The CUDA implementation of gpu_backend.h: NVRTC compiles for the device's own architecture, the
// driver API loads the cubin, holds the buffers, launches on the default stream and times with
// events recorded around all the launches of one run.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "runtime/gpu/cuda_driver.h"
#include "runtime/gpu/gpu_backend.h"
#include "runtime/gpu/nvrtc.h"

namespace ekb::gpu {

namespace {

class CudaBackend : public GpuBackend {
 public:
  CudaBackend(const CudaDriver& api, int ordinal) : api_(api) {
    check(api_.cuDeviceGet(&dev_, ordinal), "cuDeviceGet");
    check(api_.cuDevicePrimaryCtxRetain(&ctx_, dev_), "cuDevicePrimaryCtxRetain");
    check(api_.cuCtxSetCurrent(ctx_), "cuCtxSetCurrent");
    char name[256] = "";
    api_.cuDeviceGetName(name, sizeof name - 1, dev_);
    info_.api = "cuda";
    info_.name = name;
    info_.platform = "NVIDIA CUDA";
    int v = 0;
    api_.cuDriverGetVersion(&v);
    info_.version = fmt::format("CUDA driver {}.{}", v / 1000, (v % 1000) / 10);
    info_.arch = fmt::format("sm_{}{}", attr(kComputeCapabilityMajor), attr(kComputeCapabilityMinor));
    info_.max_threads_per_block = attr(kMaxThreadsPerBlock);
    info_.shared_memory_per_block = static_cast<uint64_t>(attr(kMaxSharedMemoryPerBlock));
    info_.registers_per_block = attr(kMaxRegistersPerBlock);
    info_.l2_bytes = static_cast<uint64_t>(attr(kL2CacheSize));
    info_.compute_units = attr(kMultiprocessorCount);
    size_t total = 0;
    api_.cuDeviceTotalMem(&total, dev_);
    info_.total_memory = total;
    check(api_.cuEventCreate(&start_, 0), "cuEventCreate");
    check(api_.cuEventCreate(&end_, 0), "cuEventCreate");
  }
  ~CudaBackend() override {
    for (size_t i = 0; i < buffers_.size(); ++i)
      if (owned_[i]) api_.cuMemFree(buffers_[i]);
    if (flush_) api_.cuMemFree(flush_);
    if (module_) api_.cuModuleUnload(module_);
    if (empty_module_) api_.cuModuleUnload(empty_module_);
    if (start_) api_.cuEventDestroy(start_);
    if (end_) api_.cuEventDestroy(end_);
  }

  const DeviceInfo& device() const override { return info_; }
  std::string compiler() const override { return "NVRTC " + nvrtc_version() + " for " + info_.arch; }

  std::vector<KernelInfo> compile(const std::string& source, const std::string& name,
                                  const std::vector<std::string>& kernels) override {
    NvrtcResult r = nvrtc_compile(source, name, info_.arch);
    if (!r.ok) throw GpuCompileError("NVRTC could not compile " + name, r.log);
    if (CUresult e = api_.cuModuleLoadData(&module_, r.cubin.data()); e != 0)
      throw GpuCompileError("the driver could not load the compiled module: " + api_.error(e), r.log);
    std::vector<KernelInfo> out;
    for (const auto& k : kernels) {
      CUfunction f = nullptr;
      if (api_.cuModuleGetFunction(&f, module_, k.c_str()) != 0)
        throw GpuCompileError(fmt::format("the program has no kernel `{}` (a CUDA kernel needs extern \"C\" __global__)", k), r.log);
      functions_.push_back({k, f});
      KernelInfo ki;
      ki.name = k;
      ki.registers_per_thread = fattr(f, kFuncNumRegs);
      ki.static_shared_bytes = static_cast<uint64_t>(fattr(f, kFuncSharedSizeBytes));
      ki.max_threads_per_block = fattr(f, kFuncMaxThreadsPerBlock);
      out.push_back(ki);
    }
    return out;
  }

  size_t alloc(size_t bytes) override {
    CUdeviceptr p = 0;
    check(api_.cuMemAlloc(&p, std::max<size_t>(bytes, 256)), fmt::format("cuMemAlloc of {} bytes", bytes));
    buffers_.push_back(p);
    owned_.push_back(true);
    return buffers_.size() - 1;
  }
  size_t view(size_t of, size_t offset, size_t bytes) override {
    (void)bytes;
    buffers_.push_back(buffers_.at(of) + offset);
    owned_.push_back(false);
    return buffers_.size() - 1;
  }
  void upload(size_t b, const void* host, size_t bytes) override {
    if (bytes) check(api_.cuMemcpyHtoD(buffers_.at(b), host, bytes), "cuMemcpyHtoD");
  }
  void download(size_t b, void* host, size_t bytes, size_t offset) override {
    if (bytes) check(api_.cuMemcpyDtoH(host, buffers_.at(b) + offset, bytes), "cuMemcpyDtoH");
  }
  void fill(size_t b, unsigned char byte, size_t bytes, size_t offset) override {
    if (bytes) check(api_.cuMemsetD8(buffers_.at(b) + offset, byte, bytes), "cuMemsetD8");
    check(api_.cuCtxSynchronize(), "cuCtxSynchronize");
  }

  double run(const std::vector<Launch>& launches, const std::vector<size_t>& args, bool locate,
             const std::function<void(size_t)>& on_launch) override {
    std::vector<CUdeviceptr> ptrs;
    for (size_t a : args) ptrs.push_back(buffers_.at(a));
    std::vector<void*> params;
    for (auto& p : ptrs) params.push_back(&p);
    return timed([&] {
      for (size_t i = 0; i < launches.size(); ++i) {
        const Launch& l = launches[i];
        CUfunction f = function(l.kernel);
        std::string where = fmt::format("launch {} of {} ({}, grid {}x{}x{}, block {}x{}x{})", i + 1, launches.size(), l.kernel,
                                        l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2]);
        check(api_.cuLaunchKernel(f, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2], 0, nullptr,
                                  params.data(), nullptr),
              where);
        if (on_launch) on_launch(i);
        if (locate) check(api_.cuCtxSynchronize(), where);
      }
    });
  }

  void prepare_empty_kernel() override {
    if (empty_) return;
    NvrtcResult r = nvrtc_compile(kEmptyKernelCuda, "ekb_empty_kernel.cu", info_.arch);
    if (!r.ok) throw GpuCompileError("NVRTC could not compile the empty kernel", r.log);
    if (CUresult e = api_.cuModuleLoadData(&empty_module_, r.cubin.data()); e != 0)
      throw GpuCompileError("the driver could not load the empty kernel: " + api_.error(e), r.log);
    if (CUresult e = api_.cuModuleGetFunction(&empty_, empty_module_, kEmptyKernelName); e != 0)
      throw GpuCompileError("the empty kernel's module has no kernel: " + api_.error(e), r.log);
  }

  double run_empty_kernel() override {
    if (!empty_) throw GpuError("the empty kernel was not built");
    return timed([&] { check(api_.cuLaunchKernel(empty_, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr), "launch of the empty kernel"); });
  }

  void flush_cache() override {
    const size_t bytes = cache_flush_bytes(info_);
    if (!flush_) check(api_.cuMemAlloc(&flush_, bytes), "cuMemAlloc (cache flush buffer)");
    check(api_.cuMemsetD8(flush_, static_cast<unsigned char>(++flush_byte_), bytes), "cuMemsetD8 (cache flush)");
    check(api_.cuCtxSynchronize(), "cuCtxSynchronize after the cache flush");
  }

 private:
  // The device idle, an event, the launches, an event, the device idle: the time between the events.
  template <typename F>
  double timed(F&& launches) {
    check(api_.cuCtxSynchronize(), "cuCtxSynchronize before the launches");
    check(api_.cuEventRecord(start_, nullptr), "cuEventRecord");
    launches();
    check(api_.cuEventRecord(end_, nullptr), "cuEventRecord");
    check(api_.cuEventSynchronize(end_), "running the kernels");
    check(api_.cuCtxSynchronize(), "cuCtxSynchronize after the launches");
    float ms = 0;
    check(api_.cuEventElapsedTime(&ms, start_, end_), "cuEventElapsedTime");
    return ms;
  }

  const CudaDriver& api_;
  CUdevice dev_ = 0;
  CUcontext ctx_ = nullptr;
  CUmodule module_ = nullptr;
  CUmodule empty_module_ = nullptr;  // the empty kernel's (prepare_empty_kernel)
  CUfunction empty_ = nullptr;
  CUevent start_ = nullptr, end_ = nullptr;
  CUdeviceptr flush_ = 0;
  unsigned flush_byte_ = 0;
  DeviceInfo info_;
  std::vector<CUdeviceptr> buffers_;
  std::vector<bool> owned_;  // allocated here (else a view into another)
  std::vector<std::pair<std::string, CUfunction>> functions_;

  void check(CUresult r, const std::string& what) const {
    if (r != 0) throw GpuError(what + ": " + api_.error(r));
  }
  int attr(int a) const {
    int v = 0;
    api_.cuDeviceGetAttribute(&v, a, dev_);
    return v;
  }
  int fattr(CUfunction f, int a) const {
    int v = 0;
    api_.cuFuncGetAttribute(&v, a, f);
    return v;
  }
  CUfunction function(const std::string& name) const {
    for (const auto& [n, f] : functions_)
      if (n == name) return f;
    throw GpuError(fmt::format("no compiled kernel `{}`", name));
  }
};

}  // namespace

std::unique_ptr<GpuBackend> make_cuda_backend(int ordinal, std::string* why) {
  const CudaDriver* api = cuda_driver(why);
  if (!api) return nullptr;
  std::string nv;
  if (!nvrtc_available(&nv)) {
    if (why) *why = nv;
    return nullptr;
  }
  int n = 0;
  api->cuDeviceGetCount(&n);
  if (ordinal < 0 || ordinal >= n) {
    if (why) *why = fmt::format("no CUDA device {} (there are {})", ordinal, n);
    return nullptr;
  }
  try {
    return std::make_unique<CudaBackend>(*api, ordinal);
  } catch (const GpuError& e) {
    if (why) *why = e.what();
    return nullptr;
  }
}

}  // namespace ekb::gpu
