/* kernel inline */
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  /* stage Y */
  for (int64_t v_Y_i = 0; v_Y_i < 10; ++v_Y_i) {
    for (int64_t v_Y_j = 0; v_Y_j < 13; ++v_Y_j) {
      Y[v_Y_i * 13 + v_Y_j] = ((X[v_Y_i * 13 + v_Y_j] * 2.0f) + (X[v_Y_i * 13 + (((int64_t)(0u - (uint64_t)v_Y_j)) + 12)] * 2.0f));
    }
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (float*)args[1], num_threads);
}
