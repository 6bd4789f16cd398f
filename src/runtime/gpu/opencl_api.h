// The OpenCL 1.2 C API (through the ICD loader, libOpenCL.so.1), loaded at run time: the calls ekb
// uses to pick a platform and device, build programs, move buffers, launch kernels and time them with
// profiling events. Declared here rather than taken from CL/cl.h (values as the Khronos headers give
// them), so that ekb builds where no OpenCL headers or loader are installed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace ekb::gpu {

using cl_int = int32_t;
using cl_uint = uint32_t;
using cl_ulong = uint64_t;
using cl_bool = cl_uint;
using cl_bitfield = cl_ulong;
using cl_device_type = cl_bitfield;
using cl_command_queue_properties = cl_bitfield;
using cl_mem_flags = cl_bitfield;
using cl_context_properties = intptr_t;
using cl_platform_info = cl_uint;
using cl_device_info = cl_uint;
using cl_program_info = cl_uint;
using cl_program_build_info = cl_uint;
using cl_kernel_work_group_info = cl_uint;
using cl_profiling_info = cl_uint;
struct _cl_platform_id;
struct _cl_device_id;
struct _cl_context;
struct _cl_command_queue;
struct _cl_mem;
struct _cl_program;
struct _cl_kernel;
struct _cl_event;
using cl_platform_id = _cl_platform_id*;
using cl_device_id = _cl_device_id*;
using cl_context = _cl_context*;
using cl_command_queue = _cl_command_queue*;
using cl_mem = _cl_mem*;
using cl_program = _cl_program*;
using cl_kernel = _cl_kernel*;
using cl_event = _cl_event*;

// The constants ekb passes or compares (values from cl.h / cl_ext.h).
inline constexpr cl_int CL_SUCCESS = 0;
inline constexpr cl_int CL_DEVICE_NOT_FOUND = -1;
inline constexpr cl_int CL_BUILD_PROGRAM_FAILURE = -11;
inline constexpr cl_int CL_INVALID_KERNEL_NAME = -46;
inline constexpr cl_int CL_PLATFORM_NOT_FOUND_KHR = -1001;
inline constexpr cl_uint kBufferCreateTypeRegion = 0x1220;  // CL_BUFFER_CREATE_TYPE_REGION
inline constexpr cl_bool CL_FALSE = 0;
inline constexpr cl_bool CL_TRUE = 1;
inline constexpr cl_platform_info CL_PLATFORM_VERSION = 0x0901;
inline constexpr cl_platform_info CL_PLATFORM_NAME = 0x0902;
inline constexpr cl_context_properties CL_CONTEXT_PLATFORM = 0x1084;
inline constexpr cl_device_type CL_DEVICE_TYPE_ALL = 0xFFFFFFFF;
inline constexpr cl_device_type CL_DEVICE_TYPE_CPU = 1 << 1;
inline constexpr cl_device_info CL_DEVICE_TYPE = 0x1000;                      // cl_device_type
inline constexpr cl_device_info CL_DEVICE_MAX_COMPUTE_UNITS = 0x1002;         // cl_uint
inline constexpr cl_device_info CL_DEVICE_MAX_WORK_GROUP_SIZE = 0x1004;       // size_t
inline constexpr cl_device_info CL_DEVICE_MAX_MEM_ALLOC_SIZE = 0x1010;        // cl_ulong
inline constexpr cl_device_info CL_DEVICE_GLOBAL_MEM_CACHE_SIZE = 0x101E;     // cl_ulong
inline constexpr cl_device_info CL_DEVICE_GLOBAL_MEM_SIZE = 0x101F;           // cl_ulong
inline constexpr cl_device_info CL_DEVICE_LOCAL_MEM_SIZE = 0x1023;            // cl_ulong
inline constexpr cl_device_info CL_DEVICE_NAME = 0x102B;                      // char[]
inline constexpr cl_device_info CL_DRIVER_VERSION = 0x102D;                   // char[]
inline constexpr cl_device_info CL_DEVICE_VERSION = 0x102F;                   // char[]
inline constexpr cl_command_queue_properties CL_QUEUE_PROFILING_ENABLE = 1 << 1;
inline constexpr cl_mem_flags CL_MEM_READ_WRITE = 1 << 0;
inline constexpr cl_program_info CL_PROGRAM_BINARY_SIZES = 0x1165;            // size_t[] per device
inline constexpr cl_program_info CL_PROGRAM_BINARIES = 0x1166;                // unsigned char*[] per device
inline constexpr cl_program_info CL_PROGRAM_KERNEL_NAMES = 0x1168;            // char[], ';'-separated
inline constexpr cl_program_build_info CL_PROGRAM_BUILD_LOG = 0x1183;         // char[]
inline constexpr cl_kernel_work_group_info CL_KERNEL_WORK_GROUP_SIZE = 0x11B0;  // size_t
inline constexpr cl_kernel_work_group_info CL_KERNEL_LOCAL_MEM_SIZE = 0x11B2;   // cl_ulong
inline constexpr cl_profiling_info CL_PROFILING_COMMAND_START = 0x1282;      // cl_ulong, ns
inline constexpr cl_profiling_info CL_PROFILING_COMMAND_END = 0x1283;        // cl_ulong, ns

