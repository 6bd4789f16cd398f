// Loading libcuda.so.1 and binding the calls of cuda_driver.h (the versioned names first, as cuda.h
// maps them: cuMemAlloc -> cuMemAlloc_v2 ...).
#include "runtime/gpu/cuda_driver.h"

#include <fmt/format.h>


#include "runtime/gpu/dynamic_library.h"

namespace ekb::gpu {

std::string CudaDriver::error(CUresult r) const {
  const char* s = nullptr;
  if (cuGetErrorString) cuGetErrorString(r, &s);
  return fmt::format("CUDA error {}{}{}", r, s ? ": " : "", s ? s : "");
}

namespace {

using Loaded = LoadedApi<CudaDriver>;

Loaded load() {
  Loaded l;
  static DynamicLibrary lib;
  if (!lib.open({"libcuda.so.1", "libcuda.so"})) {
    l.why = "no CUDA driver (libcuda.so.1 could not be loaded: " + lib.why() + ")";
    return l;
  }
  CudaDriver& a = l.api;
  bool ok = lib.bind(a.cuInit, {"cuInit"}) && lib.bind(a.cuGetErrorString, {"cuGetErrorString"}) &&
            lib.bind(a.cuDeviceGetCount, {"cuDeviceGetCount"}) && lib.bind(a.cuDeviceGet, {"cuDeviceGet"}) &&
            lib.bind(a.cuDeviceGetName, {"cuDeviceGetName"}) && lib.bind(a.cuDeviceGetAttribute, {"cuDeviceGetAttribute"}) &&
            lib.bind(a.cuDeviceTotalMem, {"cuDeviceTotalMem_v2", "cuDeviceTotalMem"}) &&
            lib.bind(a.cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"}) &&
            lib.bind(a.cuCtxSetCurrent, {"cuCtxSetCurrent"}) && lib.bind(a.cuCtxSynchronize, {"cuCtxSynchronize"}) &&
            lib.bind(a.cuModuleLoadData, {"cuModuleLoadData"}) && lib.bind(a.cuModuleUnload, {"cuModuleUnload"}) &&
            lib.bind(a.cuModuleGetFunction, {"cuModuleGetFunction"}) && lib.bind(a.cuLaunchKernel, {"cuLaunchKernel"}) &&
            lib.bind(a.cuMemAlloc, {"cuMemAlloc_v2", "cuMemAlloc"}) && lib.bind(a.cuMemFree, {"cuMemFree_v2", "cuMemFree"}) &&
            lib.bind(a.cuMemcpyHtoD, {"cuMemcpyHtoD_v2", "cuMemcpyHtoD"}) &&
            lib.bind(a.cuMemcpyDtoH, {"cuMemcpyDtoH_v2", "cuMemcpyDtoH"}) &&
            lib.bind(a.cuMemsetD8, {"cuMemsetD8_v2", "cuMemsetD8"}) && lib.bind(a.cuEventCreate, {"cuEventCreate"}) &&
            lib.bind(a.cuEventDestroy, {"cuEventDestroy_v2", "cuEventDestroy"}) &&
            lib.bind(a.cuEventRecord, {"cuEventRecord"}) && lib.bind(a.cuEventSynchronize, {"cuEventSynchronize"}) &&
            lib.bind(a.cuEventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"}) &&
            lib.bind(a.cuFuncGetAttribute, {"cuFuncGetAttribute"}) && lib.bind(a.cuDriverGetVersion, {"cuDriverGetVersion"});
  if (!ok) {
    l.why = lib.path() + " lacks " + lib.missing();
    return l;
  }
  if (CUresult r = a.cuInit(0); r != 0) {
    l.why = "the CUDA driver did not start (cuInit: " + a.error(r) + ")";
    return l;
  }
  int n = 0;
  if (a.cuDeviceGetCount(&n) != 0 || n == 0) {
    l.why = "the CUDA driver sees no GPU";
    return l;
  }
  l.ok = true;
  return l;
}

}  // namespace

const CudaDriver* cuda_driver(std::string* why) {
  static const Loaded loaded = load();
  return loaded.get(why);
}

}  // namespace ekb::gpu
