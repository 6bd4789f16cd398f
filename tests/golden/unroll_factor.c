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

/* kernel unroll_factor */
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  /* stage Y */
  for (int64_t v_Y_j_o = 0; v_Y_j_o < 3; ++v_Y_j_o) {
    {
      const int64_t v_Y_j = (v_Y_j_o * 4);
      Y[(v_Y_j_o * 4)] = ((X[v_Y_j] * X[v_Y_j]) + 1.0f);
    }
    {
      const int64_t v_Y_j = ((v_Y_j_o * 4) + 1);
      Y[((v_Y_j_o * 4) + 1)] = ((X[v_Y_j] * X[v_Y_j]) + 1.0f);
    }
    {
      const int64_t v_Y_j = ((v_Y_j_o * 4) + 2);
      Y[((v_Y_j_o * 4) + 2)] = ((X[v_Y_j] * X[v_Y_j]) + 1.0f);
    }
    {
      const int64_t v_Y_j = ((v_Y_j_o * 4) + 3);
      Y[((v_Y_j_o * 4) + 3)] = ((X[v_Y_j] * X[v_Y_j]) + 1.0f);
    }
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (float*)args[1], num_threads);
}
