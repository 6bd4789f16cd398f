// expect: wrong|crash
// Copies memory beyond its own output (another buffer, or past the mapping) instead of computing.
#include <stdint.h>
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  for (int i = 0; i < 16 * 112 * 112; ++i) Y[i] = Y[i + 16 * 112 * 112 + 2048];
}
