/* kernel cache_write */
void ekb_kernel(const float* restrict A, const float* restrict B, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  /* stage Y */
  for (int64_t v_Y_m = 0; v_Y_m < 5; ++v_Y_m) {
    {
      const int64_t Y_local_min0 = v_Y_m;
      float b_Y_local[7] __attribute__((aligned(64)));
      /* stage Y_local (computed at Y.m) */
      for (int64_t v_Y_local_n = 0; v_Y_local_n < 7; ++v_Y_local_n) {
        float b_racc0;
        b_racc0 = 0.0f;
        for (int64_t v_Y_local_k = 0; v_Y_local_k < 6; ++v_Y_local_k) {
          b_racc0 = (b_racc0 + (A[v_Y_m * 6 + v_Y_local_k] * B[v_Y_local_k * 7 + v_Y_local_n]));
        }
        b_Y_local[(v_Y_m - Y_local_min0) * 7 + v_Y_local_n] = b_racc0;
      }
      for (int64_t v_Y_n = 0; v_Y_n < 7; ++v_Y_n) {
        Y[v_Y_m * 7 + v_Y_n] = b_Y_local[(v_Y_m - Y_local_min0) * 7 + v_Y_n];
      }
    }
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (const float*)args[1], (float*)args[2], num_threads);
}
