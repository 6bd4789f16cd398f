// The example's support code, the same in every export (export_parts.h): example_support.h and
// example_support.c, plain C11 with the C library only.
#include "io/export_parts.h"

namespace ekb::io::detail {

std::string example_support_header() {
  return R"EKB(/* example_support.h: what the example program of an ekb export needs besides the kernel: tensors in
 * host memory, .npy files in and out, deterministic inputs in each input's declared range, ekb's
 * comparison rule, timing and the command line. The same in every export; C11 and the C library only,
 * so that the export builds wherever a C compiler does. */
#ifndef EKB_EXAMPLE_SUPPORT_H
#define EKB_EXAMPLE_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { EKB_F64, EKB_F32, EKB_F16, EKB_BF16, EKB_I64, EKB_I32, EKB_I16, EKB_I8, EKB_U8, EKB_BOOL } ekb_dtype;
/* How the example fills an input when no .npy file is given: ekb's distributions (docs/ir.md). */
typedef enum { EKB_UNIFORM, EKB_NORMAL, EKB_POSITIVE, EKB_MIXED, EKB_INT, EKB_BERNOULLI } ekb_dist;

typedef struct {
  const char* name;
  ekb_dtype type;
  int rank;
  const int64_t* shape;
  int64_t elements;
  int is_output;
  ekb_dist dist;    /* inputs: the declared distribution and its two arguments */
  double a, b;
  double tolerance; /* outputs: ekb's tolerance (float types), or the integer difference allowed */
  void* data;       /* host memory, 64-byte aligned, row-major */
} ekb_tensor;

const char* ekb_dtype_name(ekb_dtype t);
size_t ekb_tensor_bytes(const ekb_tensor* t);
double ekb_get(const ekb_tensor* t, int64_t k);     /* element k as a double */
void ekb_set(ekb_tensor* t, int64_t k, double v);   /* rounded to the type (nearest even), integers saturate */
int ekb_alloc_tensor(ekb_tensor* t);                /* zeroed, 64-byte aligned; 0 on success */
void ekb_fill(ekb_tensor* t, uint64_t seed);        /* deterministic values in the declared range */
int ekb_load_input(const char* path, ekb_tensor* t); /* a .npy of t's shape, any numeric type */
int ekb_write_npy(const char* path, const ekb_tensor* t);
int ekb_check(const ekb_tensor* got, const char* ref_path); /* ekb's rule; prints a line; 0 when it passes */
void ekb_print_summary(const ekb_tensor* t);
double ekb_now_ms(void);

/* What an example does around its kernel, the backend's part. `option` hears each option the common
 * code does not know (returns 1 when it took the value); `prepare` runs once after the inputs are
 * filled (a GPU example uploads them), `run` is one timed call, `finish` runs once after the last
 * call (a GPU example downloads the outputs). All but `run` may be NULL; each returns 0 on success. */
typedef struct {
  const char* usage; /* the backend's own options, for --help */
  int (*option)(void* ctx, const char* key, const char* value);
  int (*prepare)(void* ctx, ekb_tensor* tensors, int count);
  int (*run)(void* ctx, ekb_tensor* tensors, int count, int threads);
  int (*finish)(void* ctx, ekb_tensor* tensors, int count);
} ekb_example_ops;

/* Parses the command line (--help lists it), fills or reads the inputs, runs, prints each output's
 * checksums and the median time, writes and checks the outputs. Returns the process's exit status. */
int ekb_example_main(int argc, char** argv, const char* kernel, ekb_tensor* tensors, int count, int default_threads,
                     const ekb_example_ops* ops, void* ctx);

#ifdef __cplusplus
}
#endif
#endif
)EKB";
}

