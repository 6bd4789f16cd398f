// expect: wrong
// A no-op: writes nothing, so the poisoned (NaN) outputs come back.
#include <stdint.h>
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  (void)X; (void)Y;
}
