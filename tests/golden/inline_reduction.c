/* kernel inline_reduction */
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  /* stage Y */
  for (int64_t v_Y_r = 0; v_Y_r < 10; ++v_Y_r) {
    float b_acc0;
    b_acc0 = 0.0f;
    for (int64_t v_Y_c_S0 = 0; v_Y_c_S0 < 13; ++v_Y_c_S0) {
      b_acc0 = (b_acc0 + X[v_Y_r * 13 + v_Y_c_S0]);
    }
    float b_acc1;
    b_acc1 = 0.0f;
    for (int64_t v_Y_c_S1 = 0; v_Y_c_S1 < 13; ++v_Y_c_S1) {
      b_acc1 = (b_acc1 + X[v_Y_r * 13 + v_Y_c_S1]);
    }
    Y[v_Y_r] = (b_acc0 * b_acc1);
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (float*)args[1], num_threads);
}
