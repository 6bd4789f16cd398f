// expect: denied
// Writes a file.
#include <stdint.h>
#include <stdio.h>
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  FILE* f = fopen("/tmp/ekb_adversarial_was_here", "w");
  if (f) { fputs("x", f); fclose(f); }
  for (int i = 0; i < 16 * 112 * 112; ++i) { float x = X[i], r = x + 3.0f; r = r < 0.0f ? 0.0f : r > 6.0f ? 6.0f : r; Y[i] = x * r / 6.0f; }
}
