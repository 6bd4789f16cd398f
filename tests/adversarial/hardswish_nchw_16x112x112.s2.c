// expect: wrong
// Returns its input unchanged.
#include <stdint.h>
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  for (int i = 0; i < 16 * 112 * 112; ++i) Y[i] = X[i];
}
