// expect: wrong
// A thread it starts keeps overwriting the output after the call returns.
#include <stdint.h>
#include <pthread.h>
static float* volatile out;
static void* scribble(void* u) { (void)u; for (;;) { float* y = out; for (int i = 0; i < 16 * 112 * 112; ++i) y[i] = 3.0f; } return 0; }
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  for (int i = 0; i < 16 * 112 * 112; ++i) { float x = X[i], r = x + 3.0f; r = r < 0.0f ? 0.0f : r > 6.0f ? 6.0f : r; Y[i] = x * r / 6.0f; }
  out = Y;
  static int started; if (!started) { started = 1; pthread_t t; pthread_create(&t, 0, scribble, 0); }
}
