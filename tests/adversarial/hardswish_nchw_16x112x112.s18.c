// expect: background work
// Correct, but every call wakes a helper thread that burns 2 ms of CPU after the call has returned:
// work moved off the timed path.
#include <stdint.h>
#include <pthread.h>
#include <time.h>
static volatile int go;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static void* helper(void* u) {
  (void)u; struct timespec nap = {0, 20000};
  for (;;) { while (!go) nanosleep(&nap, 0); go = 0; double t0 = now(); while (now() - t0 < 2e-3) {} }
  return 0;
}
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  for (int i = 0; i < 16 * 112 * 112; ++i) { float x = X[i], r = x + 3.0f; r = r < 0.0f ? 0.0f : r > 6.0f ? 6.0f : r; Y[i] = x * r / 6.0f; }
  static int started; if (!started) { started = 1; pthread_t t; pthread_create(&t, 0, helper, 0); }
  go = 1;
}