struct OpenClApi {
  cl_int (*clGetPlatformIDs)(cl_uint, cl_platform_id*, cl_uint*) = nullptr;
  cl_int (*clGetPlatformInfo)(cl_platform_id, cl_platform_info, size_t, void*, size_t*) = nullptr;
  cl_int (*clGetDeviceIDs)(cl_platform_id, cl_device_type, cl_uint, cl_device_id*, cl_uint*) = nullptr;
  cl_int (*clGetDeviceInfo)(cl_device_id, cl_device_info, size_t, void*, size_t*) = nullptr;
  cl_context (*clCreateContext)(const cl_context_properties*, cl_uint, const cl_device_id*,
                                void (*)(const char*, const void*, size_t, void*), void*, cl_int*) = nullptr;
  cl_command_queue (*clCreateCommandQueue)(cl_context, cl_device_id, cl_command_queue_properties, cl_int*) = nullptr;
  cl_program (*clCreateProgramWithSource)(cl_context, cl_uint, const char**, const size_t*, cl_int*) = nullptr;
  cl_int (*clBuildProgram)(cl_program, cl_uint, const cl_device_id*, const char*, void (*)(cl_program, void*),
                           void*) = nullptr;
  cl_int (*clGetProgramInfo)(cl_program, cl_program_info, size_t, void*, size_t*) = nullptr;
  cl_int (*clGetProgramBuildInfo)(cl_program, cl_device_id, cl_program_build_info, size_t, void*, size_t*) = nullptr;
  cl_kernel (*clCreateKernel)(cl_program, const char*, cl_int*) = nullptr;
  cl_int (*clSetKernelArg)(cl_kernel, cl_uint, size_t, const void*) = nullptr;
  cl_int (*clGetKernelWorkGroupInfo)(cl_kernel, cl_device_id, cl_kernel_work_group_info, size_t, void*,
                                     size_t*) = nullptr;
  cl_mem (*clCreateBuffer)(cl_context, cl_mem_flags, size_t, void*, cl_int*) = nullptr;
  cl_mem (*clCreateSubBuffer)(cl_mem, cl_mem_flags, cl_uint, const void*, cl_int*) = nullptr;  // OpenCL 1.1
  cl_int (*clEnqueueWriteBuffer)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void*, cl_uint,
                                 const cl_event*, cl_event*) = nullptr;
  cl_int (*clEnqueueReadBuffer)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void*, cl_uint, const cl_event*,
                                cl_event*) = nullptr;
  cl_int (*clEnqueueFillBuffer)(cl_command_queue, cl_mem, const void*, size_t, size_t, size_t, cl_uint,
                                const cl_event*, cl_event*) = nullptr;
  cl_int (*clEnqueueNDRangeKernel)(cl_command_queue, cl_kernel, cl_uint, const size_t*, const size_t*, const size_t*,
                                   cl_uint, const cl_event*, cl_event*) = nullptr;
  cl_int (*clFinish)(cl_command_queue) = nullptr;
  cl_int (*clWaitForEvents)(cl_uint, const cl_event*) = nullptr;
  cl_int (*clGetEventProfilingInfo)(cl_event, cl_profiling_info, size_t, void*, size_t*) = nullptr;
  cl_int (*clReleaseEvent)(cl_event) = nullptr;
  cl_int (*clReleaseKernel)(cl_kernel) = nullptr;
  cl_int (*clReleaseProgram)(cl_program) = nullptr;
  cl_int (*clReleaseMemObject)(cl_mem) = nullptr;
  cl_int (*clReleaseCommandQueue)(cl_command_queue) = nullptr;
  cl_int (*clReleaseContext)(cl_context) = nullptr;
};

// The ICD loader, loaded once per process; nullptr with *why set when there is none (or it lacks a
// call). Whether it finds any platform is for the caller to ask (clGetPlatformIDs).
const OpenClApi* opencl_api(std::string* why = nullptr);

// "CL_OUT_OF_RESOURCES (-5)" for the common codes, "OpenCL error -1234" for the others.
std::string cl_error_name(int code);

}  // namespace ekb::gpu
