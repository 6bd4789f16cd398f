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
