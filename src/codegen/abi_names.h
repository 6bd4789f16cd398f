// The names of the CPU kernel ABI's two functions, in a header of their own so that the workers
// (which call kernels, never print them) need not include the printer.
#pragma once

namespace ekb::codegen {

// The kernel itself: void ekb_kernel(const float* restrict A, ..., float* restrict Y, int32_t num_threads)
inline constexpr const char* kEntryPoint = "ekb_kernel";
// The wrapper the runtime calls: void ekb_entry(void* const* args, int32_t num_threads)
inline constexpr const char* kEntryWrapper = "ekb_entry";

}  // namespace ekb::codegen
