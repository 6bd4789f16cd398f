/* kernel decompose_reduction */
void ekb_kernel(const float* restrict A, const float* restrict B, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  /* stage Y */
  for (int64_t v_Y_m = 0; v_Y_m < 5; ++v_Y_m) {
    for (int64_t v_Y_n = 0; v_Y_n < 7; ++v_Y_n) {
      Y[v_Y_m * 7 + v_Y_n] = 0.0f;
    }
    for (int64_t v_Y_n = 0; v_Y_n < 7; ++v_Y_n) {
      for (int64_t v_Y_k = 0; v_Y_k < 6; ++v_Y_k) {
        Y[v_Y_m * 7 + v_Y_n] = (Y[v_Y_m * 7 + v_Y_n] + (A[v_Y_m * 6 + v_Y_k] * B[v_Y_k * 7 + v_Y_n]));
      }
    }
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (const float*)args[1], (float*)args[2], num_threads);
}
