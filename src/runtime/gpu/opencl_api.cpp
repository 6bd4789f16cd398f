// Loading the OpenCL ICD loader and binding the calls of opencl_api.h; the names of OpenCL's error
// codes for messages.
#include "runtime/gpu/opencl_api.h"

#include <fmt/format.h>

#include "runtime/gpu/dynamic_library.h"

namespace ekb::gpu {

std::string cl_error_name(int code) {
  const char* n = nullptr;
  switch (code) {
    case 0: n = "CL_SUCCESS"; break;
    case -1: n = "CL_DEVICE_NOT_FOUND"; break;
    case -2: n = "CL_DEVICE_NOT_AVAILABLE"; break;
    case -3: n = "CL_COMPILER_NOT_AVAILABLE"; break;
    case -4: n = "CL_MEM_OBJECT_ALLOCATION_FAILURE"; break;
    case -5: n = "CL_OUT_OF_RESOURCES"; break;
    case -6: n = "CL_OUT_OF_HOST_MEMORY"; break;
    case -7: n = "CL_PROFILING_INFO_NOT_AVAILABLE"; break;
    case -8: n = "CL_MEM_COPY_OVERLAP"; break;
    case -11: n = "CL_BUILD_PROGRAM_FAILURE"; break;
    case -12: n = "CL_MAP_FAILURE"; break;
    case -14: n = "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"; break;
    case -30: n = "CL_INVALID_VALUE"; break;
    case -31: n = "CL_INVALID_DEVICE_TYPE"; break;
    case -32: n = "CL_INVALID_PLATFORM"; break;
    case -33: n = "CL_INVALID_DEVICE"; break;
    case -34: n = "CL_INVALID_CONTEXT"; break;
    case -35: n = "CL_INVALID_QUEUE_PROPERTIES"; break;
    case -36: n = "CL_INVALID_COMMAND_QUEUE"; break;
    case -37: n = "CL_INVALID_HOST_PTR"; break;
    case -38: n = "CL_INVALID_MEM_OBJECT"; break;
    case -42: n = "CL_INVALID_BINARY"; break;
    case -43: n = "CL_INVALID_BUILD_OPTIONS"; break;
    case -44: n = "CL_INVALID_PROGRAM"; break;
    case -45: n = "CL_INVALID_PROGRAM_EXECUTABLE"; break;
    case -46: n = "CL_INVALID_KERNEL_NAME"; break;
    case -47: n = "CL_INVALID_KERNEL_DEFINITION"; break;
    case -48: n = "CL_INVALID_KERNEL"; break;
    case -49: n = "CL_INVALID_ARG_INDEX"; break;
    case -50: n = "CL_INVALID_ARG_VALUE"; break;
    case -51: n = "CL_INVALID_ARG_SIZE"; break;
    case -52: n = "CL_INVALID_KERNEL_ARGS"; break;
    case -53: n = "CL_INVALID_WORK_DIMENSION"; break;
    case -54: n = "CL_INVALID_WORK_GROUP_SIZE"; break;
    case -55: n = "CL_INVALID_WORK_ITEM_SIZE"; break;
    case -56: n = "CL_INVALID_GLOBAL_OFFSET"; break;
    case -57: n = "CL_INVALID_EVENT_WAIT_LIST"; break;
    case -58: n = "CL_INVALID_EVENT"; break;
    case -59: n = "CL_INVALID_OPERATION"; break;
    case -61: n = "CL_INVALID_BUFFER_SIZE"; break;
    case -63: n = "CL_INVALID_GLOBAL_WORK_SIZE"; break;
    case -64: n = "CL_INVALID_PROPERTY"; break;
    case -66: n = "CL_INVALID_COMPILER_OPTIONS"; break;
    case -1001: n = "CL_PLATFORM_NOT_FOUND_KHR"; break;
    default: return fmt::format("OpenCL error {}", code);
  }
  return fmt::format("{} ({})", n, code);
}

namespace {

using Loaded = LoadedApi<OpenClApi>;

Loaded load() {
  Loaded l;
  static DynamicLibrary lib;
  if (!lib.open({"libOpenCL.so.1", "libOpenCL.so"})) {
    l.why = "no OpenCL ICD loader (libOpenCL.so.1 could not be loaded: " + lib.why() + ")";
    return l;
  }
  OpenClApi& a = l.api;
  // Every call is bound (no short-circuit), so that missing() names all that are absent.
  bool ok = true;
  auto bind = [&](auto*& fn, const char* name) { ok = lib.bind(fn, {name}) && ok; };
  bind(a.clGetPlatformIDs, "clGetPlatformIDs");
  bind(a.clGetPlatformInfo, "clGetPlatformInfo");
  bind(a.clGetDeviceIDs, "clGetDeviceIDs");
  bind(a.clGetDeviceInfo, "clGetDeviceInfo");
  bind(a.clCreateContext, "clCreateContext");
  bind(a.clCreateCommandQueue, "clCreateCommandQueue");
  bind(a.clCreateProgramWithSource, "clCreateProgramWithSource");
  bind(a.clBuildProgram, "clBuildProgram");
  bind(a.clGetProgramInfo, "clGetProgramInfo");
  bind(a.clGetProgramBuildInfo, "clGetProgramBuildInfo");
  bind(a.clCreateKernel, "clCreateKernel");
  bind(a.clSetKernelArg, "clSetKernelArg");
  bind(a.clGetKernelWorkGroupInfo, "clGetKernelWorkGroupInfo");
  bind(a.clCreateBuffer, "clCreateBuffer");
  bind(a.clCreateSubBuffer, "clCreateSubBuffer");
  bind(a.clEnqueueWriteBuffer, "clEnqueueWriteBuffer");
  bind(a.clEnqueueReadBuffer, "clEnqueueReadBuffer");
  bind(a.clEnqueueFillBuffer, "clEnqueueFillBuffer");
  bind(a.clEnqueueNDRangeKernel, "clEnqueueNDRangeKernel");
  bind(a.clFinish, "clFinish");
  bind(a.clWaitForEvents, "clWaitForEvents");
  bind(a.clGetEventProfilingInfo, "clGetEventProfilingInfo");
  bind(a.clReleaseEvent, "clReleaseEvent");
  bind(a.clReleaseKernel, "clReleaseKernel");
  bind(a.clReleaseProgram, "clReleaseProgram");
  bind(a.clReleaseMemObject, "clReleaseMemObject");
  bind(a.clReleaseCommandQueue, "clReleaseCommandQueue");
  bind(a.clReleaseContext, "clReleaseContext");
  if (!ok) {
    l.why = lib.path() + " lacks " + lib.missing() + " (an OpenCL 1.2 loader is needed)";
    return l;
  }
  l.ok = true;
  return l;
}

}  // namespace

const OpenClApi* opencl_api(std::string* why) {
  static const Loaded loaded = load();
  return loaded.get(why);
}

}  // namespace ekb::gpu
