/* kernel unroll */
void ekb_kernel(const float* restrict X, const float* restrict Wt, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  /* stage Y */
  for (int64_t v_Y_j = 0; v_Y_j < 13; ++v_Y_j) {
    float b_racc0;
    b_racc0 = 0.0f;
    b_racc0 = (b_racc0 + (X[v_Y_j] * Wt[0]));
    b_racc0 = (b_racc0 + (X[(v_Y_j + 1)] * Wt[1]));
    b_racc0 = (b_racc0 + (X[(v_Y_j + 2)] * Wt[2]));
    Y[v_Y_j] = b_racc0;
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (const float*)args[1], (float*)args[2], num_threads);
}
