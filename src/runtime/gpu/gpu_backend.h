// One GPU API as the GPU worker (gpu_worker_main.cpp) sees it: compile a program of one or more
// kernels, hold device buffers, run the program's launches in order and time them on the device,
// flush the device's last-level cache. Two implementations, CUDA (driver API + NVRTC) and OpenCL
// (the ICD loader: NVIDIA's OpenCL, PoCL), both loaded at run time, so that ekb builds and runs
// where neither is present.
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ekb::gpu {

// One kernel launch: the kernel's name and its grid (blocks / work-groups) and block (threads /
// work-items per group) sizes. OpenCL's global size is grid * block per axis.
struct Launch {
  std::string kernel;
  std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  uint64_t threads_per_block() const { return uint64_t(block[0]) * block[1] * block[2]; }
};

// What the device is and allows.
struct DeviceInfo {
  std::string api;     // "cuda" or "opencl"
  std::string name;    // the device's name
  std::string platform;  // OpenCL platform name; "NVIDIA CUDA" for CUDA
  std::string version;   // driver / OpenCL version text
  std::string arch;      // "sm_90" for CUDA; empty for OpenCL
  int max_threads_per_block = 0;
  uint64_t shared_memory_per_block = 0;  // bytes (OpenCL: local memory)
  int registers_per_block = 0;           // 0 when the API does not say (OpenCL)
  uint64_t total_memory = 0;             // bytes
  uint64_t l2_bytes = 0;                 // last-level cache of the device (OpenCL: global memory cache)
  int compute_units = 0;
  bool host_cpu = false;                 // an OpenCL device that is this machine's CPU (PoCL)
};

// The buffer a cache flush writes: twice the device's last-level cache, 8 MiB at least. A device that
// is the host's CPU reports the CPU's last-level cache, which virtual machines overstate (480 MiB seen,
// a 1 GiB flush that took seconds under load): 64 MiB at most there, as for the CPU harness; 512 MiB
// at most on a GPU (an H200's L2 is 60 MiB).
inline uint64_t cache_flush_bytes(const DeviceInfo& d) {
  const uint64_t most = d.host_cpu ? uint64_t(64) << 20 : uint64_t(512) << 20;
  return std::clamp<uint64_t>(2 * d.l2_bytes, uint64_t(8) << 20, most);
}

// What the compiler says about one compiled kernel (0 where the API does not say).
struct KernelInfo {
  std::string name;
  int registers_per_thread = 0;
  uint64_t static_shared_bytes = 0;
  int max_threads_per_block = 0;  // for this kernel, given its resource use
};

// A failed compile: the message, and the compiler's log with line numbers.
struct GpuCompileError : std::runtime_error {
  std::string log;
  GpuCompileError(const std::string& what, std::string log_) : std::runtime_error(what), log(std::move(log_)) {}
};

// An API call that failed after set-up (a launch, a copy, an allocation): the call and the API's error.
struct GpuError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class GpuBackend {
 public:
  virtual ~GpuBackend() = default;
  virtual const DeviceInfo& device() const = 0;
  // The compiler's name and version, for the record ("NVRTC 13.0", "OpenCL C (PoCL 3.1 ...)").
  virtual std::string compiler() const = 0;

  // Compiles `source` (one program; file name `name` in messages) and looks up `kernels`. Once per
  // backend object. Throws GpuCompileError.
  virtual std::vector<KernelInfo> compile(const std::string& source, const std::string& name,
                                          const std::vector<std::string>& kernels) = 0;

  // Device buffers, by index in the order allocated. Throws GpuError (e.g. out of device memory).
  virtual size_t alloc(size_t bytes) = 0;
  // A buffer that is `bytes` of buffer `of` from `offset` on (a multiple of 4096): a kernel given it
  // writes into `of`, so a write past it lands in the bytes around it (guard zones).
  virtual size_t view(size_t of, size_t offset, size_t bytes) = 0;
  virtual void upload(size_t buffer, const void* host, size_t bytes) = 0;
  // `bytes` of the buffer from byte `offset` on (read back; set to `byte`).
  virtual void download(size_t buffer, void* host, size_t bytes, size_t offset = 0) = 0;
  virtual void fill(size_t buffer, unsigned char byte, size_t bytes, size_t offset = 0) = 0;

  // Runs `launches` in order, every kernel taking `args` (buffer indices) as its parameters, and
  // waits for them. The whole device is idle before the first launch and after the last; the time
  // returned is the device's, in ms, from the start of the first kernel to the end of the last.
  // Throws GpuError when a launch fails (an illegal address in the kernel, a launch beyond limits),
  // naming the launch when `locate` (each launch is then waited for before the next: untimed calls
  // only). `on_launch(i)` (when given) hears of launch i before it is waited for.
  virtual double run(const std::vector<Launch>& launches, const std::vector<size_t>& args, bool locate = false,
                     const std::function<void(size_t)>& on_launch = {}) = 0;

  // Evicts the device's last-level cache (writes a buffer twice its size) and waits.
  virtual void flush_cache() = 0;

  // The launch floor: an empty kernel (no arguments, one thread) built apart from the program, and
  // run and timed exactly as run() times a program's launches (the device idle before and after,
  // the same events around the launch), so that its time is what any call costs doing nothing.
  // prepare_empty_kernel builds it (before the worker's sandbox: PoCL links with `ld`; throws
  // GpuCompileError); run_empty_kernel times one launch of it (throws GpuError when unprepared).
  virtual void prepare_empty_kernel() = 0;
  virtual double run_empty_kernel() = 0;
};

// The empty kernel's name, and its source in each API's language.
inline constexpr const char* kEmptyKernelName = "ekb_empty_kernel";
inline constexpr const char* kEmptyKernelCuda = "extern \"C\" __global__ void ekb_empty_kernel() {}\n";
inline constexpr const char* kEmptyKernelOpenCl = "__kernel void ekb_empty_kernel() {}\n";

// The CUDA device `ordinal`; nullptr with *why set when there is no driver, no GPU or no NVRTC.
std::unique_ptr<GpuBackend> make_cuda_backend(int ordinal, std::string* why);
// The first OpenCL GPU or CPU device of the first platform whose name contains `platform_match`
// (case-insensitive; empty: the first platform with a device); nullptr with *why set (no ICD loader,
// no platform, no such platform: the ones there are listed).
std::unique_ptr<GpuBackend> make_opencl_backend(const std::string& platform_match, std::string* why);

}  // namespace ekb::gpu
