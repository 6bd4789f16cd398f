/* kernel cache_read_local */
void ekb_kernel(const float* restrict A, const float* restrict B, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  /* stage Y */
  for (int64_t v_Y_m = 0; v_Y_m < 5; ++v_Y_m) {
    {
      const int64_t A_local_min0 = v_Y_m;
      float b_A_local[6] __attribute__((aligned(64)));
      /* stage A_local (computed at Y.m) */
      for (int64_t v_A_local_ax1 = 0; v_A_local_ax1 < 6; ++v_A_local_ax1) {
        b_A_local[(v_Y_m - A_local_min0) * 6 + v_A_local_ax1] = A[v_Y_m * 6 + v_A_local_ax1];
      }
      for (int64_t v_Y_n = 0; v_Y_n < 7; ++v_Y_n) {
        float b_racc0;
        b_racc0 = 0.0f;
        for (int64_t v_Y_k = 0; v_Y_k < 6; ++v_Y_k) {
          b_racc0 = (b_racc0 + (b_A_local[(v_Y_m - A_local_min0) * 6 + v_Y_k] * B[v_Y_k * 7 + v_Y_n]));
        }
        Y[v_Y_m * 7 + v_Y_n] = b_racc0;
      }
    }
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (const float*)args[1], (float*)args[2], num_threads);
}
