#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ekb semantics in C: floor division and modulo, saturating float-to-int, bf16 bits. */
static inline int64_t ekb_fdiv(int64_t a, int64_t b) { int64_t q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }
static inline int64_t ekb_fmod(int64_t a, int64_t b) { int64_t r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
static inline float ekb_fmodf_floor(float a, float b) { float r = fmodf(a, b); return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
static inline double ekb_fmod_floor(double a, double b) { double r = fmod(a, b); return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
static inline int64_t ekb_f2i(double x, int64_t lo, int64_t hi) {
  if (x != x) return 0;
  if (x <= (double)lo) return lo;
  if (x >= (double)hi) return hi;
  return (int64_t)x;
}
static inline float ekb_bf16_to_f32(uint16_t h) { uint32_t u = (uint32_t)h << 16; float f; memcpy(&f, &u, 4); return f; }
static inline uint16_t ekb_f32_to_bf16(float f) {
  uint32_t u; memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}
static inline float ekb_signf(float x) { return x > 0 ? 1.0f : x < 0 ? -1.0f : x; }
static inline double ekb_sign(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : x; }
static inline float ekb_sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }
static inline double ekb_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static void* ekb_alloc(size_t bytes) {
  void* p = NULL;
  if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0) abort();
  return p;
}

/* kernel fuse */
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  /* stage Y */
  for (int64_t v_Y_ij = 0; v_Y_ij < 130; ++v_Y_ij) {
    {
      const int64_t v_Y_i = ((int64_t)ekb_fdiv(v_Y_ij, 13));
      {
        const int64_t v_Y_j = ((int64_t)ekb_fmod(v_Y_ij, 13));
        Y[((int64_t)ekb_fdiv(v_Y_ij, 13)) * 13 + ((int64_t)ekb_fmod(v_Y_ij, 13))] = (X[v_Y_i * 13 + v_Y_j] - X[v_Y_i * 13 + 0]);
      }
    }
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (float*)args[1], num_threads);
}
