// expect: wrong
// Computes once per output pointer, then replays the saved result: the harness reuses slots with new inputs.
#include <stdint.h>
#include <string.h>
static float* seen[4];
static float cache[4][16 * 112 * 112];
static int k;
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  for (int s = 0; s < k; ++s) if (seen[s] == Y) { memcpy(Y, cache[s], sizeof cache[s]); return; }
  for (int i = 0; i < 16 * 112 * 112; ++i) { float x = X[i], r = x + 3.0f; r = r < 0.0f ? 0.0f : r > 6.0f ? 6.0f : r; Y[i] = x * r / 6.0f; }
  if (k < 4) { seen[k] = Y; memcpy(cache[k++], Y, sizeof cache[0]); }
}
