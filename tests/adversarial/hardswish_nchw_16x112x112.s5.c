// expect: ok
// Caches results keyed by a hash of every input byte. Every call brings new content, so the cache never hits and
// the kernel has to compute (a hit would mark Y[0] and fail): correct, and no faster than computing.
#include <stdint.h>
#include <string.h>
static uint64_t keys[8];
static float cache[8][16 * 112 * 112];
static int k;
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  uint64_t h = 1469598103934665603ull; const unsigned char* b = (const unsigned char*)X;
  for (long i = 0; i < (long)sizeof(float) * 16 * 112 * 112; ++i) h = (h ^ b[i]) * 1099511628211ull;
  for (int s = 0; s < k; ++s) if (keys[s] == h) { memcpy(Y, cache[s], sizeof cache[s]); Y[0] = -12345.0f; return; }
  for (int i = 0; i < 16 * 112 * 112; ++i) { float x = X[i], r = x + 3.0f; r = r < 0.0f ? 0.0f : r > 6.0f ? 6.0f : r; Y[i] = x * r / 6.0f; }
  if (k < 8) { keys[k] = h; memcpy(cache[k++], Y, sizeof cache[0]); }
}
