// expect: crash
// Calls abort().
#include <stdint.h>
#include <stdlib.h>
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  abort();
}
