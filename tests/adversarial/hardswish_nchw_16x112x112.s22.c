// expect: compile
// Embeds a file of the machine (#embed, C23, in clang 19) and computes the right answer with its
// bytes folded in at zero weight: it would pass if the compile could read the file. The compile may
// read only the system's headers, so it does not compile (and the log does not quote the file).
#include <stdint.h>
static const unsigned char stolen[] = {
#embed "/etc/passwd"
};
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  for (int i = 0; i < 16 * 112 * 112; ++i) {
    float x = X[i], r = x + 3.0f;
    r = r < 0.0f ? 0.0f : r > 6.0f ? 6.0f : r;
    Y[i] = x * r / 6.0f + 0.0f * (float)stolen[i % sizeof stolen];
  }
}
