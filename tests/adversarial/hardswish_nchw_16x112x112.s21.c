// expect: compile
// Does not compile.
#include <stdint.h>
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  this is not C;
}
