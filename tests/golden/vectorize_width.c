/* the C library ekb's code uses (declared, not #included: parsing the headers would double a small
   kernel's compile time) */
typedef __INT8_TYPE__ int8_t;
typedef __INT16_TYPE__ int16_t;
typedef __INT32_TYPE__ int32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __SIZE_TYPE__ size_t;
#define NULL ((void*)0)
#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))
void* memcpy(void*, const void*, size_t);
void* memset(void*, int, size_t);
int posix_memalign(void**, size_t, size_t);
void free(void*);
void abort(void);
double exp(double), exp2(double), expm1(double), log(double), log2(double), log10(double), log1p(double), sqrt(double), cbrt(double), tanh(double), erf(double), sin(double), cos(double), tan(double), asin(double), acos(double), atan(double), sinh(double), cosh(double), floor(double), ceil(double), round(double), rint(double), nearbyint(double), trunc(double), fabs(double), atan2(double, double), pow(double, double), fmod(double, double), fmin(double, double), fmax(double, double);
float expf(float), exp2f(float), expm1f(float), logf(float), log2f(float), log10f(float), log1pf(float), sqrtf(float), cbrtf(float), tanhf(float), erff(float), sinf(float), cosf(float), tanf(float), asinf(float), acosf(float), atanf(float), sinhf(float), coshf(float), floorf(float), ceilf(float), roundf(float), rintf(float), nearbyintf(float), truncf(float), fabsf(float), atan2f(float, float), powf(float, float), fmodf(float, float), fminf(float, float), fmaxf(float, float);


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

/* Vector types and helpers (GNU vector extensions). */
typedef float ekb_f32x4 __attribute__((vector_size(16), aligned(sizeof(float))));
typedef int32_t ekb_i32x4 __attribute__((vector_size(16), aligned(sizeof(int32_t))));
static inline ekb_f32x4 ekb_splat_f32x4(float x) { ekb_f32x4 r; for (int i = 0; i < 4; ++i) r[i] = x; return r; }
static inline ekb_f32x4 ekb_load_f32x4(const float* p) { ekb_f32x4 r; memcpy(&r, p, sizeof r); return r; }
static inline void ekb_store_f32x4(float* p, ekb_f32x4 v) { memcpy(p, &v, sizeof v); }
static inline ekb_f32x4 ekb_blend_f32x4(ekb_i32x4 c, ekb_f32x4 a, ekb_f32x4 b) { return (ekb_f32x4)((c & (ekb_i32x4)a) | (~c & (ekb_i32x4)b)); }
static inline ekb_f32x4 ekb_min_f32x4(ekb_f32x4 a, ekb_f32x4 b) { return ekb_blend_f32x4(a < b, a, b); }
static inline ekb_f32x4 ekb_max_f32x4(ekb_f32x4 a, ekb_f32x4 b) { return ekb_blend_f32x4(a > b, a, b); }
static inline ekb_i32x4 ekb_splat_i32x4(int32_t x) { ekb_i32x4 r; for (int i = 0; i < 4; ++i) r[i] = x; return r; }
static inline ekb_i32x4 ekb_load_i32x4(const int32_t* p) { ekb_i32x4 r; memcpy(&r, p, sizeof r); return r; }
static inline void ekb_store_i32x4(int32_t* p, ekb_i32x4 v) { memcpy(p, &v, sizeof v); }
static inline ekb_i32x4 ekb_blend_i32x4(ekb_i32x4 c, ekb_i32x4 a, ekb_i32x4 b) { return (ekb_i32x4)((c & (ekb_i32x4)a) | (~c & (ekb_i32x4)b)); }
static inline ekb_i32x4 ekb_min_i32x4(ekb_i32x4 a, ekb_i32x4 b) { return ekb_blend_i32x4(a < b, a, b); }
static inline ekb_i32x4 ekb_max_i32x4(ekb_i32x4 a, ekb_i32x4 b) { return ekb_blend_i32x4(a > b, a, b); }

