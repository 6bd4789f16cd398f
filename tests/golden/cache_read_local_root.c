/* kernel cache_read_local_root */
void ekb_kernel(const float* restrict A, const float* restrict B, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  {
    float b_B_local[42] __attribute__((aligned(64)));
    /* stage B_local */
    for (int64_t v_B_local_ax0 = 0; v_B_local_ax0 < 6; ++v_B_local_ax0) {
      for (int64_t v_B_local_ax1 = 0; v_B_local_ax1 < 7; ++v_B_local_ax1) {
        b_B_local[v_B_local_ax0 * 7 + v_B_local_ax1] = B[v_B_local_ax0 * 7 + v_B_local_ax1];
      }
    }
    /* stage Y */
    for (int64_t v_Y_m = 0; v_Y_m < 5; ++v_Y_m) {
      for (int64_t v_Y_n = 0; v_Y_n < 7; ++v_Y_n) {
        float b_racc0;
        b_racc0 = 0.0f;
        for (int64_t v_Y_k = 0; v_Y_k < 6; ++v_Y_k) {
          b_racc0 = (b_racc0 + (A[v_Y_m * 6 + v_Y_k] * b_B_local[v_Y_k * 7 + v_Y_n]));
        }
        Y[v_Y_m * 7 + v_Y_n] = b_racc0;
      }
    }
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (const float*)args[1], (float*)args[2], num_threads);
}