std::string example_support_source() {
  return R"EKB(/* example_support.c: see example_support.h. */
#if !defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 200112L
#undef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200112L /* clock_gettime */
#endif
#include "example_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char* ekb_dtype_name(ekb_dtype t) {
  static const char* names[] = {"f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "u8", "bool"};
  return names[t];
}
static size_t dtype_bytes(ekb_dtype t) {
  static const size_t bytes[] = {8, 4, 2, 2, 8, 4, 2, 1, 1, 1};
  return bytes[t];
}
static int is_float(ekb_dtype t) { return t <= EKB_BF16; }
size_t ekb_tensor_bytes(const ekb_tensor* t) { return (size_t)t->elements * dtype_bytes(t->type); }

/* f16 and bf16 bits, rounded to nearest even (as ekb rounds). */
static uint16_t f16_from_f32(float f) {
  uint32_t x, absx, sign, h, rem;
  memcpy(&x, &f, 4);
  sign = (x >> 16) & 0x8000u;
  absx = x & 0x7fffffffu;
  if (absx > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);
  if (absx >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* rounds to infinity */
  if (absx < 0x38800000u) {                                     /* a subnormal half, or zero */
    float a;
    memcpy(&a, &absx, 4);
    return (uint16_t)(sign | (uint32_t)rintf(a * 16777216.0f));
  }
  h = (((absx >> 23) - 127 + 15) << 10) | ((absx & 0x7fffffu) >> 13);
  rem = absx & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return (uint16_t)(sign | h);
}
static float f32_from_f16(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
  float f;
  if (e == 0) {
    f = ldexpf((float)m, -24);
    return sign ? -f : f;
  }
  x = e == 31 ? (sign | 0x7f800000u | (m << 13)) : (sign | ((e - 15 + 127) << 23) | (m << 13));
  memcpy(&f, &x, 4);
  return f;
}
static uint16_t bf16_from_f32(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}
static float f32_from_bf16(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

double ekb_get(const ekb_tensor* t, int64_t k) {
  const void* p = t->data;
  switch (t->type) {
    case EKB_F64: return ((const double*)p)[k];
    case EKB_F32: return ((const float*)p)[k];
    case EKB_F16: return f32_from_f16(((const uint16_t*)p)[k]);
    case EKB_BF16: return f32_from_bf16(((const uint16_t*)p)[k]);
    case EKB_I64: return (double)((const int64_t*)p)[k];
    case EKB_I32: return ((const int32_t*)p)[k];
    case EKB_I16: return ((const int16_t*)p)[k];
    case EKB_I8: return ((const int8_t*)p)[k];
    case EKB_U8: case EKB_BOOL: return ((const uint8_t*)p)[k];
  }
  return 0;
}
static double saturate(double v, double lo, double hi) { return v != v ? 0 : v < lo ? lo : v > hi ? hi : v; }
void ekb_set(ekb_tensor* t, int64_t k, double v) {
  void* p = t->data;
  switch (t->type) {
    case EKB_F64: ((double*)p)[k] = v; break;
    case EKB_F32: ((float*)p)[k] = (float)v; break;
    case EKB_F16: ((uint16_t*)p)[k] = f16_from_f32((float)v); break;
    case EKB_BF16: ((uint16_t*)p)[k] = bf16_from_f32((float)v); break;
    case EKB_I64: ((int64_t*)p)[k] = v != v ? 0 : v >= 0x1p63 ? INT64_MAX : v < -0x1p63 ? INT64_MIN : (int64_t)v; break;
    case EKB_I32: ((int32_t*)p)[k] = (int32_t)saturate(v, -2147483648.0, 2147483647.0); break;
    case EKB_I16: ((int16_t*)p)[k] = (int16_t)saturate(v, -32768, 32767); break;
    case EKB_I8: ((int8_t*)p)[k] = (int8_t)saturate(v, -128, 127); break;
    case EKB_U8: ((uint8_t*)p)[k] = (uint8_t)saturate(v, 0, 255); break;
    case EKB_BOOL: ((uint8_t*)p)[k] = v != 0; break;
  }
}

int ekb_alloc_tensor(ekb_tensor* t) {
  size_t bytes = (ekb_tensor_bytes(t) + 63) / 64 * 64;
  if (bytes == 0) bytes = 64;
  t->data = aligned_alloc(64, bytes);
  if (!t->data) {
    fprintf(stderr, "error: cannot allocate %zu bytes for %s\n", bytes, t->name);
    return 1;
  }
  memset(t->data, 0, bytes);
  return 0;
}

/* Deterministic values in the input's declared range: not ekb's own random streams (`ekb interp TASK
 * --out DIR` writes those; --in DIR reads them). */
static uint64_t next_random(uint64_t* s) {
  uint64_t x = *s;
  x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1DULL;
}
static double uniform01(uint64_t* s) { return (double)(next_random(s) >> 11) * (1.0 / 9007199254740992.0); }
void ekb_fill(ekb_tensor* t, uint64_t seed) {
  uint64_t s = 0x9E3779B97F4A7C15ULL * (seed + 1);
  int64_t k;
  int i;
  for (k = 0; k < t->elements; ++k) {
    double u = uniform01(&s), v = 0;
    switch (t->dist) {
      case EKB_UNIFORM: v = t->a + (t->b - t->a) * u; break;
      case EKB_NORMAL: /* a sum of 12 uniforms: mean 0, variance 1 */
        v = u - 6;
        for (i = 1; i < 12; ++i) v += uniform01(&s);
        v = t->a + t->b * v;
        break;
      case EKB_POSITIVE: v = t->a * exp(u * log(t->b / t->a)); break;
      case EKB_MIXED: v = (uniform01(&s) < 0.5 ? -1 : 1) * pow(10.0, t->a + (t->b - t->a) * u); break;
      case EKB_INT: v = floor(t->a + u * (t->b - t->a + 1)); v = v > t->b ? t->b : v; break;
      case EKB_BERNOULLI: v = u < t->a; break;
    }
    ekb_set(t, k, v);
  }
}

/* .npy files: format 1.0 to 3.0, little-endian, C order. */
static int npy_type(const char* d, ekb_dtype* t) {
  static const char* names[] = {"<f8", "<f4", "<f2", "", "<i8", "<i4", "<i2", "|i1", "|u1", "|b1"};
  int i;
  if (strcmp(d, "<u1") == 0) d = "|u1";
  if (strcmp(d, "<i1") == 0) d = "|i1";
  if (strcmp(d, "<b1") == 0) d = "|b1";
  for (i = 0; i < 10; ++i)
    if (names[i][0] && strcmp(d, names[i]) == 0) return *t = (ekb_dtype)i, 0;
  return 1;
}

/* Reads `path` into `out`, a fresh tensor in the file's element type; its shape must be `like`'s. */
static int read_npy(const char* path, const ekb_tensor* like, ekb_tensor* out) {
  unsigned char pre[12];
  char descr[16] = {0}, *header = NULL, *p;
  size_t hlen;
  int rank = 0, ok = 0, i;
  long long dims[32];
  ekb_dtype type;
  FILE* f = fopen(path, "rb");
  if (!f) return fprintf(stderr, "error: cannot open %s\n", path), 1;
  if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
    fprintf(stderr, "error: %s is not a .npy file\n", path);
    goto done;
  }
  hlen = pre[8] | (size_t)pre[9] << 8;
  if (pre[6] >= 2) {
    if (fread(pre + 10, 1, 2, f) != 2) goto truncated;
    hlen |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
  }
  header = (char*)calloc(hlen + 1, 1);
  if (!header || fread(header, 1, hlen, f) != hlen) goto truncated;
  if (!(p = strstr(header, "'descr'")) || !(p = strchr(p + 7, '\'')) || sscanf(p + 1, "%15[^']", descr) != 1 ||
      npy_type(descr, &type)) {
    fprintf(stderr, "error: %s: element type '%s' is not one of an ekb tensor\n", path, descr);
    goto done;
  }
  if ((p = strstr(header, "'fortran_order'")) && strncmp(p + strlen("'fortran_order':"), " True", 5) == 0) {
    fprintf(stderr, "error: %s is in Fortran order; ekb tensors are row-major (C order)\n", path);
    goto done;
  }
  if (!(p = strstr(header, "'shape'")) || !(p = strchr(p, '('))) {
    fprintf(stderr, "error: %s: malformed .npy header\n", path);
    goto done;
  }
  for (++p; *p && *p != ')' && rank < 32;) {
    char* end;
    long long v = strtoll(p, &end, 10);
    if (end == p) ++p;
    else dims[rank++] = v, p = end;
  }
  ok = rank == like->rank;
  for (i = 0; ok && i < rank; ++i) ok = dims[i] == like->shape[i];
  if (!ok) {
    fprintf(stderr, "error: %s has shape (", path);
    for (i = 0; i < rank; ++i) fprintf(stderr, "%s%lld", i ? ", " : "", dims[i]);
    fprintf(stderr, "), but %s is %s[", like->name, ekb_dtype_name(like->type));
    for (i = 0; i < like->rank; ++i) fprintf(stderr, "%s%lld", i ? ", " : "", (long long)like->shape[i]);
    fprintf(stderr, "]\n");
    goto done;
  }
  ok = 0;
  *out = *like;
  out->type = type;
  if (ekb_alloc_tensor(out)) goto done;
  if (fread(out->data, 1, ekb_tensor_bytes(out), f) != ekb_tensor_bytes(out)) {
    free(out->data);
    goto truncated;
  }
  ok = 1;
  goto done;
truncated:
  fprintf(stderr, "error: %s is truncated\n", path);
done:
  free(header);
  fclose(f);
  return !ok;
}

int ekb_load_input(const char* path, ekb_tensor* t) {
  ekb_tensor file;
  int64_t k;
  if (read_npy(path, t, &file)) return 1;
  for (k = 0; k < t->elements; ++k) ekb_set(t, k, ekb_get(&file, k));
  free(file.data);
  return 0;
}

int ekb_write_npy(const char* path, const ekb_tensor* t) {
  static const char* descr[] = {"<f8", "<f4", "<f2", "<f4", "<i8", "<i4", "<i2", "|i1", "|u1", "|b1"};
  char header[1024];
  int n, i;
  int64_t k;
  FILE* f = fopen(path, "wb");
  if (!f) return fprintf(stderr, "error: cannot write %s\n", path), 1;
  n = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr[t->type]);
  for (i = 0; i < t->rank; ++i) n += snprintf(header + n, sizeof header - (size_t)n, i ? ", %lld" : "%lld", (long long)t->shape[i]);
  n += snprintf(header + n, sizeof header - (size_t)n, "%s), }", t->rank == 1 ? "," : "");
  while ((10 + n + 1) % 64) header[n++] = ' ';
  header[n++] = '\n';
  fwrite("\x93NUMPY\x01\x00", 1, 8, f);
  fputc(n & 0xff, f);
  fputc(n >> 8, f);
  fwrite(header, 1, (size_t)n, f);
  if (t->type == EKB_BF16) { /* numpy has no bfloat16: float32, as ekb writes it */
    for (k = 0; k < t->elements; ++k) {
      float v = (float)ekb_get(t, k);
      fwrite(&v, 4, 1, f);
    }
  } else {
    fwrite(t->data, 1, ekb_tensor_bytes(t), f);
  }
  if (fclose(f) != 0) return fprintf(stderr, "error: cannot write %s\n", path), 1;
  return 0;
}

/* ekb's rule (its docs/metrics.md): for floats, error_i = |got_i - ref_i| / (|ref_i| + rms(ref)), and
 * the output passes when the largest error is within its tolerance and no value is NaN or infinite
 * where the reference is finite; integers and bool pass when |got - ref| <= tolerance (0, or 1 after
 * a float-to-integer conversion). */
int ekb_check(const ekb_tensor* got, const char* ref_path) {
  ekb_tensor ref;
  double rms = 0, worst = 0, worst_got = 0, worst_ref = 0;
  int64_t k, worst_k = -1;
  int nonfinite = 0, pass;
  if (read_npy(ref_path, got, &ref)) return 1;
  for (k = 0; k < ref.elements; ++k) rms += ekb_get(&ref, k) * ekb_get(&ref, k);
  rms = sqrt(rms / (double)(ref.elements > 0 ? ref.elements : 1));
  for (k = 0; k < ref.elements; ++k) {
    double a = ekb_get(got, k), b = ekb_get(&ref, k), err = fabs(a - b);
    if (is_float(got->type)) err /= fabs(b) + rms + 1e-300;
    if (isfinite(b) && !isfinite(a)) nonfinite = 1, err = INFINITY;
    if (!isfinite(b)) err = (isnan(b) ? isnan(a) : a == b) ? 0 : INFINITY;
    if (worst_k < 0 || err > worst) worst = err, worst_k = k, worst_got = a, worst_ref = b;
  }
  free(ref.data);
  pass = !nonfinite && worst <= got->tolerance;
  printf("check %-12s max %s %.3g (tolerance %.3g) at element %lld: got %.9g, want %.9g  %s\n", got->name,
         is_float(got->type) ? "error" : "difference", worst, got->tolerance, (long long)worst_k, worst_got, worst_ref,
         pass ? "PASS" : "FAIL");
  return !pass;
}

void ekb_print_summary(const ekb_tensor* t) {
  double sum = 0, abs_sum = 0, lo = INFINITY, hi = -INFINITY;
  int64_t k;
  int i;
  for (k = 0; k < t->elements; ++k) {
    double v = ekb_get(t, k);
    sum += v, abs_sum += fabs(v);
    lo = v < lo ? v : lo, hi = v > hi ? v : hi;
  }
  printf("  %-12s %s[", t->name, ekb_dtype_name(t->type));
  for (i = 0; i < t->rank; ++i) printf("%s%lld", i ? ", " : "", (long long)t->shape[i]);
  printf("]  sum=%.12e  abs_sum=%.12e  min=%.6g  max=%.6g\n", sum, abs_sum, lo, hi);
}

double ekb_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
static int compare_doubles(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int ekb_example_main(int argc, char** argv, const char* kernel, ekb_tensor* tensors, int count, int default_threads,
                     const ekb_example_ops* ops, void* ctx) {
  const char *in_dir = NULL, *out_dir = NULL, *check_dir = NULL;
  int threads = default_threads, repeat = 1, i, failed = 0;
  double* times;
  char path[4096];
  for (i = 1; i < argc; i += 2) {
    const char* key = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(key, "-h") == 0 || strcmp(key, "--help") == 0) {
      printf("usage: %s [--in DIR] [--out DIR] [--check DIR] [--repeat N] [--threads N]%s\n"
             "Runs kernel %s on its inputs and prints each output's checksums and the time of a call.\n"
             "  --in DIR      read each input from DIR/NAME.npy (`ekb interp TASK --out DIR` writes them);\n"
             "                default: deterministic values in each input's declared range\n"
             "  --out DIR     write each output to DIR/NAME.npy\n"
             "  --check DIR   compare each output with DIR/NAME.npy (ekb's float64 reference) by ekb's rule;\n"
             "                the exit status is 1 when one does not pass\n"
             "  --repeat N    call the kernel N times and print the median time (default 1)\n"
             "  --threads N   threads the kernel may use (CPU kernels; default %d)\n",
             argv[0], ops->usage ? ops->usage : "", kernel, default_threads);
      return 0;
    }
    if (!value) return fprintf(stderr, "error: %s needs a value (--help lists the options)\n", key), 2;
    if (strcmp(key, "--in") == 0) in_dir = value;
    else if (strcmp(key, "--out") == 0) out_dir = value;
    else if (strcmp(key, "--check") == 0) check_dir = value;
    else if (strcmp(key, "--repeat") == 0) repeat = atoi(value);
    else if (strcmp(key, "--threads") == 0) threads = atoi(value);
    else if (!ops->option || !ops->option(ctx, key, value))
      return fprintf(stderr, "error: unknown option %s (--help lists the options)\n", key), 2;
  }
  if (repeat < 1 || threads < 1) return fprintf(stderr, "error: --repeat and --threads take a number >= 1\n"), 2;
  for (i = 0; i < count; ++i) {
    if (ekb_alloc_tensor(&tensors[i])) return 1;
    if (tensors[i].is_output) continue;
    if (in_dir) {
      snprintf(path, sizeof path, "%s/%s.npy", in_dir, tensors[i].name);
      if (ekb_load_input(path, &tensors[i])) return 1;
    } else {
      ekb_fill(&tensors[i], (uint64_t)i);
    }
  }
  if (ops->prepare && ops->prepare(ctx, tensors, count)) return 1;
  times = (double*)malloc(sizeof(double) * (size_t)repeat);
  for (i = 0; i < repeat; ++i) {
    double t0 = ekb_now_ms();
    if (ops->run(ctx, tensors, count, threads)) return free(times), 1;
    times[i] = ekb_now_ms() - t0;
  }
  if (ops->finish && ops->finish(ctx, tensors, count)) return free(times), 1;
  printf("kernel %s  inputs: %s\n", kernel, in_dir ? in_dir : "generated");
  for (i = 0; i < count; ++i)
    if (tensors[i].is_output) ekb_print_summary(&tensors[i]);
  qsort(times, (size_t)repeat, sizeof(double), compare_doubles);
  printf("time: median %.4f ms over %d call%s (fastest %.4f ms)\n", times[repeat / 2], repeat, repeat == 1 ? "" : "s", times[0]);
  free(times);
  for (i = 0; i < count; ++i) {
    if (!tensors[i].is_output) continue;
    if (out_dir) {
      snprintf(path, sizeof path, "%s/%s.npy", out_dir, tensors[i].name);
      if (ekb_write_npy(path, &tensors[i])) return 1;
    }
    if (check_dir) {
      snprintf(path, sizeof path, "%s/%s.npy", check_dir, tensors[i].name);
      failed |= ekb_check(&tensors[i], path);
    }
  }
  for (i = 0; i < count; ++i) free(tensors[i].data);
  return failed;
}
)EKB";
}

}  // namespace ekb::io::detail