static inline ekb_f32x4 ekb_exp_f32x4(ekb_f32x4 x) {
  x = ekb_min_f32x4(ekb_max_f32x4(x, ekb_splat_f32x4(-87.3f)), ekb_splat_f32x4(88.7f));
  ekb_f32x4 t = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f; /* round(x / ln 2) */
  ekb_f32x4 r = x - t * 0.693359375f + t * 2.12194440e-4f;
  ekb_f32x4 z = r * r;
  ekb_f32x4 p = ((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r + 4.1665795894e-2f) * r + 1.6666665459e-1f) * r + 5.0000001201e-1f;
  p = p * z + r + 1.0f;
  ekb_i32x4 e = (__builtin_convertvector(t, ekb_i32x4) + 127) << 23;
  return p * (ekb_f32x4)e;
}
static inline ekb_f32x4 ekb_log_f32x4(ekb_f32x4 x) {
  ekb_i32x4 bits = (ekb_i32x4)x;
  ekb_f32x4 e = __builtin_convertvector(((bits >> 23) & 0xff) - 126, ekb_f32x4);
  ekb_f32x4 m = (ekb_f32x4)((bits & 0x7fffff) | 0x3f000000); /* in [0.5, 1) */
  ekb_i32x4 small = m < 0.707106781186547524f;
  e = e - (ekb_f32x4)(small & (ekb_i32x4)ekb_splat_f32x4(1.0f));
  m = m + (ekb_f32x4)(small & (ekb_i32x4)m) - 1.0f;
  ekb_f32x4 z = m * m;
  ekb_f32x4 y = ((((((((7.0376836292e-2f * m - 1.1514610310e-1f) * m + 1.1676998740e-1f) * m - 1.2420140846e-1f) * m + 1.4249322787e-1f) * m - 1.6668057665e-1f) * m + 2.0000714765e-1f) * m - 2.4999993993e-1f) * m + 3.3333331174e-1f) * m * z;
  y = y - 2.12194440e-4f * e - 0.5f * z;
  ekb_f32x4 r = m + y + 0.693359375f * e;
  r = ekb_blend_f32x4(x == 0.0f, ekb_splat_f32x4(-INFINITY), r);
  r = ekb_blend_f32x4(x < 0.0f, ekb_splat_f32x4(NAN), r);
  r = ekb_blend_f32x4(x == INFINITY, ekb_splat_f32x4(INFINITY), r);
  return ekb_blend_f32x4(x != x, x, r);
}
static inline ekb_f32x4 ekb_sigmoid_f32x4(ekb_f32x4 x) { return 1.0f / (1.0f + ekb_exp_f32x4(-x)); }
static inline ekb_f32x4 ekb_tanh_f32x4(ekb_f32x4 x) {
  ekb_f32x4 a = ekb_max_f32x4(x, -x);
  ekb_f32x4 big = 1.0f - 2.0f / (ekb_exp_f32x4(2.0f * ekb_min_f32x4(a, ekb_splat_f32x4(44.0f))) + 1.0f);
  big = ekb_blend_f32x4(x < 0.0f, -big, big);
  ekb_f32x4 z = x * x;
  ekb_f32x4 small = x + x * z * ((((-5.70498872745e-3f * z + 2.06390887954e-2f) * z - 5.37397155531e-2f) * z + 1.33314422036e-1f) * z - 3.33332819422e-1f);
  return ekb_blend_f32x4(a < 0.625f, small, big);
}
static inline ekb_f32x4 ekb_erf_f32x4(ekb_f32x4 x) {
  ekb_f32x4 a = ekb_max_f32x4(x, -x);
  /* |x| >= 0.5: Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7) */
  ekb_f32x4 t = 1.0f / (1.0f + 0.3275911f * a);
  ekb_f32x4 poly = ((((1.061405429f * t - 1.453152027f) * t + 1.421413741f) * t - 0.284496736f) * t + 0.254829592f) * t;
  ekb_f32x4 big = 1.0f - poly * ekb_exp_f32x4(-a * a);
  big = ekb_blend_f32x4(x < 0.0f, -big, big);
  /* |x| < 0.5: the Taylor series to x^11 */
  ekb_f32x4 z = x * x;
  ekb_f32x4 small = x * (1.1283791670955126f + z * (-0.37612638903183754f + z * (0.11283791670955126f + z * (-0.026866170645131252f + z * (0.0052239776254421878f + z * -0.00085483270234508528f)))));
  return ekb_blend_f32x4(a < 0.5f, small, big);
}

/* kernel vectorize_width */
void ekb_kernel(const float* restrict X, const float* restrict B, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  /* stage Y */
  for (int64_t v_Y_i = 0; v_Y_i < 10; ++v_Y_i) {
    for (int64_t v_Y_j_o = 0; v_Y_j_o < 4; ++v_Y_j_o) {
      if (((4 < ((v_Y_j_o * -4) + 13) ? 4 : ((v_Y_j_o * -4) + 13)) == 4)) {
        { /* vectorized: 4 lanes of Y.j_v */
          const int64_t v_Y_j_v_base = 0;
          ekb_store_f32x4(&Y[((v_Y_j_o * 4) + (v_Y_i * 13)) + v_Y_j_v_base], ((ekb_load_f32x4(&X[((v_Y_j_o * 4) + (v_Y_i * 13)) + v_Y_j_v_base]) * ekb_load_f32x4(&B[(v_Y_j_o * 4) + v_Y_j_v_base])) + ekb_splat_f32x4(1.0f)));
        }
      } else {
        for (int64_t v_Y_j_v = 0; v_Y_j_v < (4 < ((v_Y_j_o * -4) + 13) ? 4 : ((v_Y_j_o * -4) + 13)); ++v_Y_j_v) {
          {
            const int64_t v_Y_j = ((v_Y_j_o * 4) + v_Y_j_v);
            Y[v_Y_i * 13 + ((v_Y_j_o * 4) + v_Y_j_v)] = ((X[v_Y_i * 13 + v_Y_j] * B[v_Y_j]) + 1.0f);
          }
        }
      }
    }
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (const float*)args[1], (float*)args[2], num_threads);
}
